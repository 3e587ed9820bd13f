package compare

import (
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// TestFewBeyond: a run's p99.9 of 4,210 transactions rests on 4 beyond it
// and is listed; p99 (42 beyond) is not; a run without a count (an older
// run.json) is not judged.
func TestFewBeyond(t *testing.T) {
	mk := func(label string, count int64) RunRef {
		r := &results.Run{
			Workload: results.Workload{Name: "tpcb-like"},
			Model:    results.Model{Kind: results.ModelClosed, Clients: 2},
			Summary: &results.Summary{Total: results.ScriptSummary{Committed: count, TPS: 100,
				Response: results.Percentiles{P50: 1, P95: 2, P99: 3, P999: 4, Max: 5, Count: count}}},
		}
		return RunRef{Label: label, Run: r, StartedAt: time.Unix(0, 0)}
	}
	a := []RunRef{mk("A#1", 4210), mk("A#2", 0)}
	b := []RunRef{mk("B#1", 100000)}
	rep := Build(Options{NameA: "A", NameB: "B"}, a, b)
	got := map[string]string{}
	for _, m := range rep.Metrics {
		got[m.Metric] = strings.Join(m.Few, "; ")
	}
	if got["p99.9"] != "A#1: 4 of 4210" || got["p99"] != "" || got["max"] != "" || got["tps"] != "" {
		t.Errorf("few beyond: %q", got)
	}
}
