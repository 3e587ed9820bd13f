package checks

import (
	"fmt"

	"github.com/pgtrial/pgtrial/internal/stats"
)

// The checklist's statistics come from internal/stats (formulas:
// observability-and-statistics.md §4.7 MSER-5, §4.8 least squares, R²,
// scale-free slope; stats.SeriesFit for the autocorrelation of intervals).
// What is left here adapts them to the rules of the items.

// fitLine is stats.SeriesFit of the series y at times x (the intervals in
// time order) with the checklist's rule that a trend needs a p-value: ok is
// false with fewer than 3 usable points (pairs with a non-finite value are
// left out), no spread in x, or a fit that overflows float64. The result's
// Drift is s = b·T/|ȳ| with its standard error DriftSE, P the two-sided
// p-value of b = 0 by t on n_eff − 2 degrees of freedom, n_eff = n·(1−ρ)/(1+ρ)
// from the residuals' lag-1 autocorrelation ρ (NEff, Rho1): per-second
// intervals are autocorrelated, and OLS's n − 2 would find a "trend" in
// about half of stationary series with ρ = 0.9. P may be 1 for want of a
// test (NEff ≤ 2, f.Reason says so); it stays somewhat small under strong
// autocorrelation, so every rule pairs it with a magnitude.
func fitLine(x, y []float64) (stats.TrendResult, bool) {
	f := stats.SeriesFit(x, y)
	return f, f.OK && f.N >= 3
}

// fitTest names the test behind f.P for a message: "t test on n_eff 14 of
// 120 intervals, lag-1 autocorrelation 0.79" (of the residuals), or "t test
// on 120 intervals" when they are not positively autocorrelated.
func fitTest(f stats.TrendResult) string {
	if f.NEff >= float64(f.N) {
		return fmt.Sprintf("t test on %d intervals", f.N)
	}
	return fmt.Sprintf("t test on n_eff %.3g of %d intervals, lag-1 autocorrelation %.2f", f.NEff, f.N, f.Rho1)
}

// pRising is the one-sided p-value of H₀: b ≤ 0 against b > 0: P/2 when
// the fitted slope is positive, 1 − P/2 otherwise.
func pRising(f stats.TrendResult) float64 {
	if f.Slope > 0 {
		return f.P / 2
	}
	return 1 - f.P/2
}
