package stats

import (
	"math"
	"slices"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol
}

func TestSummarize(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name                   string
		in                     []float64
		n                      int
		median, min, max, mean float64
		sorted                 []float64
	}{
		{"empty", nil, 0, 0, 0, 0, 0, []float64{}},
		{"one", []float64{7}, 1, 7, 7, 7, 7, []float64{7}},
		{"odd", []float64{3, 1, 2}, 3, 2, 1, 3, 2, []float64{1, 2, 3}},
		{"even", []float64{820, 790, 1000, 805}, 4, 812.5, 790, 1000, 853.75, []float64{790, 805, 820, 1000}},
		{"non-finite dropped", []float64{nan, 5, inf, 1, -inf}, 2, 3, 1, 5, 3, []float64{1, 5}},
		{"all NaN", []float64{nan, nan}, 0, 0, 0, 0, 0, []float64{}},
		{"no overflow", []float64{math.MaxFloat64, math.MaxFloat64}, 2, math.MaxFloat64, math.MaxFloat64, math.MaxFloat64, math.MaxFloat64,
			[]float64{math.MaxFloat64, math.MaxFloat64}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			s := Summarize(in)
			if s.N != tc.n || s.Median != tc.median || s.Min != tc.min || s.Max != tc.max || !near(s.Mean, tc.mean, 1e-9*math.Abs(tc.mean)) {
				t.Errorf("Summarize(%v) = %+v, want n=%d median=%v min=%v max=%v mean=%v", tc.in, s, tc.n, tc.median, tc.min, tc.max, tc.mean)
			}
			if !slices.Equal(s.Sorted, tc.sorted) {
				t.Errorf("Sorted = %v, want %v", s.Sorted, tc.sorted)
			}
			if len(tc.in) > 0 && !slices.EqualFunc(in, tc.in, func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }) {
				t.Errorf("input modified: %v", in)
			}
			if got := Median(tc.in); got != tc.median {
				t.Errorf("Median = %v, want %v", got, tc.median)
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{10, 1, 4, 2, 3} // sorted 1 2 3 4 10
	tests := []struct {
		q, want float64
	}{
		{0, 1}, {1, 10}, {0.5, 3}, {0.25, 2}, {0.9, 7.6}, // h = 4·0.9 = 3.6: 4 + 0.6·6
		{-1, 1}, {2, 10}, {math.NaN(), 3},
	}
	for _, tc := range tests {
		if got := Quantile(xs, tc.q); !near(got, tc.want, 1e-12) {
			t.Errorf("Quantile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if got := Quantile(nil, 0.5); got != 0 {
		t.Errorf("Quantile(nil) = %v, want 0", got)
	}
}

func TestPooledQuantiles(t *testing.T) {
	// Run 1: 990 fast (1 ms) and 10 slow (100 ms) transactions; run 2: 1000 at
	// 2 ms. Pooled over 2000 (the nearest rank, the ⌈q·2000⌉-th value):
	// p10 (200th) is 1 ms, p50 (1000th: 990 are ≤ 1 ms) is 2 ms, p99
	// (1980th: 1990 are ≤ 2 ms) is 2 ms, p99.9 (1998th) is 100 ms, max 100 ms.
	// Averaging the runs' p99.9 (100 and 2 ms) would give 51 ms, which
	// nobody experienced.
	h1, h2 := metrics.NewHistogram(), metrics.NewHistogram()
	for i := range 1000 {
		if i < 990 {
			metrics.RecordValue(h1, 1000)
		} else {
			metrics.RecordValue(h1, 100_000)
		}
		metrics.RecordValue(h2, 2000)
	}
	p := PooledQuantiles([]*hdrhistogram.Histogram{h1, nil, h2}, []float64{0.1, 0.5, 0.99, 0.999, 1})
	if p.Count != 2000 || p.Dropped != 0 {
		t.Fatalf("count %d dropped %d, want 2000, 0", p.Count, p.Dropped)
	}
	want := []float64{1000, 2000, 2000, 100_000, 100_000}
	for i, w := range want {
		// HDR reports the top of the value's bucket: within 0.1 % above.
		if v := float64(p.Values[i]); v < w || v > w*1.001 {
			t.Errorf("quantile %d = %d µs, want %v (+0.1 %%)", i, p.Values[i], w)
		}
	}
	// The nearest rank over the union: runs of 1…3 ms and 4…7 ms pool 7
	// values, whose p90 is the 7th (⌈6.3⌉; HDR's round rank gives the 6th).
	a, b := metrics.NewHistogram(), metrics.NewHistogram()
	for v := int64(1); v <= 7; v++ {
		if v <= 3 {
			metrics.RecordValue(a, v*1000)
		} else {
			metrics.RecordValue(b, v*1000)
		}
	}
	if p := PooledQuantiles([]*hdrhistogram.Histogram{a, b}, []float64{0.9}); !a.ValuesAreEquivalent(p.Values[0], 7000) {
		t.Errorf("pooled p90 of 1…7 ms = %d µs, want 7000 (the 7th)", p.Values[0])
	}
	if e := PooledQuantiles(nil, []float64{0.99}); e.Count != 0 || e.Values[0] != 0 {
		t.Errorf("empty pool = %+v", e)
	}
}
