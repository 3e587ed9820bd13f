package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestTrend(t *testing.T) {
	// y_i = 10 + i + e_i with e = (1, −1, 0, −1, 1), sampled every dt = 0.5:
	// y = 10 + 2x + e. The residuals are orthogonal to 1 and x, so b = 2,
	// a = 10; SS_res = Σe² = 4, SS_tot = Σ(i−2)² + Σe² = 14, R² = 10/14;
	// Σ(x−x̄)² = 0.25·10 = 2.5, SE = √(4/3/2.5) = 0.730297, t = 2.738613,
	// p (3 df) = 2(1 − F₃(t)) with F₃(t) = ½ + [u/(1+u²) + atan u]/π, u = t/√3:
	// 0.0714215; Drift = b·T/ȳ = 2·2/12; angle = atan(1/3) = 18.4349°.
	ys := []float64{11, 10, 12, 12, 15}
	r := Trend(ys, 0.5)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"slope", r.Slope, 2},
		{"intercept", r.Intercept, 10},
		{"R²", r.R2, 10.0 / 14},
		{"standardised slope", r.StdSlope, math.Sqrt(10.0 / 14)},
		{"SE", r.SESlope, 0.7302967433402214},
		{"p", r.P, 0.07142153823145003},
		{"drift", r.Drift, 1.0 / 3},
		{"angle", r.AngleDeg, 18.43494882292201},
	}
	if !r.OK || r.N != 5 {
		t.Fatalf("Trend = %+v, want OK with 5 points", r)
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %.12g, want %.12g", c.name, c.got, c.want)
		}
	}
}

func TestTrendEdges(t *testing.T) {
	tests := []struct {
		name                string
		ys                  []float64
		dt                  float64
		ok                  bool
		slope, r2, p, drift float64
	}{
		{"constant", []float64{5, 5, 5, 5}, 1, true, 0, 0, 1, 0},
		{"exact line", []float64{1, 2, 3, 4}, 1, true, 1, 1, 0, 3.0 / 2.5},
		{"falling line, dt invalid means 1", []float64{4, 3, 2, 1}, -2, true, -1, 1, 0, -3.0 / 2.5},
		{"two points: no p", []float64{1, 3}, 1, true, 2, 1, 1, 2.0 / 2},
		{"one point", []float64{1}, 1, false, 0, 0, 1, 0},
		{"empty", nil, 1, false, 0, 0, 1, 0},
		{"NaN points dropped", []float64{1, math.NaN(), 3, 4}, 1, true, 1, 1, 0, 3.0 / (8.0 / 3)},
		{"negative mean: rising is positive", []float64{-4, -3, -2, -1}, 1, true, 1, 1, 0, 3.0 / 2.5},
		{"overflow", []float64{-math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}, 1, false, 0, 0, 1, 0},
	}
	for _, tc := range tests {
		r := Trend(tc.ys, tc.dt)
		if r.OK != tc.ok || !near(r.Slope, tc.slope, 1e-12) || !near(r.R2, tc.r2, 1e-12) || !near(r.P, tc.p, 1e-12) || !near(r.Drift, tc.drift, 1e-12) {
			t.Errorf("%s: got %+v, want ok=%v slope=%v R²=%v p=%v drift=%v", tc.name, r, tc.ok, tc.slope, tc.r2, tc.p, tc.drift)
		}
	}
}

// TestLinearFitAnscombe uses Anscombe's (1973) first data set: y = 3.00 +
// 0.500x, r = 0.816, R² = 0.667, slope p = 0.00217 (R's summary(lm)).
func TestLinearFitAnscombe(t *testing.T) {
	x := []float64{10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5}
	y := []float64{8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68}
	r := LinearFit(x, y)
	if !near(r.Slope, 0.5001, 5e-5) || !near(r.Intercept, 3.0001, 5e-5) || !near(r.R2, 0.6665, 5e-5) ||
		!near(r.StdSlope, 0.8164, 5e-5) || !near(r.P, 0.00217, 5e-6) || !near(r.SESlope, 0.1179, 5e-5) {
		t.Errorf("LinearFit(Anscombe I) = %+v", r)
	}
	if c := Pearson(x, y); !near(c.R, 0.8164, 5e-5) || !near(c.P, r.P, 1e-12) {
		t.Errorf("Pearson(Anscombe I) = %+v, want r 0.8164 and the slope's p %v", c, r.P)
	}
}

func TestLag1AutocorrelationAndEffectiveN(t *testing.T) {
	// 1 2 3 4: deviations −1.5 −0.5 0.5 1.5, Σd² = 5, Σ d_i·d_{i−1} = 1.25.
	for _, tc := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 0.25},
		{[]float64{1, -1, 1, -1}, -0.75}, // Σd² = 4, products −1 −1 −1
		{[]float64{3, 3, 3}, 0},
		{[]float64{7}, 0},
		{nil, 0},
	} {
		if got := lag1Autocorrelation(tc.v); !near(got, tc.want, 1e-12) {
			t.Errorf("lag1Autocorrelation(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct {
		n    int
		rho  float64
		want float64
	}{
		{120, 0, 120},
		{120, 0.5, 40},
		{120, 0.9, 120 * 0.1 / 1.9},
		{120, -0.4, 120},              // negative: no inflation
		{120, 1.5, 120 * 0.01 / 1.99}, // clamped to 0.99
		{120, math.NaN(), 120},        // unknown: no inflation
		{120, math.Inf(1), 120},       // non-finite: no inflation
		{0, 0.5, 0},
	} {
		if got := EffectiveN(tc.n, tc.rho); !near(got, tc.want, 1e-12) {
			t.Errorf("EffectiveN(%d, %v) = %v, want %v", tc.n, tc.rho, got, tc.want)
		}
	}
}

func TestSeriesFit(t *testing.T) {
	// y = 10 + 0.5x + e at x = 0…7 with e = (1 1 −1 −1 −1 −1 1 1): e is
	// symmetric with Σe = 0, so it is orthogonal to 1 and x − x̄ and the fit
	// is exact: b = 0.5, a = 10, SS_res = 8. Σ e_i·e_{i−1} = 3, r₁ = 3/8;
	// n_eff = 8·(5/8)/(11/8) = 40/11, df = 18/11; Σ(x−x̄)² = 42,
	// SE = √(8/(18/11)/42) = √(88/756), Drift SE = SE·7/|ȳ| with ȳ = 11.75.
	x := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	e := []float64{1, 1, -1, -1, -1, -1, 1, 1}
	y := make([]float64, len(x))
	for i := range x {
		y[i] = 10 + 0.5*x[i] + e[i]
	}
	f := SeriesFit(x, y)
	se := math.Sqrt(88.0 / 756)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"slope", f.Slope, 0.5},
		{"intercept", f.Intercept, 10},
		{"rho1", f.Rho1, 3.0 / 8},
		{"n_eff", f.NEff, 40.0 / 11},
		{"SE", f.SESlope, se},
		{"p", f.P, twoSidedT(0.5/se, 18.0/11)},
		{"drift", f.Drift, 0.5 * 7 / 11.75},
		{"drift SE", f.DriftSE, se * 7 / 11.75},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	// The same points as independent ones: OLS, SE = √(8/6/42), n_eff = n.
	ols := LinearFit(x, y)
	if ols.NEff != 8 || ols.Rho1 != 0 || !near(ols.SESlope, math.Sqrt(8.0/6/42), 1e-12) || !(ols.P < f.P) {
		t.Errorf("LinearFit = %+v, want OLS with n_eff 8 and a smaller p than %v", ols, f.P)
	}
	// Points reordered change the series but not OLS.
	if g := SeriesFit([]float64{0, 2, 4, 6, 1, 3, 5, 7}, []float64{y[0], y[2], y[4], y[6], y[1], y[3], y[5], y[7]}); !near(g.Slope, 0.5, 1e-12) || near(g.Rho1, f.Rho1, 1e-3) {
		t.Errorf("reordered SeriesFit = %+v, want slope 0.5 and another ρ₁", g)
	}

	// An exact line: rounding in the residuals is not autocorrelation.
	line := make([]float64, 120)
	for i := range line {
		line[i] = 5 + 0.05*float64(i)
	}
	if l := Trend(line, 1); l.NEff != 120 || l.Rho1 != 0 || l.P != 0 {
		t.Errorf("Trend(exact line) = %+v, want n_eff 120 and p 0", l)
	}
	// One slow wave: its residuals from a line are one smooth curve, n_eff
	// ≤ 2, so no p-value rather than a significant "trend".
	wave := make([]float64, 100)
	for i := range wave {
		wave[i] = 100 + 10*math.Cos(4*math.Pi*float64(i)/99)
	}
	p := Trend(wave, 1)
	if !p.OK || p.NEff > 2 || p.P != 1 || p.SESlope != 0 || p.DriftSE != 0 || p.Reason == "" {
		t.Errorf("Trend(slow wave) = %+v, want n_eff ≤ 2, p 1 and a reason", p)
	}
	t.Logf("slow wave: %s", p.Reason)
	if o := LinearFit(nil, nil); o.NEff != 0 || o.P != 1 {
		t.Errorf("LinearFit(empty) = %+v", o)
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

// TestSeriesFitAR1 measures the slope test's false-positive rate on
// stationary AR(1) series of 120 points (per-second intervals of a
// two-minute window) at α = 0.01, old (OLS, n − 2 df) against new
// (SeriesFit, n_eff − 2 df), and its power against a real drift.
func TestSeriesFitAR1(t *testing.T) {
	const n, trials, alpha = 120, 1000, 0.01
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i)
	}
	for _, tc := range []struct {
		phi            float64
		maxNew, minOld float64
	}{
		{0, 0.02, 0},
		{0.5, 0.05, 0.08},
		{0.9, 0.05, 0.30},
	} {
		rng := rand.New(rand.NewPCG(15, uint64(100*tc.phi)))
		var old, new int
		for range trials {
			y := ar1(rng, n, tc.phi, 1000, 50)
			if LinearFit(x, y).P < alpha {
				old++
			}
			if SeriesFit(x, y).P < alpha {
				new++
			}
		}
		ro, rn := float64(old)/trials, float64(new)/trials
		t.Logf("stationary AR(1) φ = %.1f, n = %d: p < %.2f in %.1f %% of %d series by OLS, %.1f %% with n_eff", tc.phi, n, alpha, 100*ro, trials, 100*rn)
		if rn > tc.maxNew {
			t.Errorf("φ = %.1f: SeriesFit false-positive rate %.3f, want ≤ %.2f", tc.phi, rn, tc.maxNew)
		}
		if ro < tc.minOld {
			t.Errorf("φ = %.1f: OLS false-positive rate %.3f, expected ≥ %.2f (the inflation this test documents)", tc.phi, ro, tc.minOld)
		}
	}
	// Power: a 10 % rise across the window on AR(1) noise of 5 % of the mean.
	for _, tc := range []struct {
		phi, minPower float64
	}{
		{0.5, 0.70},
		{0.9, 0},
	} {
		rng := rand.New(rand.NewPCG(16, uint64(100*tc.phi)))
		var hit int
		for range trials {
			y := ar1(rng, n, tc.phi, 1000, 50)
			for i := range y {
				y[i] += 100 * (x[i]/(n-1) - 0.5)
			}
			if f := SeriesFit(x, y); f.P < alpha && f.Slope > 0 {
				hit++
			}
		}
		pw := float64(hit) / trials
		t.Logf("power: +10 %% drift, AR(1) φ = %.1f noise sd 5 %%, n = %d: detected (p < %.2f) in %.1f %% of %d series", tc.phi, n, alpha, 100*pw, trials)
		if pw < tc.minPower {
			t.Errorf("φ = %.1f: power %.3f, want ≥ %.2f", tc.phi, pw, tc.minPower)
		}
	}
}
