package checks

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// fitLine is stats.SeriesFit (tested there) with the checklist's rule: a
// trend needs 3 usable points for a p-value.
func TestFitLineRule(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name  string
		x, y  []float64
		ok    bool
		n     int
		slope float64
	}{
		{"exact line", []float64{1, 2, 3}, []float64{5, 7, 9}, true, 3, 2},
		{"2 points: no p-value", []float64{1, 2}, []float64{5, 7}, false, 2, 2},
		{"non-finite pairs left out", []float64{1, 2, nan, 4, 5}, []float64{5, 7, 1, math.Inf(1), 13}, true, 3, 2},
		{"no spread in x", []float64{1, 1, 1}, []float64{1, 2, 3}, false, 3, 0},
		{"overflow", []float64{1, 2, 3}, []float64{-math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}, false, 3, 0},
		{"empty", nil, nil, false, 0, 0},
	} {
		f, ok := fitLine(tc.x, tc.y)
		if ok != tc.ok || f.N != tc.n || math.Abs(f.Slope-tc.slope) > 1e-12 {
			t.Errorf("%s: ok %v, %+v; want ok %v, n %d, slope %g", tc.name, ok, f, tc.ok, tc.n, tc.slope)
		}
		if tc.ok && f.P > 1e-12 { // the usable points lie on a line
			t.Errorf("%s: p = %g, want 0", tc.name, f.P)
		}
	}
}

func TestPRising(t *testing.T) {
	for _, tc := range []struct {
		slope, p, want float64
	}{
		{2, 0.04, 0.02},  // rising: half the two-sided p
		{-2, 0.04, 0.98}, // falling: no evidence of a rise
		{0, 1, 0.5},
		{3, 0, 0}, // an exact rising line
	} {
		if got := pRising(stats.TrendResult{Slope: tc.slope, P: tc.p}); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("slope %g, p %g: one-sided p %g, want %g", tc.slope, tc.p, got, tc.want)
		}
	}
}

func TestUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"128MB", 128 << 20, true},
		{"8GB", 8 << 30, true},
		{"16384", 16384 * 8192, true},
		{"16kB", 16 << 10, true},
		{" 1 TB ", 1 << 40, true},
		{"512B", 512, true},
		{"1.5GB", 3 << 29, true},
		{"lots", 0, false},
		{"12XB", 0, false},
		{"-1MB", 0, false},
		{"", 0, false},
		{"1e300TB", 0, false},
	} {
		got, err := parseBytes(tc.in, blockSize)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"5min", 5 * time.Minute, true},
		{"30s", 30 * time.Second, true},
		{"300", 300 * time.Second, true},
		{"1h", time.Hour, true},
		{"1d", 24 * time.Hour, true},
		{"250ms", 250 * time.Millisecond, true},
		{"5 min", 5 * time.Minute, true},
		{"5m", 0, false}, // PostgreSQL's minute is "min"
		{"soon", 0, false},
		{"-5min", 0, false},
		{"1e30d", 0, false},
	} {
		got, err := parseDuration(tc.in, time.Second)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// ar1 is a stationary AR(1) series of n points, mean mu and marginal
// standard deviation sd: e_0 ~ N(0, sd²), e_i = φ·e_{i−1} + sd·√(1−φ²)·z_i.
func ar1(rng *rand.Rand, n int, phi, mu, sd float64) []float64 {
	y := make([]float64, n)
	e := sd * rng.NormFloat64()
	for i := range y {
		if i > 0 {
			e = phi*e + sd*math.Sqrt(1-phi*phi)*rng.NormFloat64()
		}
		y[i] = mu + e
	}
	return y
}

// oldDriftRule is the drift rule before the effective sample size: OLS p
// on n − 2 df below trendAlpha and |s| above driftTolerance.
func oldDriftRule(x, y []float64) bool {
	f := stats.LinearFit(x, y)
	return f.P < trendAlpha && math.Abs(f.Drift) > driftTolerance
}

// TestDriftRuleAR1 measures the warm-up item's drift rule on simulated
// per-second intervals of a 120-s window: stationary AR(1) noise of 5 % of
// the mean (false positives, old rule against new), and a real +10 % drift
// across the window on the same noise (power).
func TestDriftRuleAR1(t *testing.T) {
	const n, trials = 120, 1000
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(31 + i) // elapsed seconds after a 30-s warm-up
	}
	rate := func(phi, rise float64, seed uint64) (old, new float64) {
		rng := rand.New(rand.NewPCG(15, seed))
		var o, w int
		for range trials {
			y := ar1(rng, n, phi, 1000, 50)
			for i := range y {
				y[i] += 1000 * rise * (float64(i)/(n-1) - 0.5)
			}
			if oldDriftRule(x, y) {
				o++
			}
			if _, _, bad, ok := (series{name: "tps", x: x, y: y}).drift(); ok && bad {
				w++
			}
		}
		return float64(o) / trials, float64(w) / trials
	}
	for _, phi := range []float64{0.5, 0.9} {
		old, new := rate(phi, 0, uint64(100*phi))
		t.Logf("stationary AR(1) φ = %.1f, sd 5 %%, %d intervals: drift warns in %.1f %% of %d series before, %.1f %% now", phi, n, 100*old, trials, 100*new)
		if new > 0.05 {
			t.Errorf("φ = %.1f: false-positive rate %.3f, want ≤ 0.05", phi, new)
		}
		if phi == 0.9 && old < 0.2 {
			t.Errorf("φ = 0.9: the old rule warned in %.3f, expected ≥ 0.2 (the defect this test documents)", old)
		}
	}
	for _, tc := range []struct{ phi, minPower float64 }{{0.5, 0.7}, {0.9, 0}} {
		old, new := rate(tc.phi, 0.10, 200+uint64(100*tc.phi))
		t.Logf("+10 %% drift, AR(1) φ = %.1f, sd 5 %%, %d intervals: detected in %.1f %% of %d series (old rule %.1f %%)", tc.phi, n, 100*new, trials, 100*old)
		if new < tc.minPower {
			t.Errorf("φ = %.1f: power %.3f, want ≥ %.2f", tc.phi, new, tc.minPower)
		}
	}
}

// TestWarmupStationaryAR1 is issue 15's acceptance case: the warm-up item
// on a stationary window of 120 one-second intervals with strong
// autocorrelation (tps and response p50 both AR(1), φ = 0.9, sd 5 % of the
// mean) does not warn. The old rule (OLS p on n − 2 df) warned on both
// series of this seeded run.
func TestWarmupStationaryAR1(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	tps := ar1(rng, measureS, 0.9, 100, 5)
	p50 := ar1(rng, measureS, 0.9, 5, 0.25)
	f := newFixture()
	f.closed()
	var x []float64
	f.measured(func(i int, r *results.TimelineRow) {
		r.TPS, r.ResponseP50 = tps[i], p50[i]
		x = append(x, r.Elapsed)
	})
	if !oldDriftRule(x, tps) || !oldDriftRule(x, p50) {
		t.Fatalf("the seeded series no longer shows the old rule's false drift (tps %v, p50 %v)", oldDriftRule(x, tps), oldDriftRule(x, p50))
	}
	c, ok := find(RunChecks(f.run, f.rows, f.events), ItemWarmup)
	if !ok {
		t.Fatal("no warmup item")
	}
	if c.Status != Pass {
		t.Errorf("status %s on a stationary AR(1) window, want pass: %s", c.Status, c.Message)
	}
	for _, w := range []string{"tps drift +5.0 % (s.e. 3.2 %, p = 0.14; t test on n_eff 13.6 of 120 intervals, lag-1 autocorrelation 0.80)", "response p50 drift +10 % (s.e. 7.2 %"} {
		if !strings.Contains(c.Message, w) {
			t.Errorf("message %q lacks %q", c.Message, w)
		}
	}
}

// The drift item names its test and judges the drift against its own
// standard error: a real ramp on AR(1) noise warns with n_eff in the text,
// and intervals too autocorrelated for a test pass as "not tested".
func TestDriftText(t *testing.T) {
	x := make([]float64, 120)
	ramp := make([]float64, 120)
	wave := make([]float64, 120)
	rng := rand.New(rand.NewPCG(15, 8))
	noise := ar1(rng, 120, 0.5, 0, 10)
	for i := range x {
		x[i] = float64(i)
		ramp[i] = 1000 + 2*float64(i) + noise[i] // +24 % across 119 s
		wave[i] = 1000 + 100*math.Cos(4*math.Pi*float64(i)/119)
	}
	text, dr, bad, ok := series{name: "tps", x: x, y: ramp}.drift()
	if !ok || !bad || dr < 0.2 || !strings.Contains(text, "tps drifts +21 % (s.e.") || !strings.Contains(text, "t test on n_eff") {
		t.Errorf("ramp: %q (drift %v, bad %v, ok %v)", text, dr, bad, ok)
	}
	text, _, bad, ok = series{name: "tps", x: x, y: wave}.drift()
	if !ok || bad || !strings.Contains(text, "not tested: its 120 intervals are too autocorrelated (n_eff") {
		t.Errorf("slow wave: %q (bad %v, ok %v)", text, bad, ok)
	}
	if _, _, _, ok := (series{name: "tps", x: x[:2], y: ramp[:2]}).drift(); ok {
		t.Error("2 points: want no fit")
	}
}
