package stats

import "math"

// The rule for "an open-model run achieved its rate", shared by the
// checklist's rate_achieved item (internal/checks) and the capacity
// search's judgement of a run (internal/capacity): one rule, so that a run
// the search counts as holding its rate is not one the checklist fails.
const (
	// RateShortfall is the share of the expected count E by which the
	// started transactions may fall short whatever the arrivals (clock
	// granularity, the window's edges).
	RateShortfall = 0.01
	// RatePoissonSigmas: with Poisson arrivals the count in a window of
	// mean E has standard deviation √E, so a run may start 3√E fewer by
	// chance (one run in about 740 falls further short).
	RatePoissonSigmas = 3
)

// RateTolerance is the number of transactions by which a run expecting E
// arrivals (E = target rate tx/s × window s) may start fewer and still
// have achieved its rate: max(1 % of E, 3√E) with Poisson arrivals, 1 % of
// E with uniform (deterministic) ones. 0 for E ≤ 0 or NaN.
func RateTolerance(expected float64, poisson bool) float64 {
	if !(expected > 0) {
		return 0
	}
	tol := RateShortfall * expected
	if poisson {
		tol = math.Max(tol, RatePoissonSigmas*math.Sqrt(expected))
	}
	return tol
}

// RateAchieved reports whether a run that expected E arrivals and started
// N of them kept its schedule: E − N ≤ RateTolerance(E, poisson). Starting
// more than expected always achieves; a NaN count or a non-positive E does
// not.
func RateAchieved(expected, started float64, poisson bool) bool {
	if !(expected > 0) {
		return false
	}
	return expected-started <= RateTolerance(expected, poisson) // NaN compares false
}
