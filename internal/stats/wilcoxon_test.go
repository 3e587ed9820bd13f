package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestWilcoxonSignedRankKnown(t *testing.T) {
	// Hollander & Wolfe's depression scores (R's ?wilcox.test): V = 40,
	// two-sided exact p = 0.03906 (R's one-sided "greater" p is 0.01953).
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	r := WilcoxonSignedRank(d)
	if r.WPlus != 40 || r.Method != MethodExact || math.Abs(r.P-0.0390625) > 1e-9 {
		t.Errorf("H&W example: W+ %v, %s p %v; want 40, exact, 0.0390625", r.WPlus, r.Method, r.P)
	}
	// All of n positive: p = 2/2^n.
	for _, c := range []struct {
		d []float64
		p float64
	}{
		{[]float64{1, 2, 3, 4, 5}, 2.0 / 32},
		{[]float64{-1, -2, -3, -4, -5, -6}, 2.0 / 64},
		{[]float64{1, 2, 3, 4, 5, 6, 0, 0}, 2.0 / 64}, // zeros dropped
		{[]float64{1, -1, 2, -2}, 1},
	} {
		r := WilcoxonSignedRank(c.d)
		if math.Abs(r.P-c.p) > 1e-12 {
			t.Errorf("%v: p %v, want %v", c.d, r.P, c.p)
		}
	}
	if r := WilcoxonSignedRank([]float64{1, 2, 0, 3, 0, 4, 5, 6}); r.Zeros != 2 || r.N != 6 {
		t.Errorf("zeros: N %d Zeros %d, want 6 and 2", r.N, r.Zeros)
	}
	if r := WilcoxonSignedRank([]float64{0, 0, math.NaN()}); r.OK || r.P != 1 {
		t.Errorf("only zeros: %+v, want not OK, p 1", r)
	}
}

// bruteSignedRankP enumerates the 2^n sign assignments of the ranks of |d|
// (average ranks for ties): the exact conditional two-sided p.
func bruteSignedRankP(d []float64) float64 {
	mag := make([]float64, len(d))
	for i, x := range d {
		mag[i] = math.Abs(x)
	}
	ranks, _ := rank(mag)
	var obs, total float64
	for i, x := range d {
		total += ranks[i]
		if x > 0 {
			obs += ranks[i]
		}
	}
	e := total / 2
	n := len(d)
	hits := 0
	for mask := 0; mask < 1<<n; mask++ {
		var s float64
		for i := range n {
			if mask&(1<<i) != 0 {
				s += ranks[i]
			}
		}
		if math.Abs(s-e) >= math.Abs(obs-e)-1e-9 {
			hits++
		}
	}
	return float64(hits) / float64(int(1)<<n)
}

func TestWilcoxonSignedRankTiesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 50))
	for trial := range 200 {
		n := 3 + rng.IntN(10)
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(rng.IntN(7) - 3) // many ties, some zeros
		}
		var nz []float64
		for _, x := range d {
			if x != 0 {
				nz = append(nz, x)
			}
		}
		r := WilcoxonSignedRank(d)
		if len(nz) == 0 {
			continue
		}
		if want := bruteSignedRankP(nz); math.Abs(r.P-want) > 1e-12 {
			t.Fatalf("trial %d: %v: p %v, brute force %v (%s)", trial, d, r.P, want, r.Method)
		}
	}
}

func TestWilcoxonSignedRankNormal(t *testing.T) {
	// At n = 60 the normal approximation is close to the exact distribution.
	rng := rand.New(rand.NewPCG(15, 51))
	for range 20 {
		d := make([]float64, 60)
		for i := range d {
			d[i] = rng.NormFloat64() + 0.3
		}
		r := WilcoxonSignedRank(d)
		mag := make([]float64, len(d))
		for i, x := range d {
			mag[i] = math.Abs(x)
		}
		ranks, _ := rank(mag)
		exact := signedRankExactP(ranks, r.WPlus)
		if r.Method != MethodNormal || math.Abs(r.P-exact) > 0.01+0.1*exact {
			t.Errorf("n = 60: %s p %v, exact %v", r.Method, r.P, exact)
		}
	}
}

func TestSignedRankCIKnown(t *testing.T) {
	// 5 pairs cannot give a 95 % interval: P₀(W+ ≤ 0) = 1/32 > 0.025.
	if iv := SignedRankCI([]float64{1, 2, 3, 4, 5}, 0.95); iv.OK || iv.Point != 3 {
		t.Errorf("5 pairs at 95 %%: %+v, want not OK, point 3", iv)
	}
	// 6 pairs: k = 1, the interval is [min, max] of the Walsh averages, at
	// 1 − 2/64 = 96.9 %.
	iv := SignedRankCI([]float64{1, 2, 3, 4, 5, 6}, 0.95)
	if !iv.OK || iv.Lo != 1 || iv.Hi != 6 || math.Abs(iv.Conf-(1-2.0/64)) > 1e-12 || iv.Point != 3.5 {
		t.Errorf("6 pairs: %+v, want [1, 6] at 0.96875, point 3.5", iv)
	}
	r := PairedLogRatioCI([]float64{100, 100, 100, 100, 100, 100}, []float64{101, 102, 103, 104, 105, 106}, 0.95)
	if !r.OK || math.Abs(r.Lo-1.01) > 1e-9 || math.Abs(r.Hi-1.06) > 1e-9 {
		t.Errorf("ratio: %+v, want [1.01, 1.06]", r)
	}
	if r := PairedLogRatioCI([]float64{1, 0}, []float64{1, 1}, 0.95); r.OK {
		t.Errorf("a zero value gave a ratio: %+v", r)
	}
	// Large n: the normal rank.
	d := make([]float64, 200)
	for i := range d {
		d[i] = float64(i) - 99.5
	}
	if iv := SignedRankCI(d, 0.95); !iv.OK || !(iv.Lo < 0 && iv.Hi > 0) || math.Abs(iv.Conf-0.95) > 0.01 {
		t.Errorf("n = 200: %+v", iv)
	}
}

// TestSimSignedRankAA: no shift, continuous differences: the exact test's
// false-positive rate is at most α, and the interval excludes 0 exactly
// when the test rejects.
func TestSimSignedRankAA(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 52))
	const sims = 3000
	for _, n := range []int{6, 8, 12} {
		rejected, disagree := 0, 0
		for range sims {
			d := make([]float64, n)
			for i := range d {
				d[i] = 0.03 * rng.NormFloat64()
			}
			r := WilcoxonSignedRank(d)
			iv := SignedRankCI(d, 1-DefaultAlpha)
			rej := r.P < DefaultAlpha
			if rej {
				rejected++
			}
			if rej != iv.Excludes(0) {
				disagree++
			}
		}
		rate := float64(rejected) / sims
		t.Logf("signed-rank A/A, n = %2d: false positives %.2f %% (%d of %d), test and interval disagree in %d", n, 100*rate, rejected, sims, disagree)
		if rate > DefaultAlpha+0.01 { // α plus ~2.5 binomial SE
			t.Errorf("n = %d: false-positive rate %.3f > α", n, rate)
		}
		if disagree > 0 {
			t.Errorf("n = %d: test and interval disagree in %d cases", n, disagree)
		}
	}
}

// TestSimSignedRankCoverage: with a true ratio of 1.05 and symmetric noise,
// the 95 % paired interval covers it in at least 95 % of cases (less a
// binomial margin); it reports the achieved level, which it is compared to.
func TestSimSignedRankCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 53))
	const sims = 2000
	for _, n := range []int{6, 8, 12} {
		covered, made := 0, 0
		var conf float64
		for range sims {
			a := make([]float64, n)
			b := make([]float64, n)
			for i := range a {
				a[i] = 1000 * math.Exp(0.03*rng.NormFloat64())
				b[i] = 1.05 * 1000 * math.Exp(0.03*rng.NormFloat64())
			}
			iv := PairedLogRatioCI(a, b, 0.95)
			if !iv.OK {
				continue
			}
			made++
			conf = iv.Conf
			if iv.Lo <= 1.05 && 1.05 <= iv.Hi {
				covered++
			}
		}
		rate := float64(covered) / float64(made)
		t.Logf("paired ratio interval, n = %2d: coverage %.2f %% of %d (achieved level %.2f %%)", n, 100*rate, made, 100*conf)
		if made != sims || rate < conf-0.015 {
			t.Errorf("n = %d: coverage %.3f of %d intervals, level %.3f", n, rate, made, conf)
		}
	}
}

// TestSimPairedDrift: a machine that drifts across rounds (a trend shared by
// A and B, ±8 % over 8 rounds) swamps a true 3 % difference for the unpaired
// Mann-Whitney, while the per-round ratios remove it and the paired test
// keeps its power.
func TestSimPairedDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 54))
	const sims, n = 2000, 8
	paired, unpaired, pairedAA, unpairedAA := 0, 0, 0, 0
	for range sims {
		slope := 0.16 * (rng.Float64() - 0.5) * 2 / float64(n-1) // up to ±16 % over the rounds
		for _, shift := range []float64{1.03, 1} {
			a := make([]float64, n)
			b := make([]float64, n)
			for r := range n {
				drift := math.Exp(slope * float64(r))
				a[r] = 1000 * drift * math.Exp(0.01*rng.NormFloat64())
				b[r] = shift * 1000 * drift * math.Exp(0.01*rng.NormFloat64())
			}
			d, _ := PairedLogRatios(a, b)
			p := WilcoxonSignedRank(d).P < DefaultAlpha
			u := MannWhitney(a, b).P < DefaultAlpha
			switch {
			case shift != 1 && p:
				paired++
			case shift == 1 && p:
				pairedAA++
			}
			switch {
			case shift != 1 && u:
				unpaired++
			case shift == 1 && u:
				unpairedAA++
			}
		}
	}
	pw, uw := float64(paired)/sims, float64(unpaired)/sims
	t.Logf("drifting machine, 3 %% shift, %d rounds: power paired signed-rank %.1f %%, unpaired Mann-Whitney %.1f %%; "+
		"no shift: false positives paired %.1f %%, unpaired %.1f %%",
		n, 100*pw, 100*uw, 100*float64(pairedAA)/sims, 100*float64(unpairedAA)/sims)
	if pw < 0.9 || uw > pw-0.3 {
		t.Errorf("paired power %.3f, unpaired %.3f: want paired ≥ 0.9 and 0.3 above", pw, uw)
	}
	if float64(pairedAA)/sims > DefaultAlpha+0.01 {
		t.Errorf("paired false positives %.3f under drift", float64(pairedAA)/sims)
	}
}
