package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCorrelation(t *testing.T) {
	// Wikipedia's Spearman example: IQ against hours of TV per week,
	// ρ = −29/165 = −0.175758, p = 0.627188 (t approximation, 8 df).
	iq := []float64{106, 100, 86, 101, 99, 103, 97, 113, 112, 110}
	tv := []float64{7, 27, 2, 50, 28, 29, 20, 12, 6, 17}
	x := []float64{1, 2, 3, 4, 5, 6}
	tests := []struct {
		name string
		f    func(x, y []float64) CorrResult
		x, y []float64
		ok   bool
		r, p float64
	}{
		{"Spearman IQ-TV", Spearman, iq, tv, true, -29.0 / 165, 0.627188},
		// ranks of y = 1 1 2 2 3 are 1.5 1.5 3.5 3.5 5: r = 9/√(10·9).
		{"Spearman ties", Spearman, x[:5], []float64{1, 1, 2, 2, 3}, true, 9 / math.Sqrt(90), -1},
		{"Spearman monotone", Spearman, x, []float64{1, 3, 9, 27, 81, 243}, true, 1, 0},
		{"Pearson monotone is not linear", Pearson, x, []float64{1, 3, 9, 27, 81, 243}, true, 0.829783, -1}, // Python statistics.correlation
		{"Pearson perfect negative", Pearson, x, []float64{12, 10, 8, 6, 4, 2}, true, -1, 0},
		{"Pearson uncorrelated", Pearson, []float64{1, 2, 3, 4, 5}, []float64{2, 1, 3, 1, 2}, true, 0, 1},
		{"constant", Pearson, x, []float64{3, 3, 3, 3, 3, 3}, false, 0, 1},
		{"too few", Spearman, []float64{1, 2}, []float64{2, 1}, false, 0, 1},
		{"non-finite pairs dropped", Pearson, []float64{1, math.NaN(), 2, 3, 4}, []float64{2, 5, 4, 6, math.Inf(1)}, true, 1, 0},
	}
	for _, tc := range tests {
		c := tc.f(tc.x, tc.y)
		if c.OK != tc.ok || !near(c.R, tc.r, 5e-5) || (tc.p >= 0 && !near(c.P, tc.p, 5e-6)) {
			t.Errorf("%s: got %+v, want ok=%v r=%v p=%v", tc.name, c, tc.ok, tc.r, tc.p)
		}
	}
}

func TestNonOverlappingMeans(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7}
	tests := []struct {
		block int
		want  []float64
	}{
		{1, xs},
		{2, []float64{1.5, 3.5, 5.5}},
		{3, []float64{2, 5}},
		{7, []float64{4}},
		{8, []float64{}},
		{0, nil},
		{-1, nil},
	}
	for _, tc := range tests {
		got := NonOverlappingMeans(xs, tc.block)
		if !slices.Equal(got, tc.want) || (tc.want == nil) != (got == nil) {
			t.Errorf("block %d: got %v, want %v", tc.block, got, tc.want)
		}
	}
	got := NonOverlappingMeans([]float64{math.NaN(), math.NaN(), 1, math.NaN()}, 2)
	if len(got) != 2 || !math.IsNaN(got[0]) || got[1] != 1 {
		t.Errorf("blocks with missing values: got %v, want [NaN 1]", got)
	}
}

// TestMovingWindowsInflateSignificance shows why correlations are computed on
// non-overlapping intervals: for independent white noise, correlating 10-point
// moving means (pg_expecto's rolling medians, in small) gives a classical
// p < 0.05 (n − 2 df) far more often than 5 %, while non-overlapping 10-point
// means keep the level. Pearson's effective sample size removes most of the
// inflation, but guesses a moving mean's (not AR(1)) n_eff too small.
func TestMovingWindowsInflateSignificance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const trials, n, w = 200, 600, 10
	var moving, movingEff, blocks int
	for range trials {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		c := Pearson(movingMeans(x, w), movingMeans(y, w))
		if classicalCorrP(c) < 0.05 {
			moving++
		}
		if c.P < 0.05 {
			movingEff++
		}
		if Pearson(NonOverlappingMeans(x, w), NonOverlappingMeans(y, w)).P < 0.05 {
			blocks++
		}
	}
	t.Logf("p < 0.05 on independent noise: moving means %d/%d classical, %d/%d with n_eff; non-overlapping means %d/%d", moving, trials, movingEff, trials, blocks, trials)
	if blocks > trials/10 {
		t.Errorf("non-overlapping: %d of %d independent pairs significant, want ≤ 10 %%", blocks, trials)
	}
	if moving < trials/4 {
		t.Errorf("moving windows: %d of %d significant by the classical test; expected the inflation (≥ 25 %%) this test documents", moving, trials)
	}
	if movingEff > trials/10 {
		t.Errorf("moving windows: %d of %d significant with n_eff, want ≤ 10 %%", movingEff, trials)
	}
}

// classicalCorrP is the p-value of c.R on n − 2 degrees of freedom, the
// test for independent pairs.
func classicalCorrP(c CorrResult) float64 {
	if math.Abs(c.R) == 1 {
		return 0
	}
	df := float64(c.N - 2)
	return twoSidedT(c.R*math.Sqrt(df/(1-c.R*c.R)), df)
}

func movingMeans(xs []float64, w int) []float64 {
	out := make([]float64, 0, len(xs)-w+1)
	for i := 0; i+w <= len(xs); i++ {
		out = append(out, Mean(xs[i:i+w]))
	}
	return out
}

func TestPairEffectiveN(t *testing.T) {
	for _, tc := range []struct {
		rx, ry, want float64
	}{
		{0, 0.9, 120},
		{0.5, 0.5, 120 * 0.75 / 1.25},
		{0.9, 0.9, 120 * 0.19 / 1.81},
		{-0.5, -0.5, 120}, // each clamped to 0 first: no inflation
		{-0.5, 0.9, 120},
		{2, 2, 120 * (1 - 0.9801) / 1.9801}, // each clamped to 0.99
		{math.NaN(), 0.9, 120},
	} {
		if got := PairEffectiveN(120, tc.rx, tc.ry); !near(got, tc.want, 1e-12) {
			t.Errorf("PairEffectiveN(120, %v, %v) = %v, want %v", tc.rx, tc.ry, got, tc.want)
		}
	}
	// Two rising series are each autocorrelated (r₁ 0.625 and 0.482): n_eff
	// < n and a larger p than the classical one.
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	y := []float64{2, 1, 4, 3, 6, 5, 8, 7}
	c := Pearson(x, y)
	want := PairEffectiveN(8, lag1Autocorrelation(x), lag1Autocorrelation(y))
	if !near(c.NEff, want, 1e-12) || !(c.NEff < 8) || !(c.P > classicalCorrP(c)) {
		t.Errorf("Pearson = %+v, want n_eff %v < 8 and p above the classical %v", c, want, classicalCorrP(c))
	}
}

// TestCorrelationAR1 measures the correlation tests' false-positive rate at
// α = 0.05 on two independent stationary AR(1) series of 120 points (the
// classical n − 2 df against the pair's n_eff), and their power on two
// series that share half their variance.
func TestCorrelationAR1(t *testing.T) {
	const n, trials, alpha = 120, 1000, 0.05
	for _, tc := range []struct {
		phi            float64
		maxNew, minOld float64
	}{
		{0.5, 0.08, 0.08},
		{0.9, 0.08, 0.30},
	} {
		rng := rand.New(rand.NewPCG(15, 7+uint64(100*tc.phi)))
		var old, pearson, spearman int
		for range trials {
			x, y := ar1(rng, n, tc.phi, 0, 1), ar1(rng, n, tc.phi, 0, 1)
			c := Pearson(x, y)
			if classicalCorrP(c) < alpha {
				old++
			}
			if c.P < alpha {
				pearson++
			}
			if Spearman(x, y).P < alpha {
				spearman++
			}
		}
		ro, rp, rs := float64(old)/trials, float64(pearson)/trials, float64(spearman)/trials
		t.Logf("independent AR(1) pairs, φ = %.1f, n = %d: p < %.2f in %.1f %% of %d by n − 2 df; with n_eff %.1f %% (Pearson), %.1f %% (Spearman)", tc.phi, n, alpha, 100*ro, trials, 100*rp, 100*rs)
		if rp > tc.maxNew || rs > tc.maxNew {
			t.Errorf("φ = %.1f: false-positive rates %.3f (Pearson), %.3f (Spearman), want ≤ %.2f", tc.phi, rp, rs, tc.maxNew)
		}
		if ro < tc.minOld {
			t.Errorf("φ = %.1f: classical rate %.3f, expected ≥ %.2f (the inflation this test documents)", tc.phi, ro, tc.minOld)
		}
	}
	// Power: y = x + z with x, z independent AR(1), φ = 0.9: r ≈ 0.71.
	rng := rand.New(rand.NewPCG(16, 9))
	var hit int
	for range trials {
		x, z := ar1(rng, n, 0.9, 0, 1), ar1(rng, n, 0.9, 0, 1)
		y := make([]float64, n)
		for i := range y {
			y[i] = x[i] + z[i]
		}
		if c := Pearson(x, y); c.P < alpha && c.R > 0 {
			hit++
		}
	}
	pw := float64(hit) / trials
	t.Logf("power: y = x + z (r ≈ 0.71), AR(1) φ = 0.9, n = %d: Pearson p < %.2f in %.1f %% of %d", n, alpha, 100*pw, trials)
	if pw < 0.8 {
		t.Errorf("power %.3f, want ≥ 0.8", pw)
	}
}
