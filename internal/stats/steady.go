package stats

import "fmt"

// mserBatch is MSER-5's batch size.
const mserBatch = 5

// SteadyResult is the outcome of MSER-5 steady-state detection on a series of
// per-interval values (e.g. per-second tps or p99).
type SteadyResult struct {
	// Truncate is the number of leading observations to discard, a multiple
	// of 5: 5·d* with d* minimising MSER(d) over the first half of the batches.
	Truncate int `json:"truncate"`
	Batches  int `json:"batches"` // k = ⌊len/5⌋ batches (a trailing partial batch is left out)
	// Steady is false when the series is too short (fewer than 2 batches) or
	// when MSER's minimum over all admissible d (all but the last min(5, k/4)
	// batches) lies in the second half: the run is too short or never
	// reached a steady state, and Truncate should not be trusted.
	Steady bool `json:"steady"`
	// Minimum is 5·d with d minimising MSER(d) over all admissible d, also
	// past the middle (= Truncate when Steady): where MSER would cut a
	// series that has no steady state, for comparing that head with the rest.
	Minimum int    `json:"minimum"`
	Reason  string `json:"reason,omitempty"`
}

// MSER5 returns the number of leading observations of xs to discard as
// warm-up by MSER-5 (White 1997; Spratt 1998): SteadyState(xs).Truncate. A
// warm-up is long enough when this is 0 on the measured window, or when the
// discarded warm-up was at least this long.
func MSER5(xs []float64) (truncate int) {
	return SteadyState(xs).Truncate
}

// SteadyState applies MSER-5 to xs (reference §4.7, formula as in
// openkim/kim-convergence ucl/mser_m.py):
//
//  1. batch the series into non-overlapping means of 5, Z_1 … Z_k;
//  2. for each truncation d (in batches)
//     MSER(d) = 1/(k−d)² · Σ_{j=d+1..k} (Z_j − Z̄_d)², Z̄_d = mean of Z_{d+1..k}
//     (the squared marginal standard error of the truncated mean);
//  3. d* = argmin over d ≤ ⌊k/2⌋; Truncate = 5·d*.
//
// The last min(5, ⌊k/4⌋) batches are never candidates, where too few points
// remain for MSER to be stable. Steady reports whether the minimum over all
// candidates lies in the first half. Non-finite values are left out of their
// batch's mean; a batch with none is left out of the sums (its index still
// counts, so Truncate stays an index into xs). Ties go to the smaller d.
func SteadyState(xs []float64) SteadyResult {
	k := len(xs) / mserBatch
	r := SteadyResult{Batches: k}
	z := make([]float64, k)
	present := make([]bool, k)
	for j := range k {
		var sum float64
		var c int
		for _, x := range xs[j*mserBatch : (j+1)*mserBatch] {
			if isFinite(x) {
				sum += x
				c++
			}
		}
		if c > 0 {
			z[j], present[j] = sum/float64(c), true
		}
	}
	if k < 2 {
		r.Reason = fmt.Sprintf("too short for MSER-5: %d batches of 5 (need at least 2)", k)
		return r
	}

	// mser[d] for d = k−1 … 0 by Welford's update, adding Z_{d+1} (0-based z[d])
	// to the suffix: count c, mean μ, M2 = Σ(Z − μ)²; MSER(d) = M2/c².
	mser := make([]float64, k)
	valid := make([]bool, k)
	var c int
	var mu, m2 float64
	for d := k - 1; d >= 0; d-- {
		if present[d] {
			c++
			delta := z[d] - mu
			mu += delta / float64(c)
			m2 += delta * (z[d] - mu)
		}
		if c >= 2 {
			mser[d] = m2 / float64(c*c)
			valid[d] = true
		}
	}
	skip := min(5, k/4)
	half := k / 2
	bestAll, bestHalf := -1, -1
	for d := 0; d < k-skip; d++ {
		if !valid[d] {
			continue
		}
		if bestAll < 0 || mser[d] < mser[bestAll] {
			bestAll = d
		}
		if d <= half && (bestHalf < 0 || mser[d] < mser[bestHalf]) {
			bestHalf = d
		}
	}
	if bestHalf < 0 {
		r.Reason = "too few values for MSER-5"
		return r
	}
	r.Truncate = mserBatch * bestHalf
	r.Minimum = mserBatch * bestAll
	r.Steady = bestAll <= half
	if !r.Steady {
		r.Reason = fmt.Sprintf("MSER-5's minimum is at %d of %d observations, past the middle: no steady state (or the window is too short)",
			mserBatch*bestAll, len(xs))
	}
	return r
}
