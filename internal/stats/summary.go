package stats

import (
	"math"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// Summary describes one variant's runs for one metric: the per-variant figures
// of DESIGN §7 (median, min and max over repeats) and the values themselves.
type Summary struct {
	N      int       `json:"n"`      // number of finite values
	Median float64   `json:"median"` // middle value; mean of the two middle values when N is even
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Mean   float64   `json:"mean"`   // arithmetic mean Σx/N (shown for reference; verdicts use medians)
	Sorted []float64 `json:"sorted"` // the finite values in ascending order (a copy)
}

// Summarize returns N, median, min, max and mean of the finite values of xs and
// the values sorted. With no finite value every figure is 0 and N is 0.
func Summarize(xs []float64) Summary {
	v := finite(xs)
	if len(v) == 0 {
		return Summary{Sorted: []float64{}}
	}
	slices.Sort(v)
	return Summary{
		N:      len(v),
		Median: medianSorted(v),
		Min:    v[0],
		Max:    v[len(v)-1],
		Mean:   mean(v),
		Sorted: v,
	}
}

// Median is the median of the finite values of xs (the mean of the two middle
// values when their number is even), 0 when there is none. xs is not modified.
func Median(xs []float64) float64 {
	v := finite(xs)
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return medianSorted(v)
}

// Mean is Σx/N over the finite values of xs, 0 when there is none.
func Mean(xs []float64) float64 {
	return mean(finite(xs))
}

// Quantile is the q-quantile (q ∈ [0, 1], clamped; NaN means 0.5) of the finite
// values of xs by linear interpolation between order statistics (Hyndman &
// Fan type 7, R's default): with x₍₁₎ ≤ … ≤ x₍ₙ₎, h = (n−1)·q,
// Q = x₍⌊h⌋+1₎ + (h − ⌊h⌋)·(x₍⌊h⌋+2₎ − x₍⌊h⌋+1₎). 0 when there is no value.
// It is for run-level values; latency percentiles come from histograms
// (PooledQuantiles), never from averaging per-run percentiles.
func Quantile(xs []float64, q float64) float64 {
	v := finite(xs)
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return quantileSorted(v, q)
}

// Pooled is the descriptive latency profile of several histograms merged into
// one: what all Count requests experienced (reference §4.6). Values[i] is the
// value (µs) at the i-th requested quantile.
type Pooled struct {
	Count   int64   `json:"count"`   // transactions in the merged histogram
	Dropped int64   `json:"dropped"` // values that did not fit the merged histogram's range
	Values  []int64 `json:"values"`  // µs, one per requested quantile
}

// PooledQuantiles merges the histograms hs (nil ones are skipped) into one of
// pgtrial's geometry (metrics.NewHistogram: 1 µs … 1 h, 3 significant digits)
// and reads the quantiles qs (each in 0..1, as metrics.Quantile takes them)
// from the union: each the nearest-rank value, the ⌈q·Count⌉-th smallest of
// all the runs' transactions, as one run's percentiles are (Count −
// ⌈q·Count⌉ of them lie beyond it, metrics.Beyond). Merging is lossless, so
// the result carries HDR's bound
// v_true ≤ v ≤ v_true·(1 + 10⁻³) (reference §4.5). This is the pooled
// profile ("p99 of all N requests, R runs"); inference between variants uses
// per-run values instead (Summarize, Verdict). Percentiles of different runs
// are never averaged.
func PooledQuantiles(hs []*hdrhistogram.Histogram, qs []float64) Pooled {
	merged := metrics.NewHistogram()
	var dropped int64
	for _, h := range hs {
		if h != nil {
			dropped += merged.Merge(h)
		}
	}
	p := Pooled{Count: merged.TotalCount(), Dropped: dropped, Values: make([]int64, len(qs))}
	for i, q := range qs {
		p.Values[i] = metrics.Quantile(merged, q)
	}
	return p
}

// finite returns a new slice holding the finite values of xs in their order.
func finite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// finitePairs returns the pairs (x[i], y[i]), i < min(len(x), len(y)), in
// which both values are finite.
func finitePairs(x, y []float64) (fx, fy []float64) {
	n := min(len(x), len(y))
	fx = make([]float64, 0, n)
	fy = make([]float64, 0, n)
	for i := range n {
		if isFinite(x[i]) && isFinite(y[i]) {
			fx = append(fx, x[i])
			fy = append(fy, y[i])
		}
	}
	return fx, fy
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// mean is Σx/N computed as Σ(x/N), so that values near the float64 limit do
// not overflow the sum; 0 for no value.
func mean(v []float64) float64 {
	var m float64
	n := float64(len(v))
	for _, x := range v {
		m += x / n
	}
	return m
}

// medianSorted is the median of sorted, non-empty v.
func medianSorted(v []float64) float64 {
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return lerp(v[n/2-1], v[n/2], 0.5)
}

// lerp is a + t·(b − a) for a ≤ b and t ∈ [0, 1], computed so that it cannot
// overflow: when a and b have opposite signs b − a may exceed the float64
// range, and (1 − t)·a + t·b is used instead.
func lerp(a, b, t float64) float64 {
	if (a < 0) != (b < 0) {
		return (1-t)*a + t*b
	}
	return a + t*(b-a)
}

// quantileSorted is the type-7 quantile of sorted, non-empty v (see Quantile).
func quantileSorted(v []float64, q float64) float64 {
	switch {
	case math.IsNaN(q):
		q = 0.5
	case q < 0:
		q = 0
	case q > 1:
		q = 1
	}
	h := float64(len(v)-1) * q
	lo := int(math.Floor(h))
	if lo >= len(v)-1 {
		return v[len(v)-1]
	}
	return lerp(v[lo], v[lo+1], h-float64(lo))
}
