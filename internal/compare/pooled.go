package compare

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Pooled is one side's pooled latency profile: the response histograms of
// its runs' measured phases (latency.hlog, results.MeasuredResponse) merged
// into one, whose percentiles are those of all Count transactions of the
// side (stats.PooledQuantiles: nearest rank, ⌈q·Count⌉-th smallest). It is
// descriptive, beside the median over runs of each run's percentile: one
// stalled run in five moves the pooled p99 a lot and the median of the
// runs' p99s little. The verdicts use the per-run values only.
type Pooled struct {
	Runs  int   `json:"runs"`  // runs merged
	Count int64 `json:"count"` // transactions in the merged histogram
	// Missing says why the side has no pooled figures: each run whose
	// histogram could not be read ("A#3: …"). A side is pooled over all
	// its runs or not at all.
	Missing []string `json:"missing,omitempty"`
}

// pooledQuantiles are the latency metrics (summaryMetrics' names) with a
// pooled figure, and the quantile of each (1: the maximum).
var pooledQuantiles = []struct {
	metric string
	q      float64
}{{"p50", 0.50}, {"p95", 0.95}, {"p99", 0.99}, {"p99.9", 0.999}, {"max", 1}}

// addPooled merges each side's histograms and sets Report.PooledA/PooledB
// and, on the latency metrics, Metric.PooledA/PooledB (ms).
func addPooled(rep *Report, runsA, runsB []RunRef) {
	var valsA, valsB map[string]float64
	rep.PooledA, valsA = pooledSide(runsA)
	rep.PooledB, valsB = pooledSide(runsB)
	for i := range rep.Metrics {
		m := &rep.Metrics[i]
		if m.Group != "latency" {
			continue
		}
		if v, ok := valsA[m.Metric]; ok {
			m.PooledA = &v
		}
		if v, ok := valsB[m.Metric]; ok {
			m.PooledB = &v
		}
	}
}

// pooledSide is one side's Pooled and its figures by metric name (ms); nil
// figures when a run's histogram is missing.
func pooledSide(runs []RunRef) (*Pooled, map[string]float64) {
	p := &Pooled{}
	hs := make([]*hdrhistogram.Histogram, 0, len(runs))
	for _, r := range runs {
		h, err := results.MeasuredResponse(r.Dir, r.Run)
		if err != nil {
			p.Missing = append(p.Missing, fmt.Sprintf("%s: %v", r.Label, err))
			continue
		}
		hs = append(hs, h)
	}
	if len(p.Missing) > 0 || len(hs) == 0 {
		if len(hs) == 0 && len(p.Missing) == 0 {
			p.Missing = []string{"no run"}
		}
		return p, nil
	}
	qs := make([]float64, len(pooledQuantiles))
	for i, pq := range pooledQuantiles {
		qs[i] = pq.q
	}
	res := stats.PooledQuantiles(hs, qs)
	p.Runs, p.Count = len(hs), res.Count
	if res.Count == 0 {
		p.Missing = []string{"the runs' histograms hold no transaction"}
		return p, nil
	}
	vals := make(map[string]float64, len(qs))
	for i, pq := range pooledQuantiles {
		vals[pq.metric] = float64(res.Values[i]) / 1000 // µs → ms
	}
	return p, vals
}
