package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestRateAchieved(t *testing.T) {
	tests := []struct {
		name              string
		expected, started float64
		poisson           bool
		tol               float64
		ok                bool
	}{
		// E = 100: 3√E = 30 > 1 % of E.
		{"short window, Poisson: 3√E", 100, 71, true, 30, true},
		{"short window, Poisson: beyond 3√E", 100, 69, true, 30, false},
		{"short window, uniform: 1 %", 100, 98, false, 1, false},
		{"uniform within 1 %", 100, 99, false, 1, true},
		// E = 1e6: 1 % of E = 10000 > 3√E = 3000.
		{"long window: 1 %", 1e6, 990000, true, 10000, true},
		{"long window: beyond 1 %", 1e6, 989999, true, 10000, false},
		{"more than expected", 50, 80, true, 3 * math.Sqrt(50), true},
		{"NaN started", 100, math.NaN(), true, 30, false},
		{"no expectation", 0, 10, true, 0, false},
	}
	for _, tc := range tests {
		if got := RateTolerance(tc.expected, tc.poisson); math.Abs(got-tc.tol) > 1e-9 {
			t.Errorf("%s: RateTolerance(%v, %v) = %v, want %v", tc.name, tc.expected, tc.poisson, got, tc.tol)
		}
		if got := RateAchieved(tc.expected, tc.started, tc.poisson); got != tc.ok {
			t.Errorf("%s: RateAchieved(%v, %v, %v) = %v, want %v", tc.name, tc.expected, tc.started, tc.poisson, got, tc.ok)
		}
	}
}

// TestRateAchievedPoissonFalseFail: a server that keeps up exactly still
// starts a Poisson count; the rule fails such a run rarely (≤ 3σ: about
// 0.13 % for large E) at every window length.
func TestRateAchievedPoissonFalseFail(t *testing.T) {
	const n = 20000
	for _, e := range []float64{20, 200, 3000, 90000} {
		p := distuv.Poisson{Lambda: e, Src: rand.New(rand.NewPCG(1, uint64(e)))}
		fails := 0
		for range n {
			if !RateAchieved(e, p.Rand(), true) {
				fails++
			}
		}
		rate := float64(fails) / n
		t.Logf("E = %g: %d of %d Poisson runs at the exact rate fail (%.3f %%)", e, fails, n, 100*rate)
		if rate > 0.005 {
			t.Errorf("E = %g: false-fail rate %.4f, want ≤ 0.5 %%", e, rate)
		}
	}
}
