package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMannWhitneyKnownValues(t *testing.T) {
	tests := []struct {
		name   string
		a, b   []float64
		ua, ub float64
		p      float64
		method string
		psup   float64
		hl     float64
		ok     bool
	}{
		{
			// Reference §4.4: n = 4 a side, every B above every A: 2/C(8,4) = 2/70.
			name: "4 vs 4 all greater", a: []float64{1, 2, 3, 4}, b: []float64{5, 6, 7, 8},
			ua: 0, ub: 16, p: 2.0 / 70, method: MethodExact, psup: 1, hl: 4, ok: true,
		},
		{
			name: "4 vs 4 all lower", a: []float64{5, 6, 7, 8}, b: []float64{1, 2, 3, 4},
			ua: 16, ub: 0, p: 2.0 / 70, method: MethodExact, psup: 0, hl: -4, ok: true,
		},
		{
			// R's ?wilcox.test example (Hollander & Wolfe 1973, 69f.):
			// wilcox.test(x, y, alternative = "g") gives W = 35, p = 0.1272,
			// so two-sided p = 0.2544 (checked by enumerating all C(15,5)
			// orderings). HL shift: median of the 50 differences y_j − x_i.
			name: "R example", a: []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46},
			b:  []float64{1.15, 0.88, 0.90, 0.74, 1.21},
			ua: 35, ub: 15, p: 0.2544122544122544, method: MethodExact, psup: 0.3, hl: -0.305, ok: true,
		},
		{
			// Critical value of the U table for 5 vs 5 at two-sided 0.05 is 2:
			// P(U ≤ 2) = (1+1+2)/252, two-sided 8/252 = 0.0317.
			name: "5 vs 5 U=2", a: []float64{1, 2, 3, 5, 6}, b: []float64{4, 7, 8, 9, 10},
			ua: 2, ub: 23, p: 8.0 / 252, method: MethodExact, psup: 23.0 / 25, hl: 4, ok: true,
		},
		{
			// Ties, small samples → exact permutation distribution given the
			// average ranks 1, 3, 3, 3, 5.5, 5.5, 7, 8 of the pooled
			// 1 2 2 2 3 3 4 5: R_A = 12.5, U_A = 2.5; 14 of the 70 subsets have
			// |R_A − 18| ≥ 5.5, p = 0.2 (enumerated by hand-written script).
			// R's normal approximation would give 0.1367.
			name: "ties exact", a: []float64{1, 2, 2, 3}, b: []float64{2, 3, 4, 5},
			ua: 2.5, ub: 13.5, p: 0.2, method: MethodExactTies, psup: 13.5 / 16, hl: 1.5, ok: true,
		},
		{
			// All of A tied at 0 (a skipped share): the exact p is the
			// smallest possible 2/70, where the normal approximation says 0.021.
			name: "ties only within A", a: []float64{0, 0, 0, 0}, b: []float64{0.05, 0.06, 0.04, 0.07},
			ua: 0, ub: 16, p: 2.0 / 70, method: MethodExactTies, psup: 1, hl: 0.055, ok: true,
		},
		{
			name: "ties 5 vs 6", a: []float64{1, 1, 2, 2, 3}, b: []float64{2, 3, 3, 4, 4, 5},
			ua: 3, ub: 27, p: 0.02813852813852814, method: MethodExactTies, psup: 27.0 / 30, hl: 2, ok: true,
		},
		{
			// 50 vs 55 with ties → normal approximation with tie and
			// continuity corrections: U_A = 1175, Σ(t³−t) over the value
			// groups, z = −1.28603, p = 2Φ(−|z|) = 0.198434 (computed with an
			// independent script from the formula of reference §4.3).
			name: "ties normal", a: cycle(50, 0), b: cycle(55, 1),
			ua: 1175, ub: 1575, p: 0.19843393331552972, method: MethodNormal, psup: 1575.0 / 2750, hl: 1, ok: true,
		},
		{
			name: "all equal", a: []float64{3, 3, 3}, b: []float64{3, 3},
			ua: 3, ub: 3, p: 1, method: MethodExactTies, psup: 0.5, hl: 0, ok: true,
		},
		{
			name: "empty side", a: nil, b: []float64{1, 2},
			p: 1, method: MethodExact, psup: 0.5, ok: false,
		},
		{
			name: "non-finite ignored", a: []float64{1, 2, math.NaN(), 3, 4}, b: []float64{5, math.Inf(1), 6, 7, 8},
			ua: 0, ub: 16, p: 2.0 / 70, method: MethodExact, psup: 1, hl: 4, ok: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := MannWhitney(tc.a, tc.b)
			if r.OK != tc.ok || r.UA != tc.ua || r.UB != tc.ub || r.Method != tc.method {
				t.Errorf("got ok=%v UA=%v UB=%v method=%q, want ok=%v UA=%v UB=%v method=%q",
					r.OK, r.UA, r.UB, r.Method, tc.ok, tc.ua, tc.ub, tc.method)
			}
			if !near(r.P, tc.p, 1e-6) {
				t.Errorf("P = %.7f, want %.7f", r.P, tc.p)
			}
			if r.U != min(r.UA, r.UB) {
				t.Errorf("U = %v, want min(%v, %v)", r.U, r.UA, r.UB)
			}
			if !near(r.PSuperiority, tc.psup, 1e-12) {
				t.Errorf("PSuperiority = %v, want %v", r.PSuperiority, tc.psup)
			}
			if !near(r.HLShift, tc.hl, 1e-9) {
				t.Errorf("HLShift = %v, want %v", r.HLShift, tc.hl)
			}
		})
	}
}

// cycle is n values i mod 10 + off, i = 0..n−1.
func cycle(n int, off float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i%10) + off
	}
	return out
}

// TestExactDistributionByEnumeration checks the recurrence against a brute
// force count of U_A over every ordering of m A's and n B's.
func TestExactDistributionByEnumeration(t *testing.T) {
	for m := 1; m <= 6; m++ {
		for n := 1; n <= 6; n++ {
			want := make([]float64, m*n+1)
			total := m + n
			for mask := 0; mask < 1<<total; mask++ {
				if popcount(mask) != m {
					continue
				}
				// bit k set: position k (ascending) is an A; U_A counts B's below each A.
				u, bs := 0, 0
				for k := range total {
					if mask&(1<<k) != 0 {
						u += bs
					} else {
						bs++
					}
				}
				want[u]++
			}
			got := uCounts(m, n)
			if len(got) != len(want) {
				t.Fatalf("uCounts(%d,%d) has %d entries, want %d", m, n, len(got), len(want))
			}
			for u := range want {
				if got[u] != want[u] {
					t.Errorf("uCounts(%d,%d)[%d] = %v, want %v", m, n, u, got[u], want[u])
				}
			}
		}
	}
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

// TestExactCriticalValues checks the textbook table of critical U for equal
// sizes at two-sided α = 0.05: U ≤ crit is significant, crit+1 is not.
func TestExactCriticalValues(t *testing.T) {
	crit := map[int]int{4: 0, 5: 2, 6: 5, 7: 8, 8: 13, 9: 17, 10: 23, 12: 37, 15: 64, 20: 127}
	for n, c := range crit {
		if p := exactP(n, n, c); p > 0.05 {
			t.Errorf("n=%d: p(U=%d) = %.4f, want ≤ 0.05", n, c, p)
		}
		if p := exactP(n, n, c+1); p <= 0.05 {
			t.Errorf("n=%d: p(U=%d) = %.4f, want > 0.05", n, c+1, p)
		}
	}
	if p := exactP(3, 3, 0); !near(p, 0.1, 1e-12) {
		t.Errorf("3 vs 3 separated: p = %v, want 0.1", p)
	}
}

// drawn is n values of draw, in order.
func drawn(n int, draw func() float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = draw()
	}
	return v
}

func TestMannWhitneySymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 50 {
		m, n := 1+rng.IntN(12), 1+rng.IntN(60)
		a := drawn(m, func() float64 { return math.Round(rng.NormFloat64() * 4) }) // rounding makes ties in some trials
		b := drawn(n, func() float64 { return math.Round(rng.NormFloat64()*4 + 1) })
		ab, ba := MannWhitney(a, b), MannWhitney(b, a)
		if !near(ab.P, ba.P, 1e-12) || ab.UA != ba.UB || !near(ab.HLShift, -ba.HLShift, 1e-12) {
			t.Errorf("trial %d: (a,b) p=%v UA=%v HL=%v; (b,a) p=%v UB=%v HL=%v", trial, ab.P, ab.UA, ab.HLShift, ba.P, ba.UB, ba.HLShift)
		}
		if ab.P < 0 || ab.P > 1 {
			t.Errorf("trial %d: p = %v out of [0,1]", trial, ab.P)
		}
	}
}

// TestHodgesLehmannBisection checks that the bounded-memory path gives the
// same shift as sorting all differences.
func TestHodgesLehmannBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 30 {
		a, b := make([]float64, 1+rng.IntN(40)), make([]float64, 1+rng.IntN(40))
		for i := range a {
			a[i] = rng.ExpFloat64() * 100
		}
		for i := range b {
			b[i] = rng.ExpFloat64()*100 + 20
		}
		direct, bisect := hodgesLehmann(a, b, len(a)*len(b)), hodgesLehmann(a, b, 0)
		if !near(direct, bisect, 1e-9*max(1, math.Abs(direct))) {
			t.Errorf("trial %d: direct %v, bisection %v", trial, direct, bisect)
		}
	}
}

func TestNonOverlap(t *testing.T) {
	tests := []struct {
		name                    string
		a, b                    []float64
		above, below, separated bool
		errRate                 float64
	}{
		// Reference §4.4's table: two-sided 2/C(2n, n).
		{"2 vs 2", []float64{1, 2}, []float64{3, 4}, true, false, true, 0.333},
		{"3 vs 3", []float64{1, 2, 3}, []float64{4, 5, 6}, true, false, true, 0.100},
		{"4 vs 4", []float64{5, 6, 7, 8}, []float64{1, 2, 3, 4}, false, true, true, 0.0286},
		{"5 vs 5", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, true, false, true, 0.0079},
		{"6 vs 6", []float64{1, 2, 3, 4, 5, 6}, []float64{7, 8, 9, 10, 11, 12}, true, false, true, 0.0022},
		{"3 vs 5", []float64{1, 2, 3}, []float64{4, 5, 6, 7, 8}, true, false, true, 0.0357}, // 2/C(8,3) = 2/56
		{"overlap", []float64{1, 5}, []float64{4, 8}, false, false, false, 0.333},
		{"touching is overlap", []float64{1, 4}, []float64{4, 8}, false, false, false, 0.333},
		{"empty", nil, []float64{1}, false, false, false, 1},
	}
	for _, tc := range tests {
		r := NonOverlap(tc.a, tc.b)
		if r.BAbove != tc.above || r.BBelow != tc.below || r.Separated != tc.separated || !near(r.ErrorRate, tc.errRate, 5e-4) {
			t.Errorf("%s: got %+v, want above=%v below=%v separated=%v error %.4f", tc.name, r, tc.above, tc.below, tc.separated, tc.errRate)
		}
	}
	// Separated samples are U = 0, and the exact p equals the rule's error rate.
	a, b := []float64{1, 2, 3}, []float64{4, 5, 6, 7, 8}
	if mw, no := MannWhitney(a, b), NonOverlap(a, b); !near(mw.P, no.ErrorRate, 1e-12) {
		t.Errorf("separated: Mann-Whitney p %v != non-overlap error rate %v", mw.P, no.ErrorRate)
	}
}

// TestExactTiesMatchesUntied checks that the conditional (ties) computation
// reduces to the untied exact distribution when there are no ties.
func TestExactTiesMatchesUntied(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 40 {
		m, n := 1+rng.IntN(15), 1+rng.IntN(15)
		a := drawn(m, rng.Float64)
		b := drawn(n, func() float64 { return rng.Float64() + 0.2 })
		r := MannWhitney(a, b)
		all := append(append([]float64{}, a...), b...)
		ranks, _ := rank(all)
		if got := exactTiesP(ranks, m); !near(got, r.P, 1e-12) || r.Method != MethodExact {
			t.Errorf("trial %d (%d vs %d): ties path %v, untied %v (%s)", trial, m, n, got, r.P, r.Method)
		}
	}
}

func TestMannWhitneyLargestExact(t *testing.T) {
	// 49 vs 49 with ties is the costliest exact case; it must still be
	// exact, in [0, 1], and agree roughly with the normal approximation.
	a, b := cycle(49, 0), cycle(49, 0.5)
	for i := range b {
		b[i] = math.Round(b[i]) // ties across samples
	}
	r := MannWhitney(a, b)
	if r.Method != MethodExactTies || r.P <= 0 || r.P > 1 {
		t.Fatalf("got %+v", r)
	}
	normal := MannWhitney(append(a, 0.25), b) // 50 vs 49: normal approximation
	if normal.Method != MethodNormal || !near(r.P, normal.P, 0.1) {
		t.Errorf("exact p %v vs normal p %v (%s)", r.P, normal.P, normal.Method)
	}
}
