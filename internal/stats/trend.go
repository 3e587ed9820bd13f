package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TrendResult is a least-squares line y = Intercept + Slope·x with the test
// of Slope = 0. NEff says which test: NEff = N is the classical one for
// independent residuals (LinearFit); NEff < N is SeriesFit's correction for
// autocorrelated residuals, a t test on NEff − 2 degrees of freedom.
type TrendResult struct {
	OK        bool    `json:"ok"` // false: fewer than 2 points or x constant
	N         int     `json:"n"`  // points used
	Slope     float64 `json:"slope"`
	Intercept float64 `json:"intercept"`
	// StdSlope is the standardised slope Slope·sd(x)/sd(y), equal to Pearson's
	// r of (x, y): unit-free, in [−1, 1] (0 when y is constant).
	StdSlope float64 `json:"std_slope"`
	R2       float64 `json:"r2"` // 1 − SS_res/SS_tot (0 when y is constant)
	// SESlope is the standard error of Slope, √(SS_res/(n_eff−2) / Σ(x−x̄)²):
	// OLS's √(SS_res/(n−2) / Σ(x−x̄)²) when NEff = N; 0 when n < 3 or
	// n_eff ≤ 2 (no test).
	SESlope float64 `json:"se_slope"`
	// P is the two-sided p-value of Slope = 0, t = Slope/SESlope with
	// NEff − 2 degrees of freedom (1 when n < 3 or NEff ≤ 2).
	P float64 `json:"p"`
	// Rho1 is SeriesFit's lag-1 autocorrelation of the residuals, in the
	// order of the points (0 for LinearFit and when SS_res = 0); it may be
	// negative, which inflates nothing.
	Rho1 float64 `json:"rho1"`
	// NEff is the effective sample size the test used, n·(1−ρ)/(1+ρ) with
	// ρ = Rho1 clamped to [0, 0.99] (N for LinearFit).
	NEff float64 `json:"n_eff"`
	// Drift is s = Slope·T/|ȳ|, T = x_max − x_min: the fitted change of y
	// across the window as a fraction of its mean (0.05 = 5 % rise, −0.05 a
	// 5 % fall), scale- and length-free. 0 when ȳ = 0.
	Drift float64 `json:"drift"`
	// DriftSE is the standard error of Drift, SESlope·T/|ȳ| (same units).
	DriftSE  float64 `json:"drift_se"`
	AngleDeg float64 `json:"angle_deg"` // atan(Drift)·180/π: 1.15° for 2 %, 2.86° for 5 %
	Reason   string  `json:"reason,omitempty"`
}

// Trend fits a straight line to the series ys sampled every dt units (x_i =
// i·dt, e.g. dt = 1 for per-second intervals: Slope is then per second) by
// SeriesFit, whose test allows for autocorrelation. dt ≤ 0 or non-finite
// means 1. Points with a non-finite y are left out (the others keep their x).
func Trend(ys []float64, dt float64) TrendResult {
	if !(dt > 0) || math.IsInf(dt, 0) {
		dt = 1
	}
	x := make([]float64, len(ys))
	for i := range x {
		x[i] = float64(i) * dt
	}
	return SeriesFit(x, ys)
}

// SeriesFit is LinearFit for a time series — the points in time order, x
// their times — whose test of Slope = 0 allows for autocorrelated residuals
// by an effective sample size (Santer et al. 2000, "Statistical
// significance of trends and trend differences in layer-average atmospheric
// temperature time series", J. Geophys. Res. 105(D6):7337–7356;
// the AR(1) form of Bartlett 1935):
//
//	e_i = y_i − a − b·x_i                  the residuals, in the order given
//	r₁ = Σ_{i=2..n} e_i·e_{i−1} / Σ e_i²   (Rho1; Σe = 0 with an intercept;
//	                                        0 on an exact line)
//	ρ = min(0.99, max(0, r₁))              a negative r₁ inflates nothing
//	n_eff = n·(1−ρ)/(1+ρ)                  (NEff)
//	SE(b) = √(SS_res/(n_eff−2) / Σ(x−x̄)²),  t = b/SE(b) on n_eff−2 df
//
// Without autocorrelation (ρ = 0) this is LinearFit's OLS test; n_eff ≤ 2
// gives no test (P = 1). A dropped pair (non-finite value) is skipped, so
// the lag crosses it.
//
// Why: per-second intervals of a run are autocorrelated (queues, the cache,
// checkpoints; φ ≈ 0.9 is common) and OLS's SE assumes independent
// residuals. On stationary AR(1) series of 120 points with φ = 0.9 the OLS
// test at α = 0.01 rejects in 57 % of series, this one in about 4 %
// (TestSeriesFitAR1 prints the rates). It stays liberal at strong
// autocorrelation because r₁ of n residuals is biased low (mean 0.84 for φ =
// 0.9, n = 120), so a rule should pair P with a magnitude (reference §4.8).
// Newey–West (HAC, Bartlett kernel) errors were simulated and rejected while
// designing this (2,000 such series): with the usual bandwidth
// floor(4·(n/100)^(2/9)) = 4 they rejected in 31 %, with Andrews' (1991)
// AR(1) bandwidth in 21 %: a few Bartlett lags cannot reach the long-run
// variance of φ = 0.9.
func SeriesFit(x, y []float64) TrendResult {
	fx, fy := finitePairs(x, y)
	return linearFit(fx, fy, true)
}

// LinearFit is ordinary least squares of y on x (reference §4.8):
//
//	b = Σ(x−x̄)(y−ȳ) / Σ(x−x̄)²,  a = ȳ − b·x̄
//	SS_res = Σ(y − a − b·x)²,  SS_tot = Σ(y−ȳ)²,  R² = 1 − SS_res/SS_tot
//	SE(b) = √(SS_res/(n−2) / Σ(x−x̄)²),  t = b/SE(b) with n−2 df
//	standardised slope = b·sd(x)/sd(y) (= r);  Drift = b·(x_max − x_min)/|ȳ|
//
// The test assumes independent residuals (NEff = N): use it for points that
// are not a series in time, SeriesFit for those that are. Pairs with a
// non-finite value are left out; extra values of the longer slice are
// ignored.
func LinearFit(x, y []float64) TrendResult {
	fx, fy := finitePairs(x, y)
	return linearFit(fx, fy, false)
}

// linearFit fits finite, equal-length fx, fy; series selects SeriesFit's
// autocorrelation-corrected test.
func linearFit(fx, fy []float64, series bool) TrendResult {
	n := len(fx)
	r := TrendResult{N: n, P: 1, NEff: float64(n)}
	if n < 2 {
		r.Reason = "fewer than 2 points"
		return r
	}
	if isConstant(fx) {
		r.Reason = "x is constant"
		return r
	}
	mx, my := mean(fx), mean(fy)
	sxx, syy, sxy := centeredSums(fx, fy)
	r.OK = true
	xmin, xmax := minMax(fx)
	if isConstant(fy) {
		r.Intercept = fy[0]
		return r
	}
	b := sxy / sxx
	r.Slope = b
	r.Intercept = my - b*mx
	res := make([]float64, n)
	var ssRes float64
	for i := range fx {
		res[i] = fy[i] - r.Intercept - b*fx[i]
		ssRes += res[i] * res[i]
	}
	r.R2 = clamp01(1 - ssRes/syy)
	r.StdSlope = clampUnit(b * math.Sqrt(sxx/syy))
	if series && ssRes > 1e-20*syy { // else an exact line: its residuals are rounding, not a series
		r.Rho1 = lag1Autocorrelation(res)
		r.NEff = EffectiveN(n, r.Rho1)
	}
	span := xmax - xmin
	if my != 0 {
		r.Drift = b * span / math.Abs(my)
		r.AngleDeg = math.Atan(r.Drift) * 180 / math.Pi
	}
	switch {
	case n < 3:
		r.Reason = "2 points: no p-value"
	case r.NEff <= 2:
		r.Reason = fmt.Sprintf("an effective sample of %.1f points (lag-1 autocorrelation %.2f of %d residuals): no p-value", r.NEff, r.Rho1, n)
	default:
		df := r.NEff - 2
		r.SESlope = math.Sqrt(ssRes / df / sxx)
		switch {
		case r.SESlope > 0:
			r.P = twoSidedT(b/r.SESlope, df)
		case b != 0: // an exact line
			r.P = 0
		}
		if my != 0 {
			r.DriftSE = r.SESlope * span / math.Abs(my)
		}
	}
	for _, v := range []float64{r.Slope, r.Intercept, r.StdSlope, r.R2, r.SESlope, r.P, r.Rho1, r.NEff, r.Drift, r.DriftSE, r.AngleDeg} {
		if !isFinite(v) { // sums overflowed float64 (values near ±MaxFloat64)
			return TrendResult{N: n, P: 1, NEff: float64(n), Reason: "the fit overflows float64"}
		}
	}
	return r
}

// EffectiveN is the effective sample size of n points of an AR(1) series
// whose lag-1 autocorrelation is rho1 (Bartlett 1935; Santer et al. 2000):
// n·(1−ρ)/(1+ρ) with ρ = rho1 clamped to [0, 0.99], so a negative or
// non-finite rho1 gives n (no inflation) and the strongest autocorrelation
// counts n points as n/199.
func EffectiveN(n int, rho1 float64) float64 {
	rho := 0.0
	if isFinite(rho1) {
		rho = min(0.99, max(0, rho1))
	}
	return float64(n) * (1 - rho) / (1 + rho)
}

// lag1Autocorrelation is the lag-1 sample autocorrelation of v about its
// mean, r₁ = Σ_{i≥1} (v_i−v̄)(v_{i−1}−v̄) / Σ (v_i−v̄)² (the standard
// estimator, Box & Jenkins); 0 with fewer than 2 values or no spread.
func lag1Autocorrelation(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	m := mean(v)
	var num, den float64
	for i := range v {
		d := v[i] - m
		den += d * d
		if i > 0 {
			num += d * (v[i-1] - m)
		}
	}
	if !(den > 0) || !isFinite(num/den) {
		return 0
	}
	return clampUnit(num / den)
}

// twoSidedT is P(|T| ≥ |t|) for Student's t with df degrees of freedom,
// computed as 2·F(−|t|) for accuracy in the tail.
func twoSidedT(t, df float64) float64 {
	if math.IsNaN(t) {
		return 1
	}
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return min(1, 2*st.CDF(-math.Abs(t)))
}

func isConstant(v []float64) bool {
	for _, x := range v[1:] {
		if x != v[0] {
			return false
		}
	}
	return true
}

func minMax(v []float64) (lo, hi float64) {
	lo, hi = v[0], v[0]
	for _, x := range v[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func clamp01(x float64) float64 { return min(1, max(0, x)) }

func clampUnit(x float64) float64 { return min(1, max(-1, x)) }
