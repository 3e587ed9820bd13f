package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

const (
	// MinResamples is the fewest bootstrap resamples RatioCI and DiffCI
	// perform; a smaller request is raised to it (issue 6: ≥ 2000).
	MinResamples = 2000
	// DefaultResamples is what Verdict uses (reference §4.1–§4.2 use
	// B ≥ 10 000; with a handful of runs a side that costs milliseconds).
	DefaultResamples = 10000
	// DefaultConf is the default confidence level of an interval.
	DefaultConf = 0.95
	// MinReliableRuns is the number of runs a side below which an interval
	// from resampling runs is flagged unreliable: with n runs there are only
	// C(2n−1, n) distinct resamples (10 for n = 3), so the percentiles of the
	// bootstrap distribution sit on a few values and the interval is too
	// narrow (reference §4.2–§4.3; benchmath also asks for ≥ 4 a side).
	MinReliableRuns = 4
)

// Interval is a confidence interval for a comparison of B with A.
type Interval struct {
	OK         bool    `json:"ok"`               // false: Point, Lo and Hi are not defined (see Reason)
	Point      float64 `json:"point"`            // the statistic on the observed runs
	Lo         float64 `json:"lo"`               // lower bound, the (1−Conf)/2 quantile of the resampled statistic
	Hi         float64 `json:"hi"`               // upper bound, the (1+Conf)/2 quantile
	Conf       float64 `json:"conf"`             // confidence level used, e.g. 0.95
	Resamples  int     `json:"resamples"`        // bootstrap resamples used
	NA         int     `json:"n_a"`              // runs of A (finite values)
	NB         int     `json:"n_b"`              // runs of B
	Unreliable bool    `json:"unreliable"`       // fewer than MinReliableRuns runs on a side
	Reason     string  `json:"reason,omitempty"` // why not OK, or why unreliable
	// Method says how the interval was made: MethodBootstrap (RatioCI,
	// DiffCI) or MethodHL (ShiftCI, LogRatioCI).
	Method string `json:"method,omitempty"`
}

// MethodBootstrap names the intervals of RatioCI and DiffCI in Interval.Method.
const MethodBootstrap = "percentile bootstrap over runs"

// Excludes reports whether the interval is defined and v lies outside
// [Lo, Hi]: for a ratio, Excludes(1) means "a change beyond the noise"; for a
// difference, Excludes(0).
func (iv Interval) Excludes(v float64) bool {
	return iv.OK && (iv.Lo > v || iv.Hi < v)
}

// RatioCI is the percentile-bootstrap interval of the ratio stat(B)/stat(A),
// e.g. the ratio of median p99s of two variants (reference §4.1–§4.2):
//
//	for k = 1..R: a* = m draws from a with replacement, b* = n draws from b,
//	              θ*_k = stat(b*) / stat(a*)
//	Point = stat(b)/stat(a);  [Lo, Hi] = type-7 quantiles (1−conf)/2 and (1+conf)/2 of θ*
//
// The resampling unit is the run (one value per run), never the transaction:
// transactions within a run are autocorrelated, and resampling them gives
// intervals far too narrow. stat nil means Median; stat receives a scratch
// slice it may reorder. resamples below MinResamples are raised to it; conf
// outside (0, 1) means DefaultConf. The generator is math/rand/v2's PCG
// seeded with seed, so the same input gives the same interval.
//
// 0/0 is taken as 1 (both zero: no change, e.g. a skipped share of 0 in
// both); x/0 for x ≠ 0 is infinite and makes the interval not OK (use DiffCI,
// as Verdict does). The interval is flagged Unreliable with fewer than
// MinReliableRuns runs on a side.
func RatioCI(a, b []float64, stat func([]float64) float64, resamples int, conf float64, seed uint64) Interval {
	return bootstrap(a, b, stat, resamples, conf, seed, ratio)
}

// DiffCI is RatioCI for the difference stat(B) − stat(A): the same resampling
// of runs, θ*_k = stat(b*) − stat(a*), Point = stat(b) − stat(a).
func DiffCI(a, b []float64, stat func([]float64) float64, resamples int, conf float64, seed uint64) Interval {
	return bootstrap(a, b, stat, resamples, conf, seed, func(sb, sa float64) float64 { return sb - sa })
}

// ratio is sb/sa with 0/0 = 1.
func ratio(sb, sa float64) float64 {
	if sa == 0 && sb == 0 {
		return 1
	}
	return sb / sa
}

// bootstrap resamples a and b R times and returns the percentile interval of
// combine(stat(b*), stat(a*)).
func bootstrap(a, b []float64, stat func([]float64) float64, resamples int, conf float64, seed uint64,
	combine func(sb, sa float64) float64) Interval {
	if stat == nil {
		// Median on a scratch slice of finite values: sort in place, no copy.
		stat = func(v []float64) float64 {
			slices.Sort(v)
			return medianSorted(v)
		}
	}
	if resamples < MinResamples {
		resamples = MinResamples
	}
	if math.IsNaN(conf) || conf <= 0 || conf >= 1 {
		conf = DefaultConf
	}
	fa, fb := finite(a), finite(b)
	iv := Interval{Conf: conf, Resamples: resamples, NA: len(fa), NB: len(fb), Method: MethodBootstrap}
	if len(fa) == 0 || len(fb) == 0 {
		iv.Reason = fmt.Sprintf("no runs to compare (%d vs %d)", len(fa), len(fb))
		return iv
	}
	point := combine(stat(slices.Clone(fb)), stat(slices.Clone(fa)))

	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	bufA := make([]float64, len(fa))
	bufB := make([]float64, len(fb))
	theta := make([]float64, resamples)
	for k := range theta {
		for i := range bufA {
			bufA[i] = fa[rng.IntN(len(fa))]
		}
		for i := range bufB {
			bufB[i] = fb[rng.IntN(len(fb))]
		}
		theta[k] = combine(stat(bufB), stat(bufA))
		if !isFinite(theta[k]) {
			iv.Reason = "the statistic is not finite in some resamples (a ratio with a zero denominator?)"
			return iv
		}
	}
	if !isFinite(point) {
		iv.Reason = "the statistic is not finite on the observed runs"
		return iv
	}
	slices.Sort(theta)
	alpha := 1 - conf
	iv.OK = true
	iv.Point = point
	iv.Lo = quantileSorted(theta, alpha/2)
	iv.Hi = quantileSorted(theta, 1-alpha/2)
	if len(fa) < MinReliableRuns || len(fb) < MinReliableRuns {
		iv.Unreliable = true
		iv.Reason = fmt.Sprintf("fewer than %d runs a side (%d vs %d): the interval is unreliable", MinReliableRuns, len(fa), len(fb))
	}
	return iv
}
