package report

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/results"
)

// demoRecord is a demo made by hand: three closed runs, the 30 % and 60 %
// levels (the 90 % one has no completed run), the stall in both models.
func demoRecord() *experiment.Record {
	rec := &experiment.Record{Name: "demo", Model: "demo", Workload: "tpcb-like", Scale: 20, WindowS: 8, WarmupS: 2,
		Target:     results.Target{Host: "/tmp", Port: 5433, Database: "postgres", ServerVersion: "15.8"},
		Injections: []experiment.InjectionPlanned{{Kind: "lock", AtS: 5, Table: "pgbench_branches", DurationS: 5}},
		Checks: []results.Check{{Name: "interleaved", Status: "pass", Message: "open-30% open-60% open-90%"},
			{Name: "stall_visible", Status: "pass", Message: "the open run's p99 shows the lock"}},
		Warnings: []string{"shared_buffers was 1 GiB, more than the 300 MiB of data"},
	}
	for _, tps := range []float64{980, 1000.04, 1012.5} {
		rec.Runs = append(rec.Runs, experiment.RunRecord{Variant: experiment.DemoClosed, TPS: tps, P50: 5, P99: 20})
	}
	for rep := 1; rep <= 3; rep++ {
		rec.Runs = append(rec.Runs,
			experiment.RunRecord{Variant: experiment.DemoLevel(0.3), Repeat: rep, Rate: 300, P50: 1 + float64(rep)/10, P95: 2, P99: 3, SkippedShare: 0},
			experiment.RunRecord{Variant: experiment.DemoLevel(0.6), Repeat: rep, Rate: 600, P50: 2, P95: 4, P99: 40, SkippedShare: 0.0123},
			experiment.RunRecord{Variant: experiment.DemoLevel(0.9), Repeat: rep, Rate: 900, Error: "run failed"})
	}
	rec.Runs = append(rec.Runs,
		experiment.RunRecord{Variant: experiment.DemoStallClosed, TPS: 700, P50: 5, P99: 150, Max: 5020, ServiceP99: 150},
		experiment.RunRecord{Variant: experiment.DemoStallOpen, Rate: 600, TPS: 590.55, P50: 8, P99: 4500, Max: 5100, ServiceP99: 12})
	return rec
}

// TestDemo: the demo's report shows the ceiling, the open levels with the
// skipped share, the stall in both models with the ratio of their p99, the
// checklist and where the runs are.
func TestDemo(t *testing.T) {
	out := text(t, Demo(demoRecord(), "/tmp/demo"))
	wantAll(t, "the report", out,
		"pgtrial demo: tpcb-like (scale 20) on /tmp:5433/postgres (PostgreSQL 15.8)\n\n",
		"\nclosed-model ceiling: 1000.0 (980.0–1012.5) tx/s, median (min–max) of 3 runs of 8 s\n",
		"\nopen model (latency from the intended start), -L 100 ms; median (min–max) of the repeats:\n"+
			"  load  rate tx/s  p50 ms            p95 ms            p99 ms            skipped %\n"+
			"  30 %  300        1.20 (1.10–1.30)  2.00 (2.00–2.00)  3.00 (3.00–3.00)  0 (0–0)\n"+
			"  60 %  600        2.00 (2.00–2.00)  4.00 (4.00–4.00)  40.0 (40.0–40.0)  1.23 (1.23–1.23)\n"+
			"  90 %  —          —                 —                 —                 —\n"+
			"  rate tx/s —: no run of the level completed\n"+
			"  read p99 together with the skipped share",
		"\nstall (5 s ACCESS EXCLUSIVE lock on pgbench_branches at 5 s), no latency limit:\n"+
			"  model          tps    p50 ms  p99 ms  max ms  service p99 ms\n"+
			"  closed         700.0  5.00    150     5020    150\n"+
			"  open 600 tx/s  590.5  8.00    4500    5100    12.0\n",
		"  the open model's p99 is 30× the closed model's",
		"\nchecklist:\n  pass  interleaved    open-30% open-60% open-90%\n  pass  stall_visible  the open run's p99 shows the lock\n",
		"warning: shared_buffers was 1 GiB, more than the 300 MiB of data\n",
		"\nrun directories: /tmp/demo/runs (experiment.json); compare two of them with pgtrial compare\n",
	)

	// Without the stall runs (an interrupted demo) there is no stall table.
	rec := demoRecord()
	rec.Runs, rec.Error = rec.Runs[:3], "interrupted by interrupt"
	out = text(t, Demo(rec, "/tmp/demo"))
	if strings.Contains(out, "stall (") || !strings.Contains(out, "ended early: interrupted by interrupt\n") {
		t.Errorf("interrupted demo:\n%s", out)
	}
}

// TestDemoMarkdown: the demo renders as Markdown with its tables.
func TestDemoMarkdown(t *testing.T) {
	checkMarkdown(t, Demo(demoRecord(), "/tmp/demo"),
		"# pgtrial demo: tpcb-like (scale 20) on /tmp:5433/postgres (PostgreSQL 15.8)\n",
		"| load | rate tx/s | p50 ms | p95 ms | p99 ms | skipped % |\n| --- | --- | --- | --- | --- | --- |\n| 30 % | 300 | 1.20 (1.10–1.30) | 2.00 (2.00–2.00) | 3.00 (3.00–3.00) | 0 (0–0) |\n",
		"- rate tx/s —: no run of the level completed\n",
		"| open 600 tx/s | 590.5 | 8.00 | 4500 | 5100 | 12.0 |\n",
		"| pass | stall\\_visible |  | the open run's p99 shows the lock |\n",
	)
}
