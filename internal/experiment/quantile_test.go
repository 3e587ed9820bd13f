package experiment

import (
	"testing"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// TestQuantileOf: every reported quantile reads its own field of a run
// record; any other quantile is an error, not some other field.
func TestQuantileOf(t *testing.T) {
	rr := &RunRecord{P50: 1, P90: 2, P95: 3, P99: 4, P999: 5}
	want := map[string]float64{"p50": 1, "p90": 2, "p95": 3, "p99": 4, "p99.9": 5}
	for _, q := range metrics.Quantiles() {
		got, err := quantileOf(rr, q.Q)
		if err != nil || got != want[q.Name] {
			t.Errorf("quantileOf(%s) = %v, %v; want %v", q.Name, got, err, want[q.Name])
		}
	}
	for _, q := range []float64{0, 0.75, 0.9999, 1, -1} {
		if got, err := quantileOf(rr, q); err == nil {
			t.Errorf("quantileOf(%g) = %v, want an error", q, got)
		}
	}
}
