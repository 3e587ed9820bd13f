package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TrendResult is a least-squares line y = Intercept + Slope·x.
type TrendResult struct {
	OK        bool    `json:"ok"` // false: fewer than 2 points or x constant
	N         int     `json:"n"`  // points used
	Slope     float64 `json:"slope"`
	Intercept float64 `json:"intercept"`
	// StdSlope is the standardised slope Slope·sd(x)/sd(y), equal to Pearson's
	// r of (x, y): unit-free, in [−1, 1] (0 when y is constant).
	StdSlope float64 `json:"std_slope"`
	R2       float64 `json:"r2"`       // 1 − SS_res/SS_tot (0 when y is constant)
	SESlope  float64 `json:"se_slope"` // √(SS_res/(n−2) / Σ(x−x̄)²)
	// P is the two-sided p-value of Slope = 0, t = Slope/SESlope with n−2
	// degrees of freedom (1 when n < 3). Interval data are autocorrelated,
	// which makes SESlope too small and P too small: judge a drift by Drift
	// and R² (reference §4.8), not by P alone.
	P float64 `json:"p"`
	// Drift is s = Slope·T/|ȳ|, T = x_max − x_min: the fitted change of y
	// across the window as a fraction of its mean (0.05 = 5 % rise, −0.05 a
	// 5 % fall), scale- and length-free. 0 when ȳ = 0.
	Drift    float64 `json:"drift"`
	AngleDeg float64 `json:"angle_deg"` // atan(Drift)·180/π: 1.15° for 2 %, 2.86° for 5 %
	Reason   string  `json:"reason,omitempty"`
}

// Trend fits a straight line to the series ys sampled every dt units (x_i =
// i·dt, e.g. dt = 1 for per-second intervals: Slope is then per second).
// dt ≤ 0 or non-finite means 1. Points with a non-finite y are left out (the
// others keep their x). See LinearFit for the formulas.
func Trend(ys []float64, dt float64) TrendResult {
	if !(dt > 0) || math.IsInf(dt, 0) {
		dt = 1
	}
	x := make([]float64, len(ys))
	for i := range x {
		x[i] = float64(i) * dt
	}
	return LinearFit(x, ys)
}

// LinearFit is ordinary least squares of y on x (reference §4.8):
//
//	b = Σ(x−x̄)(y−ȳ) / Σ(x−x̄)²,  a = ȳ − b·x̄
//	SS_res = Σ(y − a − b·x)²,  SS_tot = Σ(y−ȳ)²,  R² = 1 − SS_res/SS_tot
//	SE(b) = √(SS_res/(n−2) / Σ(x−x̄)²),  t = b/SE(b) with n−2 df
//	standardised slope = b·sd(x)/sd(y) (= r);  Drift = b·(x_max − x_min)/|ȳ|
//
// Pairs with a non-finite value are left out; extra values of the longer
// slice are ignored.
func LinearFit(x, y []float64) TrendResult {
	fx, fy := finitePairs(x, y)
	n := len(fx)
	r := TrendResult{N: n, P: 1}
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
	var ssRes float64
	for i := range fx {
		e := fy[i] - r.Intercept - b*fx[i]
		ssRes += e * e
	}
	r.R2 = clamp01(1 - ssRes/syy)
	r.StdSlope = clampUnit(b * math.Sqrt(sxx/syy))
	if my != 0 {
		r.Drift = b * (xmax - xmin) / math.Abs(my)
		r.AngleDeg = math.Atan(r.Drift) * 180 / math.Pi
	}
	if n < 3 {
		r.Reason = "2 points: no p-value"
	} else {
		df := float64(n - 2)
		r.SESlope = math.Sqrt(ssRes / df / sxx)
		switch {
		case r.SESlope > 0:
			r.P = twoSidedT(b/r.SESlope, df)
		case b != 0: // an exact line
			r.P = 0
		}
	}
	for _, v := range []float64{r.Slope, r.Intercept, r.StdSlope, r.R2, r.SESlope, r.P, r.Drift, r.AngleDeg} {
		if !isFinite(v) { // sums overflowed float64 (values near ±MaxFloat64)
			return TrendResult{N: n, P: 1, Reason: "the fit overflows float64"}
		}
	}
	return r
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
