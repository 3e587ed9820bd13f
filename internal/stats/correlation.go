package stats

import (
	"fmt"
	"math"
)

// CorrResult is a correlation coefficient with its p-value.
type CorrResult struct {
	OK bool    `json:"ok"` // false: fewer than 3 pairs or a constant series (R 0, P 1)
	N  int     `json:"n"`  // pairs used
	R  float64 `json:"r"`  // in [−1, 1]
	// P is the two-sided p-value of "no correlation" by the t approximation
	// t = r·√(df/(1−r²)) with df = n_eff − 2 degrees of freedom (0 when
	// |r| = 1, 1 when n_eff ≤ 2), n_eff the pair's effective sample size
	// (NEff). Correlation is not cause.
	P float64 `json:"p"`
	// NEff is the effective number of independent pairs of the two series
	// in the order given, by the lag-1 form of Bartlett (1935) and Bayley &
	// Hammersley (1946), n_eff = n/(1 + 2·Σ_k ρx(k)·ρy(k)) for AR(1) series:
	//
	//	n_eff = n·(1 − p)/(1 + p),  p = rx·ry clamped to [0, 0.99]
	//
	// with rx, ry the lag-1 autocorrelations of the series correlated (of
	// their ranks for Spearman). Two series that each drift slowly share
	// long excursions by chance, and the classical n − 2 df take each
	// interval as independent: on two independent AR(1) series of 120
	// points with φ = 0.9 the classical p < 0.05 in about half of the pairs,
	// this one in 3–5 % (TestCorrelationAR1 prints the rates). NEff = N when
	// either series is not positively autocorrelated. Moving windows and
	// rolling medians are not AR(1) and this n_eff only guesses theirs
	// (too small for 10-point moving means: 1.5 % false positives at 5 %):
	// correlate non-overlapping intervals (NonOverlappingMeans).
	NEff   float64 `json:"n_eff"`
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
// (ties take their average rank), with the same t-approximation p-value on
// the ranks' effective sample size (rough below about 10 pairs). It measures monotone, not only linear,
// association and resists outliers.
func Spearman(x, y []float64) CorrResult {
	fx, fy := finitePairs(x, y)
	rx, _ := rank(fx)
	ry, _ := rank(fy)
	return pearson(rx, ry)
}

func pearson(x, y []float64) CorrResult {
	n := len(x)
	r := CorrResult{N: n, P: 1, NEff: float64(n)}
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
	r.NEff = PairEffectiveN(n, lag1Autocorrelation(x), lag1Autocorrelation(y))
	if r.NEff <= 2 {
		r.Reason = fmt.Sprintf("an effective sample of %.1f pairs: the series are too autocorrelated for a p-value", r.NEff)
		return r
	}
	df := r.NEff - 2
	r.P = twoSidedT(r.R*math.Sqrt(df/(1-r.R*r.R)), df)
	return r
}

// PairEffectiveN is the effective number of independent pairs of two AR(1)
// series of n points with lag-1 autocorrelations rx and ry (see NEff at
// CorrResult): n·(1−p)/(1+p), p = rx·ry with rx and ry clamped to
// [0, 0.99] (non-finite counts as 0), so a series that is not positively
// autocorrelated inflates nothing — as in EffectiveN, a negative estimate
// from a short series is mostly noise.
func PairEffectiveN(n int, rx, ry float64) float64 {
	c := func(r float64) float64 {
		if !isFinite(r) {
			return 0
		}
		return min(0.99, max(0, r))
	}
	p := c(rx) * c(ry)
	return float64(n) * (1 - p) / (1 + p)
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
