package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// HolmStep is one test's place in Holm's step-down procedure over a family
// of k tests (Holm 1979): with the p-values sorted p_(1) ≤ … ≤ p_(k), the
// i-th is compared with α/(k − i + 1), and the hypotheses are rejected in
// order until the first that is not. The family-wise error rate — the chance
// of any false rejection — is at most α whatever the dependence between the
// tests.
type HolmStep struct {
	Tests    int     `json:"tests"`    // k, the size of the family
	Rank     int     `json:"rank"`     // i, 1-based, in ascending order of p
	Level    float64 `json:"level"`    // α/(k − i + 1): the level this test is held to
	Adjusted float64 `json:"adjusted"` // Holm-adjusted p: max over j ≤ i of min(1, (k−j+1)·p_(j))
	Rejected bool    `json:"rejected"` // rejected by the step-down procedure
}

// Holm places each of ps (in their order) in Holm's procedure at level
// alpha. A NaN p counts as 1 (the test was not made).
func Holm(ps []float64, alpha float64) []HolmStep {
	k := len(ps)
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	p := func(i int) float64 {
		if math.IsNaN(ps[i]) {
			return 1
		}
		return ps[i]
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case p(i) < p(j):
			return -1
		case p(i) > p(j):
			return 1
		}
		return 0
	})
	out := make([]HolmStep, k)
	rejecting := true
	adj := 0.0
	for r, i := range idx {
		level := alpha / float64(k-r)
		adj = max(adj, min(1, float64(k-r)*p(i)))
		rejecting = rejecting && p(i) < level
		out[i] = HolmStep{Tests: k, Rank: r + 1, Level: level, Adjusted: adj, Rejected: rejecting}
	}
	return out
}

// DefaultPower is the power at which the smallest detectable effect and the
// runs needed are computed.
const DefaultPower = 0.80

// DetectableShift is the smallest shift (in the unit of the values given: log
// values give a log ratio) that a two-sided Mann-Whitney test at level alpha
// detects with probability power, with m and n runs whose run-to-run
// standard deviation is sd:
//
//	δ_min = (t_{1−α/2, ν} + t_{power, ν}) · sd · √(1/m + 1/n) · √(π/3),  ν = m + n − 2
//
// (the t-test's normal-shift formula; √(π/3) is the Mann-Whitney test's
// asymptotic relative efficiency 3/π against the t-test for normal data).
// +Inf when m or n is below 2, or when the sizes cannot reach p < alpha at
// all (NonOverlap's error rate ≥ alpha).
func DetectableShift(sd float64, m, n int, alpha, power float64) float64 {
	if m < 2 || n < 2 || 2/binomial(m+n, m) >= alpha || !(sd >= 0) {
		return math.Inf(1)
	}
	df := float64(m + n - 2)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return (t.Quantile(1-alpha/2) + t.Quantile(power)) * sd * math.Sqrt(1/float64(m)+1/float64(n)) * math.Sqrt(math.Pi/3)
}

// RunsNeeded is the number of runs a side for a two-sided Mann-Whitney test
// at level alpha to detect a shift delta (> 0) with probability power, when
// the run-to-run standard deviation is sd: the smallest n with
// DetectableShift(sd, n, n) ≤ delta, and at least the smallest n whose
// exact test can reach p < alpha at all. 0 when delta or sd is not
// positive and finite; capped at 1000.
func RunsNeeded(sd, delta, alpha, power float64) int {
	if !(delta > 0) || math.IsInf(delta, 0) || !(sd >= 0) || math.IsInf(sd, 0) {
		return 0
	}
	// Start just below the normal-theory answer
	// n₀ = 2·(π/3)·((z_{1−α/2} + z_power)·sd/δ)², which the t quantiles only raise.
	z := distuv.UnitNormal.Quantile(1-alpha/2) + distuv.UnitNormal.Quantile(power)
	n0 := 2 * math.Pi / 3 * (z * sd / delta) * (z * sd / delta)
	if n0 >= 1000 {
		return 1000
	}
	start := max(2, minRunsFor(alpha), int(math.Ceil(n0)))
	for n := start; n <= 1000; n++ {
		if DetectableShift(sd, n, n, alpha, power) <= delta {
			return n
		}
	}
	return 1000
}

// pooledSD is the pooled run-to-run standard deviation of two samples,
// √((Σ(a−ā)² + Σ(b−b̄)²)/(m + n − 2)); NaN with fewer than 3 values.
func pooledSD(a, b []float64) float64 {
	if len(a)+len(b) < 3 {
		return math.NaN()
	}
	ss := func(v []float64) float64 {
		mu := mean(v)
		var s float64
		for _, x := range v {
			s += (x - mu) * (x - mu)
		}
		return s
	}
	return math.Sqrt((ss(a) + ss(b)) / float64(len(a)+len(b)-2))
}

// minRunsFor is the smallest n such that n vs n runs can reach a two-sided
// p < alpha with the exact test (2/C(2n, n) < alpha): 4 at 0.05.
func minRunsFor(alpha float64) int {
	for n := 1; n < 100; n++ {
		if 2/binomial(2*n, n) < alpha {
			return n
		}
	}
	return 100
}
