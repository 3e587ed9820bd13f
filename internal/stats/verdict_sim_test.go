package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Seeded simulations of the verdict rules (issue 15's acceptance): the
// family-wise false-positive rate of a comparison of 16 correlated metrics,
// equivalence with 3 vs 3, power, the agreement of the interval with the
// test, TOST's false-equivalence rate, the interval's coverage, and the
// runs RunsNeeded asks for. Each prints what it measured.

// correlatedRuns draws n runs of k metrics, each metric log-normal around
// center·shift with run-to-run noise sd (in log units); the metrics of a run
// share a common factor with correlation rho (a noisy machine slows
// everything in a run together).
func correlatedRuns(rng *rand.Rand, n, k int, sd, rho, shift float64) [][]float64 {
	out := make([][]float64, k)
	for j := range out {
		out[j] = make([]float64, n)
	}
	for i := range n {
		common := rng.NormFloat64()
		for j := range k {
			e := math.Sqrt(rho)*common + math.Sqrt(1-rho)*rng.NormFloat64()
			out[j][i] = 1000 * shift * math.Exp(sd*e)
		}
	}
	return out
}

// family judges one comparison as a command does: metric 0 is the primary
// at α, the others exploratory under Holm.
func family(a, b [][]float64) []VerdictResult {
	ps := make([]float64, len(a)-1)
	for j := 1; j < len(a); j++ {
		ps[j-1] = MannWhitney(a[j], b[j]).P
	}
	steps := Holm(ps, DefaultAlpha)
	out := []VerdictResult{Verdict(VerdictConfig{Metric: "primary"}, a[0], b[0])}
	for j := 1; j < len(a); j++ {
		out = append(out, Verdict(VerdictConfig{Metric: "m", Role: RoleExploratory, Holm: &steps[j-1]}, a[j], b[j]))
	}
	return out
}

func TestSimFamilyAA(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	const k, n = 16, 5
	for _, c := range []struct {
		rho         float64
		comparisons int
	}{{0, 300}, {0.5, 1000}, {0.9, 300}} {
		rho, comparisons := c.rho, c.comparisons
		anyDiffers, primary, secondary := 0, 0, 0
		for range comparisons {
			a := correlatedRuns(rng, n, k, 0.03, rho, 1)
			b := correlatedRuns(rng, n, k, 0.03, rho, 1)
			found := false
			for j, v := range family(a, b) {
				if v.Outcome == OutcomeDiffers {
					found = true
					if j == 0 {
						primary++
					} else {
						secondary++
					}
				}
			}
			if found {
				anyDiffers++
			}
		}
		rate := float64(anyDiffers) / float64(comparisons)
		t.Logf("A/A, %d metrics, correlation %.1f, %d vs %d runs: %.1f %% of %d comparisons had a \"differs\" (primary %d, exploratory %d)",
			k, rho, n, n, 100*rate, comparisons, primary, secondary)
		if rate > 0.05 {
			t.Errorf("family-wise false-positive rate %.1f %% > 5 %%", 100*rate)
		}
	}
}

func TestSimThreeVsThreeNeverEquivalent(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	equivalent := 0
	for range 1000 {
		a, b := correlatedRuns(rng, 3, 1, 0.001, 0, 1), correlatedRuns(rng, 3, 1, 0.001, 0, 1)
		if Verdict(VerdictConfig{Metric: "tps"}, a[0], b[0]).Outcome == OutcomeEquivalent {
			equivalent++
		}
	}
	t.Logf("3 vs 3 A/A with 0.1 %% noise: %d of 1000 said equivalent", equivalent)
	if equivalent != 0 {
		t.Errorf("3 vs 3 said equivalent %d times", equivalent)
	}
}

func TestSimPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	const trials = 1000
	differs := 0
	for range trials {
		a, b := correlatedRuns(rng, 8, 1, 0.03, 0, 1), correlatedRuns(rng, 8, 1, 0.03, 0, 1.05)
		if v := Verdict(VerdictConfig{Metric: "p99"}, a[0], b[0]); v.Outcome == OutcomeDiffers && v.BHigher {
			differs++
		}
	}
	rate := float64(differs) / trials
	t.Logf("true +5 %% shift, 3 %% noise, 8 vs 8 runs: primary says \"differs\" (B higher) in %.1f %%", 100*rate)
	if rate < 0.70 {
		t.Errorf("power %.1f %% < 70 %%", 100*rate)
	}
}

// TestSimIntervalAgreesWithTest: for continuous data the Hodges–Lehmann
// interval at 1 − α excludes no change exactly when Mann-Whitney's p < α,
// over sizes and shifts; and a verdict never says "differs" without both.
func TestSimIntervalAgreesWithTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 4))
	cases, disagree, inconsistent := 0, 0, 0
	for _, n := range []int{4, 5, 6, 8, 12, 60} {
		for _, shift := range []float64{1, 1.02, 1.05, 1.1} {
			for range 150 {
				a, b := correlatedRuns(rng, n, 1, 0.03, 0, 1), correlatedRuns(rng, n+1, 1, 0.03, 0, shift)
				mw := MannWhitney(a[0], b[0])
				iv := ShiftCI(a[0], b[0], 1-DefaultAlpha)
				cases++
				if (mw.P < DefaultAlpha) != iv.Excludes(0) {
					disagree++
					if n < exactLimit {
						t.Errorf("n %d: p %v but interval [%v, %v] (conf %v)", n, mw.P, iv.Lo, iv.Hi, iv.Conf)
					}
				}
				v := Verdict(VerdictConfig{Metric: "x"}, a[0], b[0])
				if v.Outcome == OutcomeDiffers && (v.P >= DefaultAlpha || !v.Ratio.Excludes(1)) {
					inconsistent++
				}
			}
		}
	}
	t.Logf("interval vs test: %d of %d cases disagree (only n = 60, the normal approximation, may); verdicts inconsistent: %d", disagree, cases, inconsistent)
	if inconsistent != 0 {
		t.Errorf("%d verdicts said differs without both the test and the interval", inconsistent)
	}
	if float64(disagree) > 0.01*float64(cases) {
		t.Errorf("%d of %d disagree", disagree, cases)
	}
}

// TestSimTOSTFalseEquivalence: at a true shift of exactly δ, "equivalent
// within ±δ" must come at most α of the time.
func TestSimTOSTFalseEquivalence(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 5))
	for _, n := range []int{5, 8, 12, 20} {
		const trials = 1000
		eq := 0
		for range trials {
			a, b := correlatedRuns(rng, n, 1, 0.02, 0, 1), correlatedRuns(rng, n, 1, 0.02, 0, 1+DefaultMargin)
			if Verdict(VerdictConfig{Metric: "tps"}, a[0], b[0]).Outcome == OutcomeEquivalent {
				eq++
			}
		}
		rate := float64(eq) / trials
		t.Logf("true shift +5 %%, 2 %% noise, %d vs %d runs: \"equivalent within ±5 %%\" in %.1f %%", n, n, 100*rate)
		// Binomial(1000, 0.05): sd 0.7 %; allow 2 sd.
		if rate > DefaultAlpha+0.014 {
			t.Errorf("n %d: false equivalence %.1f %% > α", n, 100*rate)
		}
	}
	// And it can say "equivalent" when it should: A/A, 1 % noise, 8 a side.
	eq := 0
	for range 500 {
		a, b := correlatedRuns(rng, 8, 1, 0.01, 0, 1), correlatedRuns(rng, 8, 1, 0.01, 0, 1)
		if Verdict(VerdictConfig{Metric: "tps"}, a[0], b[0]).Outcome == OutcomeEquivalent {
			eq++
		}
	}
	t.Logf("A/A, 1 %% noise, 8 vs 8: equivalent in %.1f %%", float64(eq)/5)
	if eq < 400 {
		t.Errorf("A/A with 1 %% noise, 8 a side: equivalent only %d of 500 times", eq)
	}
}

func TestSimShiftCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 6))
	for _, n := range []int{5, 8, 60} {
		const trials = 1000
		covered := 0
		var conf float64
		for range trials {
			a, b := correlatedRuns(rng, n, 1, 0.03, 0, 1), correlatedRuns(rng, n, 1, 0.03, 0, 1.04)
			iv := LogRatioCI(a[0], b[0], 0.95)
			conf = iv.Conf
			if iv.OK && iv.Lo <= 1.04 && 1.04 <= iv.Hi {
				covered++
			}
		}
		rate := float64(covered) / trials
		t.Logf("LogRatioCI 95 %% (achieved %.3f), %d vs %d: covers the true ratio in %.1f %%", conf, n, n, 100*rate)
		if rate < 0.93 {
			t.Errorf("n %d: coverage %.1f %% < 93 %%", n, 100*rate)
		}
	}
}

// TestSimRunsNeeded: at the runs RunsNeeded asks for, a shift of δ is found
// about DefaultPower of the time.
func TestSimRunsNeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	const sd = 0.03
	n := RunsNeeded(sd, math.Log1p(DefaultMargin), DefaultAlpha, DefaultPower)
	differs := 0
	const trials = 600
	for range trials {
		a, b := correlatedRuns(rng, n, 1, sd, 0, 1), correlatedRuns(rng, n, 1, sd, 0, 1+DefaultMargin)
		if Verdict(VerdictConfig{Metric: "p99"}, a[0], b[0]).Outcome == OutcomeDiffers {
			differs++
		}
	}
	rate := float64(differs) / trials
	t.Logf("3 %% noise: RunsNeeded for ±5 %% = %d a side; at %d vs %d a +5 %% shift is found in %.1f %%", n, n, n, 100*rate)
	if rate < 0.72 || rate > 0.92 {
		t.Errorf("power at the runs asked for: %.1f %%, want ≈ 80 %%", 100*rate)
	}
}

func TestHolm(t *testing.T) {
	steps := Holm([]float64{0.01, 0.04, 0.03, 0.005, math.NaN()}, 0.05)
	// Sorted: 0.005 (÷5: 0.01 ✓), 0.01 (÷4: 0.0125 ✓), 0.03 (÷3: 0.0167 ✗), 0.04, NaN.
	want := []struct {
		rank     int
		rejected bool
		adjusted float64
	}{{2, true, 0.04}, {4, false, 0.09}, {3, false, 0.09}, {1, true, 0.025}, {5, false, 1}}
	for i, w := range want {
		s := steps[i]
		if s.Rank != w.rank || s.Rejected != w.rejected || math.Abs(s.Adjusted-w.adjusted) > 1e-12 || s.Tests != 5 {
			t.Errorf("step %d: %+v, want rank %d rejected %v adjusted %v", i, s, w.rank, w.rejected, w.adjusted)
		}
	}
	if math.Abs(steps[3].Level-0.01) > 1e-12 || math.Abs(steps[4].Level-0.05) > 1e-12 {
		t.Errorf("levels %v, %v", steps[3].Level, steps[4].Level)
	}
}

// TestSimNegligible: a true shift of +1 % with 0.3 % noise, 10 a side, is
// a "differs" that is also within ±5 %: marked negligible nearly always; a
// true shift of +10 % with the same noise never is; and a shift at the
// margin (+5 %) is marked negligible at most at TOST's false-equivalence
// rate (α).
func TestSimNegligible(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 11))
	rate := func(n int, sd, shift float64) (differs, negligible float64) {
		const trials = 500
		var d, g int
		for range trials {
			a, b := correlatedRuns(rng, n, 1, sd, 0, 1), correlatedRuns(rng, n, 1, sd, 0, shift)
			v := Verdict(VerdictConfig{Metric: "tps"}, a[0], b[0])
			if v.Outcome == OutcomeDiffers {
				d++
			}
			if v.Negligible {
				g++
				if v.Outcome != OutcomeDiffers {
					t.Fatalf("negligible on a %q verdict: %s", v.Outcome, v.Text)
				}
			}
		}
		return float64(d) / trials, float64(g) / trials
	}
	d, g := rate(10, 0.003, 1.01)
	t.Logf("+1 %%, 0.3 %% noise, 10 vs 10: differs %.1f %%, negligible %.1f %%", 100*d, 100*g)
	if d < 0.95 || g < 0.95 {
		t.Errorf("+1 %% shift: differs %.2f, negligible %.2f; want both ≥ 0.95", d, g)
	}
	d, g = rate(10, 0.003, 1.10)
	t.Logf("+10 %%, 0.3 %% noise, 10 vs 10: differs %.1f %%, negligible %.1f %%", 100*d, 100*g)
	if d < 0.95 || g != 0 {
		t.Errorf("+10 %% shift: differs %.2f, negligible %.2f; want differs ≥ 0.95 and never negligible", d, g)
	}
	_, g = rate(10, 0.02, 1+DefaultMargin)
	t.Logf("+5 %%, 2 %% noise, 10 vs 10: negligible %.1f %%", 100*g)
	if g > DefaultAlpha+0.02 {
		t.Errorf("a shift at the margin is called negligible %.1f %% of the time, above α", 100*g)
	}
	v := Verdict(VerdictConfig{Metric: "tps"}, []float64{100, 100.1, 100.2, 100.15, 100.05, 99.95, 100.12},
		[]float64{99.5, 99.6, 99.7, 99.65, 99.55, 99.45, 99.62})
	if !v.Negligible || !strings.Contains(v.Text, "; negligible: the 90.3 % interval lies within ±5 %") {
		t.Errorf("text %q (negligible %v)", v.Text, v.Negligible)
	}
}
