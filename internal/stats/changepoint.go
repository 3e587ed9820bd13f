package stats

import (
	"math"
	"slices"
)

// A ChangePoint is a level shift in a series: the mean of ys[At:] (up to the
// next change) differs from the mean of the segment before it.
type ChangePoint struct {
	At     int     // index of the first value of the new level
	Before float64 // mean of the segment before
	After  float64 // mean of the segment from At
}

// ChangeConfig tunes ChangePoints; the zero value takes the defaults.
type ChangeConfig struct {
	// Penalty is β, the cost of one more change in units of the noise's
	// long-run variance: a change is kept only when it lowers the residual
	// sum of squares by more than β·σ²_lr. 0: 3·ln n (BIC's 2·ln n for the
	// change's two parameters, location and new mean, made stricter by
	// half again because the noise's variance is estimated).
	Penalty float64
	// MinSegment is the fewest values a level may have; 0: 3.
	MinSegment int
}

// ChangeResult is the changes found and what they rest on.
type ChangeResult struct {
	Changes []ChangePoint
	Sigma   float64 // the noise's marginal standard deviation (noiseScale)
	Rho     float64 // lag-1 autocorrelation of the residuals around the first levels found, in [0, 0.9]
	Penalty float64 // β used
}

// ChangePoints finds level shifts in ys (one value per interval: tps, p99,
// lag) by PELT (Killick, Fearnhead & Eckley 2012): the segmentation that
// minimises Σ over segments of the squared deviations from the segment's
// mean, plus β·σ²_lr per change, solved exactly.
//
// The noise's scale is estimated so that the shifts themselves do not
// inflate it, from the spread of lag-1 and lag-2 differences (noiseScale);
// its autocorrelation then from the residuals around the levels a first
// search finds.
// Per-interval series are autocorrelated (a slow second is followed by a
// slow second), which makes runs of noise look like levels, so the penalty
// is in units of the long-run variance σ²·(1+ρ)/(1−ρ), the variance of a
// sum of AR(1) noise per value, not σ².
// NaN values are left out (their indices are kept). Fewer than
// 2·MinSegment values, or a constant series, have no change.
func ChangePoints(ys []float64, cfg ChangeConfig) ChangeResult {
	idx := make([]int, 0, len(ys))
	xs := make([]float64, 0, len(ys))
	for i, y := range ys {
		if !math.IsNaN(y) && !math.IsInf(y, 0) {
			idx = append(idx, i)
			xs = append(xs, y)
		}
	}
	n := len(xs)
	minSeg := cfg.MinSegment
	if minSeg <= 0 {
		minSeg = 3
	}
	beta := cfg.Penalty
	if beta <= 0 {
		beta = 3 * math.Log(math.Max(float64(n), 2))
	}
	res := ChangeResult{Penalty: beta}
	if n < 2*minSeg {
		return res
	}
	sigma, rho := noiseScale(xs)
	if !(sigma > 0) {
		return res
	}
	lrv := func(rho float64) float64 { return sigma * sigma * (1 + rho) / (1 - rho) } // long-run variance of AR(1) noise
	cuts := pelt(xs, beta*lrv(rho), minSeg)
	// The differences' ρ is noisy on a short series; the residuals around
	// the levels found give a steadier one, and the last search uses it.
	rho = residualRho(xs, cuts)
	cuts = pelt(xs, beta*lrv(rho), minSeg)
	res.Sigma, res.Rho = sigma, rho
	bounds := append(append([]int{0}, cuts...), n)
	for k := 1; k < len(bounds)-1; k++ {
		res.Changes = append(res.Changes, ChangePoint{
			At:     idx[bounds[k]],
			Before: Mean(xs[bounds[k-1]:bounds[k]]),
			After:  Mean(xs[bounds[k]:bounds[k+1]]),
		})
	}
	return res
}

// noiseScale estimates the noise's marginal standard deviation σ and its
// lag-1 autocorrelation ρ from the spread of differences, which a level
// shift moves only at one or two places: for AR(1) noise the lag-k
// difference has variance V_k = 2σ²(1 − ρ^k), so 1 + ρ = V_2 / V_1 and
// σ² = V_1 / (2(1 − ρ)); each V_k is (1.4826 · MAD of the differences)².
// ρ is clamped to [0, 0.9].
func noiseScale(xs []float64) (sigma, rho float64) {
	v := func(lag int) float64 {
		if len(xs) <= lag {
			return 0
		}
		d := make([]float64, len(xs)-lag)
		for i := range d {
			d[i] = math.Abs(xs[i+lag] - xs[i])
		}
		m := 1.4826 * Median(d)
		return m * m
	}
	v1, v2 := v(1), v(2)
	if !(v1 > 0) {
		return 0, 0
	}
	rho = math.Min(math.Max(v2/v1-1, 0), 0.9)
	return math.Sqrt(v1 / (2 * (1 - rho))), rho
}

// pelt returns the starts of the segments after the first (ascending) of
// the optimal penalised segmentation of xs: cost of a segment = Σ (x − mean)²,
// pen per change, segments of at least minSeg values.
func pelt(xs []float64, pen float64, minSeg int) []int {
	n := len(xs)
	s1 := make([]float64, n+1) // prefix sums of x and x²
	s2 := make([]float64, n+1)
	for i, x := range xs {
		s1[i+1] = s1[i] + x
		s2[i+1] = s2[i] + x*x
	}
	cost := func(a, b int) float64 { // segment xs[a:b]
		m := float64(b - a)
		s := s1[b] - s1[a]
		return (s2[b] - s2[a]) - s*s/m
	}
	f := make([]float64, n+1) // f[t]: best cost of xs[:t]
	last := make([]int, n+1)  // last[t]: start of the last segment of that best
	f[0] = -pen
	for t := 1; t < minSeg && t <= n; t++ {
		f[t] = math.Inf(1)
	}
	var cands []int // starts s of a last segment: f[s] finite, t − s ≥ minSeg
	for t := minSeg; t <= n; t++ {
		if s := t - minSeg; !math.IsInf(f[s], 1) {
			cands = append(cands, s)
		}
		best, arg := math.Inf(1), 0
		for _, s := range cands {
			if v := f[s] + cost(s, t) + pen; v < best {
				best, arg = v, s
			}
		}
		f[t], last[t] = best, arg
		// Pruning: a start s with f[s] + cost(s, t) > f[t] can never be the
		// best for a later end (splitting a segment never raises its cost).
		kept := cands[:0]
		for _, s := range cands {
			if f[s]+cost(s, t) <= f[t] {
				kept = append(kept, s)
			}
		}
		cands = kept
	}
	var cuts []int
	for t := n; t > 0; t = last[t] {
		if last[t] > 0 {
			cuts = append(cuts, last[t])
		}
	}
	slices.Reverse(cuts)
	return cuts
}

// residualRho is the lag-1 autocorrelation of xs around the means of the
// segments cut at cuts, clamped to [0, 0.9].
func residualRho(xs []float64, cuts []int) float64 {
	r := make([]float64, len(xs))
	bounds := append(append([]int{0}, cuts...), len(xs))
	for k := 0; k+1 < len(bounds); k++ {
		m := Mean(xs[bounds[k]:bounds[k+1]])
		for i := bounds[k]; i < bounds[k+1]; i++ {
			r[i] = xs[i] - m
		}
	}
	var num, den float64
	for i, v := range r {
		den += v * v
		if i > 0 {
			num += v * r[i-1]
		}
	}
	if den == 0 {
		return 0
	}
	return math.Min(math.Max(num/den, 0), 0.9)
}
