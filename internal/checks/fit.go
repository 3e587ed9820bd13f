package checks

import (
	"math"

	"github.com/pgtrial/pgtrial/internal/stats"
)

// The checklist's statistics come from internal/stats (formulas:
// observability-and-statistics.md §4.7 MSER-5, §4.8 least squares, R²,
// scale-free slope). What is left here adapts them to the rules of the
// items, plus the one figure internal/stats does not give (mser5).

// fitLine is stats.LinearFit of y on x with the checklist's rule that a
// trend needs a p-value: ok is false with fewer than 3 usable points (pairs
// with a non-finite value are left out), no spread in x, or a fit that
// overflows float64. The result's Drift is s = b·T/|ȳ|, P the two-sided
// p-value of b = 0 (t on n−2 degrees of freedom; too optimistic on
// autocorrelated intervals, §4.8, so every rule pairs it with a magnitude).
func fitLine(x, y []float64) (stats.TrendResult, bool) {
	f := stats.LinearFit(x, y)
	return f, f.OK && f.N >= 3
}

// pRising is the one-sided p-value of H₀: b ≤ 0 against b > 0: P/2 when
// the fitted slope is positive, 1 − P/2 otherwise.
func pRising(f stats.TrendResult) float64 {
	if f.Slope > 0 {
		return f.P / 2
	}
	return 1 - f.P/2
}

// mserBatch is MSER-5's batch size.
const mserBatch = 5

// mser5 is the MSER-5 truncation point of y (§4.7, after kim-convergence's
// mser_m), the same statistic as stats.SteadyState: y is cut into
// k = ⌊n/5⌋ batch means Z_1 … Z_k (a remainder at the end is left out), and
//
//	MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (k − d)²,  Z̄_d = mean of Z_{d+1..k},
//
// is minimised over d < k − min(5, ⌊k/4⌋) (the last batches are left out:
// the statistic is unstable where few remain; at least one is). The
// warm-up MSER finds is 5·d raw points; d > k/2 means no steady state.
// ok is false with fewer than 4 batches.
//
// It stays here because the warm-up item needs d, the minimiser over all
// candidates, also when it lies past the middle (the item then compares the
// head it would cut with the rest), and stats.SteadyState reports only the
// minimiser over the first half (Truncate) and whether the overall one lies
// there (Steady). For a steady series the two agree: d = Truncate/5.
func mser5(y []float64) (d, k int, ok bool) {
	k = len(y) / mserBatch
	if k < 4 {
		return 0, k, false
	}
	z := make([]float64, k)
	for j := range k {
		var s float64
		for _, v := range y[j*mserBatch : (j+1)*mserBatch] {
			s += v
		}
		z[j] = s / mserBatch
	}
	skip := max(min(5, k/4), 1)
	best := math.Inf(1)
	for cand := 0; cand < k-skip; cand++ {
		rest := z[cand:]
		var m float64
		for _, v := range rest {
			m += v
		}
		m /= float64(len(rest))
		var ss float64
		for _, v := range rest {
			ss += (v - m) * (v - m)
		}
		r := float64(len(rest))
		if v := ss / (r * r); v < best {
			best, d = v, cand
		}
	}
	return d, k, true
}
