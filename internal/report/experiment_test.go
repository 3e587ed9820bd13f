package report

import (
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/capacity"
	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// lineWith is the first line of out that starts with prefix (after the
// indentation) and contains s, "" if none.
func lineWith(out, prefix, s string) string {
	for line := range strings.Lines(out) {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, prefix) && strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// twoVariants is an experiment of two variants in the open model, with a
// lock, an SLO, a comparison, a checklist, a warning and a failed run.
func twoVariants() *experiment.Record {
	return &experiment.Record{
		Name: "x", Description: "two variants", Workload: "tpcb-like", Scale: 10, Model: "open", Rate: 500, Clients: 8,
		Target:  results.Target{Host: "127.0.0.1", Port: 5432, Database: "bench", ServerVersion: "17.2"},
		WarmupS: 30, WindowS: 120, Repeats: 1, Interleave: true, Seed: 7,
		Variants:   []experiment.VariantRecord{{Name: "a"}, {Name: "b"}, {Name: "none_ran"}},
		Injections: []experiment.InjectionPlanned{{Kind: "lock", AtS: 20, Table: "pgbench_branches", DurationS: 5}},
		Runs: []experiment.RunRecord{
			{N: 1, Variant: "a", TPS: 499.5, P50: 1.5, P95: 3, P99: 4980, P999: 5010, SkippedShare: 0.001},
			{N: 2, Variant: "b", TPS: 500.2, P50: 1.2, P95: 2.5, P99: 4870, P999: 4990},
			{N: 3, Variant: "c", Error: "run 003: refused", TPS: 0},
			{N: 4, Variant: "none_ran", Error: "run 004: refused", TPS: 0},
		},
		Comparisons: []*compare.Report{{NameA: "a", NameB: "b", RunsA: make([]compare.RunRef, 1), RunsB: make([]compare.RunRef, 1),
			Primary: "tps", Tests: 3, Alpha: 0.05,
			Metrics: []compare.Metric{
				{Metric: "tps", Group: "throughput", Verdict: stats.VerdictResult{Role: stats.RolePrimary, Outcome: stats.OutcomeInconclusive,
					Direction: stats.DirNone, Text: "inconclusive: tps ratio 1.00"}},
				{Metric: "calls of SELECT 1", Group: "statements", Verdict: stats.VerdictResult{Role: stats.RoleExploratory, Outcome: stats.OutcomeInconclusive,
					Direction: stats.DirNone, Text: "same calls"}},
				{Metric: "Lock %", Group: "waits", Verdict: stats.VerdictResult{Role: stats.RoleExploratory, Outcome: stats.OutcomeDiffers,
					Direction: stats.DirWorse, Text: "exploratory: higher: ratio 3.1"}},
			}}},
		SLOs:     []experiment.SLOResult{{SLO: "p99 ≤ 100ms", Variant: "a", Rate: 500, Median: 4980, Worst: 4980, LimitMs: 100, Runs: 1}},
		Checks:   []results.Check{{Name: "warmup", Status: "pass", Message: "30 s before every run"}, {Name: "interleaved", Status: "pass", Message: "a b"}},
		Warnings: []string{"a warning"},
		Error:    "run 003: refused",
	}
}

// TestExperiment: the summary of a record made by hand shows each part,
// without a database.
func TestExperiment(t *testing.T) {
	out := text(t, Experiment(twoVariants(), "/tmp/x"))
	wantAll(t, "the summary", out,
		"experiment x: two variants\n",
		"  tpcb-like (scale 10) on 127.0.0.1:5432/bench (PostgreSQL 17.2); open model at 500 tx/s, 8 clients\n",
		"  warm-up 30 s, window 120 s, 1 repeat per variant, interleaved, seed 7\n",
		"  injection: lock pgbench_branches at 20 s for 5 s\n",
		"  a         1     499.5  1.50    3.00    4980    5010      0.1\n",
		"  none_ran  0     —      —       —       —       —         —\n",
		"  tps —: no run of the variant completed\n",
		"b against a (1 vs 1 runs; primary metric tps, 2 exploratory with Holm's correction):\n  primary: inconclusive: tps ratio 1.00\n"+
			"  exploratory: higher: ratio 3.1\n  exploratory, inconclusive: calls of SELECT 1 (--json has each one's interval)\n",
		"SLOs (median over the repeats; worst run):\n  a  p99 ≤ 100ms at 500 tx/s: 4980 ms (worst 4980 ms): MISSED\n",
		"checklist:\n  pass  warmup       30 s before every run\n  pass  interleaved  a b\nwarning: a warning\nended early: run 003: refused\n",
		"\nexperiment directory: /tmp/x (experiment.json, runs in runs/)\n",
	)
	if strings.Contains(out, "\n  c ") {
		t.Errorf("a variant that is not in the record shows:\n%s", out)
	}
	if strings.Contains(out, "same calls") {
		t.Errorf("a statement without a difference shows:\n%s", out)
	}
	// The header is attached to the title; each part after it is
	// separated by a blank line.
	if !strings.HasPrefix(out, "experiment x: two variants\n  tpcb-like") || !strings.Contains(out, "seed 7\n  injection: lock") {
		t.Errorf("header:\n%s", out)
	}
}

// TestExperimentSearch: a search shows the capacity report instead of the
// variant table. The record is one written before the interval (no rates,
// low or high): its single runs give the interval.
func TestExperimentSearch(t *testing.T) {
	cfg := capacity.Config{Quantile: 0.99, Limit: 50 * time.Millisecond}
	pass := capacity.Step{N: 2, Phase: capacity.PhaseFraction, Pass: true, Why: "p99 41 ms ≤ 50 ms",
		Probe: capacity.Probe{Kind: capacity.KindOpen, Rate: 300, Achieved: 300, Quantile: 41 * time.Millisecond, Dir: "runs/002"}}
	fail := capacity.Step{N: 3, Phase: capacity.PhaseFraction, Why: "p99 73 ms > 50 ms",
		Probe: capacity.Probe{Kind: capacity.KindOpen, Rate: 600, Achieved: 590, Quantile: 73 * time.Millisecond, Dir: "runs/003"}}
	rec := &experiment.Record{Name: "s", Model: "search", Clients: 8, Repeats: 1, Variants: []experiment.VariantRecord{{Name: "baseline"}},
		Search: &capacity.Result{Config: cfg, Ceiling: 1000, Steps: []capacity.Step{pass, fail}, Rate: 300, Pass: &pass, Fail: &fail, Stopped: capacity.StopMaxSteps}}
	out := text(t, Experiment(rec, "/tmp/s"))
	wantAll(t, "the search summary", out, "capacity search, 8 clients", "\ncapacity search: SLO p99", "capacity: between 300 and 600 tx/s at p99 ≤ 50 ms (1 run each)", "runs/003",
		"each end of the interval is a single run")
	if strings.Contains(out, "variant  runs") {
		t.Errorf("a search shows the variant table:\n%s", out)
	}
}

// rampRecord is a ramp of two levels, the second without
// pg_stat_statements.
func rampRecord(reason string) *experiment.Record {
	return &experiment.Record{Name: "r", Model: "ramp", Workload: "select-only", WarmupS: 10, WindowS: 120, StepS: 30, Repeats: 1,
		Variants: []experiment.VariantRecord{{Name: "base"}},
		Ramp: []experiment.RampLevel{
			{Variant: "base", Level: 50, Runs: []string{"base#1"}, TPS: 50, P50: 1.25, P99: 3, CallsPerSec: 50, RowsPerSec: 49.5,
				Waits: map[string]float64{"Timeout": 0.9, "IO": 0.1}},
			{Variant: "base", Level: 100, Runs: []string{"base#1"}, TPS: 100, StatementsMissing: reason, Waits: map[string]float64{"Timeout": 0.75}},
		},
		Warnings: []string{"collector: statements collector not started: " + reason},
	}
}

// TestExperimentRamp: a ramp's header gives its step duration, not the
// window; the waits are columns by type; a level without
// pg_stat_statements shows calls/s and rows/s as "—" with the reason, not 0.
func TestExperimentRamp(t *testing.T) {
	reason := `pg_stat_statements is not installed in database "postgres": add pg_stat_statements to shared_preload_libraries`
	out := text(t, Experiment(rampRecord(reason), "/tmp/r"))
	wantAll(t, "the summary", out,
		"warm-up 10 s before the first step, 30 s per step, 1 repeat per variant",
		"ramp (median over the repeats; waits: share of the samples of active sessions):\n",
		"  variant  level  runs  tps    p50 ms  p99 ms  calls/s  rows/s  IO %  Timeout %\n",
		"  base     50     1     50.0   1.25    3.00    50.0     49.5    10    90\n",
		"  calls/s, rows/s —: "+reason+"\n",
		"warning: collector: statements collector not started: "+reason,
	)
	if strings.Contains(out, "window") {
		t.Errorf("a ramp's header states the unused window:\n%s", out)
	}
	level100 := lineWith(out, "base", " 100 ")
	if f := strings.Fields(level100); len(f) < 10 || f[6] != "—" || f[7] != "—" || f[8] != "0" || f[9] != "75" {
		t.Errorf("level 100: %q, want calls/s and rows/s as —, IO 0 and Timeout 75", level100)
	}
}

// TestExperimentMarkdown: the summary renders as Markdown with its tables,
// the missing figures' reasons as a list.
func TestExperimentMarkdown(t *testing.T) {
	checkMarkdown(t, Experiment(twoVariants(), "/tmp/x"),
		"# experiment x: two variants\n",
		"| variant | runs | tps | p50 ms | p95 ms | p99 ms | p99.9 ms | skipped+dropped % |\n",
		"| a | 1 | 499.5 | 1.50 | 3.00 | 4980 | 5010 | 0.1 |\n",
		"**b against a (1 vs 1 runs; primary metric tps, 2 exploratory with Holm's correction)**\n",
		"| pass | interleaved |  | a b |\n",
		"- warning: a warning\n",
	)
	reason := "pg_stat_statements is not installed"
	checkMarkdown(t, Experiment(rampRecord(reason), "/tmp/r"),
		"| base | 100 | 1 | 100.0 | 0.000 | 0.000 | — | — | 0 | 75 |\n",
		"- calls/s, rows/s —: pg\\_stat\\_statements is not installed\n",
	)
}

// TestExperimentCalibration: the calibration's sentence and its window
// split are in the header, after the protocol's line.
func TestExperimentCalibration(t *testing.T) {
	rec := twoVariants()
	rec.Calibration = experiment.Calibrated("a", "tps", []float64{1000, 1020, 980, 1010},
		[][]float64{{990, 1010, 1000, 1005, 995}, {1015, 1025, 1020, 1018, 1022}, {985, 975, 980, 982, 978}, {1012, 1008, 1010, 1011, 1009}}, 0.05, 1)
	out := text(t, Experiment(rec, "/tmp/x"))
	wantAll(t, "the summary", out,
		"seed 7\n  calibration: 4 runs of a: tps CV 1.7 %; detecting ±5 % needs 4 runs a side at 80 % power (the experiment has 1)\n"+
			"  calibration: of tps CV 1.7 %, 0.2 % is within runs",
		"most of the spread is between runs",
	)
}
