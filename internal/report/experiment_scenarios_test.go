package report

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/results"
)

// scenarioRamp is a ramp by clients of two scenarios, two repeats, one of
// them with a failed run.
func scenarioRamp() *experiment.Record {
	run := func(n, rep int, level float64, rc, wc int, rtps, wtps, rp99, wp99 float64) experiment.RunRecord {
		return experiment.RunRecord{N: n, Variant: "base", Repeat: rep, Phase: "step", Level: level, Clients: rc + wc, TPS: rtps + wtps,
			Scenarios: []experiment.ScenarioRun{
				{Name: "reader", Clients: rc, Threads: 1, Rate: 50, TPS: rtps, P50: 0.5, P99: rp99, Committed: int64(2 * rtps)},
				{Name: "writer", Clients: wc, Threads: 1, TPS: wtps, P50: 0.3, P99: wp99, Committed: int64(2 * wtps)},
			}}
	}
	return &experiment.Record{Name: "s", Model: "ramp", Workload: "select-only + simple-update", WarmupS: 1, StepS: 2, Repeats: 2,
		Variants: []experiment.VariantRecord{{Name: "base"}},
		Ramp: []experiment.RampLevel{{Variant: "base", Level: 3, Runs: []string{"base#1", "base#2"}, TPS: 1098, P50: 0.3, P99: 4},
			{Variant: "base", Level: 5, Runs: []string{"base#1"}, TPS: 1849, P50: 0.3, P99: 6}},
		Scenarios: []experiment.ScenarioRecord{
			{Name: "reader", Workload: "select-only", Kind: results.ModelOpen, Clients: 2, Rate: 50, Arrival: "uniform", Overload: "queue"},
			{Name: "writer", Workload: "simple-update", Kind: results.ModelClosed, Clients: 1},
		},
		Runs: []experiment.RunRecord{
			run(1, 1, 3, 2, 1, 50, 1000, 2, 4),
			run(2, 1, 5, 3, 2, 49, 1800, 3, 6),
			run(3, 2, 3, 2, 1, 48, 1100, 4, 5),
			{N: 4, Variant: "base", Repeat: 2, Phase: "step", Level: 5, Error: "connection refused"},
		},
	}
}

// TestExperimentScenarios: the summary has a row per level and scenario
// with its clients, rate and figures over the repeats (a failed run left
// out), the file's scenarios under it, and the header names the scenarios.
func TestExperimentScenarios(t *testing.T) {
	out := text(t, Experiment(scenarioRamp(), "/tmp/s"))
	wantAll(t, "the summary", out,
		"; ramp of 2 concurrent scenarios (table below)\n",
		"scenarios (median (min–max) over the repeats):\n",
		"  variant  level  scenario  clients  rate tx/s  runs  tps                     p50 ms               p99 ms\n",
		"  base     3      reader    2        50         2     49.0 (48.0–50.0)        0.500 (0.500–0.500)  3.00 (2.00–4.00)\n",
		"  base     3      writer    1        closed     2     1050.0 (1000.0–1100.0)  0.300 (0.300–0.300)  4.50 (4.00–5.00)\n",
		"  base     5      reader    3        50         1     49.0                    0.500                3.00\n",
		"  base     5      writer    2        closed     1     1800.0                  0.300                6.00\n",
		"the file's scenarios: reader: select-only, open 50 tx/s uniform, 2 clients; writer: simple-update, closed, 1 client;",
	)
	if strings.Contains(out, "variant  runs") {
		t.Errorf("a ramp's summary has the fixed-load variant table:\n%s", out)
	}
	// A fixed load: no level column; the header names the scenarios.
	fixed := scenarioRamp()
	fixed.Model, fixed.Ramp, fixed.Clients, fixed.Runs = "closed", nil, 3, fixed.Runs[:1]
	fixed.Runs[0].Level = 0
	out = text(t, Experiment(fixed, "/tmp/s"))
	wantAll(t, "the fixed-load summary", out,
		"; 2 concurrent scenarios (table below), 3 clients\n",
		"  variant  scenario  clients  rate tx/s  runs  tps     p50 ms  p99 ms\n",
		"  base     reader    2        50         1     50.0    0.500   2.00\n",
	)
	// Without scenarios: no table, the header as before.
	out = text(t, Experiment(rampRecord(""), "/tmp/r"))
	if strings.Contains(out, "scenarios") {
		t.Errorf("a record without scenarios shows them:\n%s", out)
	}
}
