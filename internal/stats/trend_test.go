package stats

import (
	"math"
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
