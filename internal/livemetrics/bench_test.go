package livemetrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// BenchmarkHistAdd: one interval's histogram of 10,000 values, log-normal
// about 1 ms with a tail to seconds, into a hist.
func BenchmarkHistAdd(b *testing.B) {
	x := metrics.NewHistogram()
	r := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		metrics.RecordValue(x, int64(1000*math.Exp(r.NormFloat64()*1.5)))
	}
	h := newHist()
	b.ReportAllocs()
	for b.Loop() {
		h.add(x)
	}
}

// hdrValue reads metrics' histograms as their Distribution does.
func TestHDRValue(t *testing.T) {
	x := metrics.NewHistogram()
	r := rand.New(rand.NewPCG(3, 4))
	for range 20_000 {
		metrics.RecordValue(x, int64(math.Exp(r.Float64()*22))) // 1 µs to ~1 h
	}
	metrics.RecordValue(x, 0)
	metrics.RecordValue(x, metrics.HistHighest)
	var a, b hist
	a, b = newHist(), newHist()
	a.add(x)
	for _, bar := range x.Distribution() {
		b.addBucket(bar.From, bar.To, bar.Count)
	}
	if a.count != b.count || a.zero != b.zero || a.native != b.native || !slices.Equal(a.classic, b.classic) || math.Abs(a.sum-b.sum) > 1e-9*b.sum {
		t.Fatalf("direct read %+v\ndistribution %+v", a, b)
	}
	if a.count != 20_002 {
		t.Errorf("count %d", a.count)
	}
}
