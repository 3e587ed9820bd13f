package compare

import "fmt"

// FewBeyond is the number of transactions beyond a run's quantile under
// which the quantile is said to rest on a handful of them: n·(1 − q) < 20
// (the run summary's rule).
const FewBeyond = 20

// latencyQuantiles are the latency metrics' quantiles; max is left out: it
// always rests on a single transaction.
var latencyQuantiles = map[string]float64{"p50": 0.5, "p95": 0.95, "p99": 0.99, "p99.9": 0.999}

// addFew fills Metric.Few for the latency quantiles: the runs whose
// quantile rests on fewer than FewBeyond transactions beyond it, as
// "A#2: 12 of 1,210". A run without a transaction count (a run.json older
// than it) is not judged.
func addFew(rep *Report, runsA, runsB []RunRef) {
	for i := range rep.Metrics {
		m := &rep.Metrics[i]
		q, ok := latencyQuantiles[m.Metric]
		if m.Group != "latency" || !ok {
			continue
		}
		for _, r := range append(append([]RunRef(nil), runsA...), runsB...) {
			if r.Run == nil || r.Run.Summary == nil {
				continue
			}
			pc := &r.Run.Summary.Total.Response
			if pc.Count <= 0 {
				continue
			}
			if b := pc.Beyond(q); b < FewBeyond {
				m.Few = append(m.Few, fmt.Sprintf("%s: %d of %d", r.Label, b, pc.Count))
			}
		}
	}
}
