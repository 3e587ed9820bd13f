package stats

import "math"

// CorrResult is a correlation coefficient with its p-value.
type CorrResult struct {
	OK bool    `json:"ok"` // false: fewer than 3 pairs or a constant series (R 0, P 1)
	N  int     `json:"n"`  // pairs used
	R  float64 `json:"r"`  // in [−1, 1]
	// P is the two-sided p-value of "no correlation" by the t approximation
	// t = r·√((n−2)/(1−r²)) with n−2 degrees of freedom (0 when |r| = 1).
	// It assumes independent pairs: compute it on non-overlapping intervals
	// (NonOverlappingMeans), never on moving windows or rolling medians
	// whose neighbours share data (pg_expecto's 61-point rolling medians
	// make its n ~60 times too large). Correlation is not cause.
	P      float64 `json:"p"`
	Reason string  `json:"reason,omitempty"`
}

// Pearson is the product-moment correlation of x and y,
//
//	r = Σ(x−x̄)(y−ȳ) / √(Σ(x−x̄)²·Σ(y−ȳ)²),
//
// with the p-value described at CorrResult. Pairs with a non-finite value are
// left out; extra values of the longer slice are ignored.
func Pearson(x, y []float64) CorrResult {
	fx, fy := finitePairs(x, y)
	return pearson(fx, fy)
}

// Spearman is the rank correlation: Pearson's r of the ranks of x and of y
// (ties take their average rank), with the same t-approximation p-value
// (rough below about 10 pairs). It measures monotone, not only linear,
// association and resists outliers.
func Spearman(x, y []float64) CorrResult {
	fx, fy := finitePairs(x, y)
	rx, _ := rank(fx)
	ry, _ := rank(fy)
	return pearson(rx, ry)
}

func pearson(x, y []float64) CorrResult {
	n := len(x)
	r := CorrResult{N: n, P: 1}
	if n < 3 {
		r.Reason = "fewer than 3 pairs"
		return r
	}
	if isConstant(x) || isConstant(y) {
		r.Reason = "a constant series has no correlation"
		return r
	}
	sxx, syy, sxy := centeredSums(x, y)
	rho := sxy / (math.Sqrt(sxx) * math.Sqrt(syy))
	if !isFinite(rho) { // sums overflowed float64
		r.Reason = "the sums overflow float64"
		return r
	}
	r.OK = true
	r.R = clampUnit(rho)
	if math.Abs(r.R) == 1 {
		r.P = 0
		return r
	}
	df := float64(n - 2)
	r.P = twoSidedT(r.R*math.Sqrt(df/(1-r.R*r.R)), df)
	return r
}

// NonOverlappingMeans averages consecutive non-overlapping blocks of block
// values: out[i] = mean(xs[i·block : (i+1)·block]) over the block's finite
// values (NaN when it has none, so a missing interval stays missing). A
// trailing partial block is left out. block < 1 gives nil. Use it to turn
// 1-s intervals into, say, 60-s ones before correlating: each output is
// built from its own data, unlike a moving window whose neighbours share
// most of theirs.
func NonOverlappingMeans(xs []float64, block int) []float64 {
	if block < 1 {
		return nil
	}
	out := make([]float64, 0, len(xs)/block)
	for i := 0; i+block <= len(xs); i += block {
		v := finite(xs[i : i+block])
		if len(v) == 0 {
			out = append(out, math.NaN())
			continue
		}
		out = append(out, mean(v))
	}
	return out
}

// centeredSums are Σ(x−x̄)², Σ(y−ȳ)² and Σ(x−x̄)(y−ȳ) over equal-length x, y.
func centeredSums(x, y []float64) (sxx, syy, sxy float64) {
	mx, my := mean(x), mean(y)
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		syy += dy * dy
		sxy += dx * dy
	}
	return sxx, syy, sxy
}
