package checks

import "github.com/pgtrial/pgtrial/internal/stats"

// The checklist's statistics come from internal/stats (formulas:
// observability-and-statistics.md §4.7 MSER-5, §4.8 least squares, R²,
// scale-free slope). What is left here adapts them to the rules of the
// items.

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
