package experiment

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/capacity"
	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/results"
)

// TestWriteText: the summary of a record made by hand shows each part,
// without a database.
func TestWriteText(t *testing.T) {
	rec := &Record{
		Name: "x", Description: "two variants", Workload: "tpcb-like", Scale: 10, Model: "open", Rate: 500, Clients: 8,
		Target:  results.Target{Host: "127.0.0.1", Port: 5432, Database: "bench", ServerVersion: "17.2"},
		WarmupS: 30, WindowS: 120, Repeats: 1, Interleave: true, Seed: 7,
		Variants:   []VariantRecord{{Name: "a"}, {Name: "b"}},
		Injections: []InjectionPlanned{{Kind: "lock", AtS: 20, Table: "pgbench_branches", DurationS: 5}},
		Runs: []RunRecord{
			{N: 1, Variant: "a", TPS: 499.5, P50: 1.5, P95: 3, P99: 4980, P999: 5010, SkippedShare: 0.001},
			{N: 2, Variant: "b", TPS: 500.2, P50: 1.2, P95: 2.5, P99: 4870, P999: 4990},
			{N: 3, Variant: "c", Error: "run 003: refused", TPS: 0},
		},
		SLOs:     []SLOResult{{SLO: "p99 ≤ 100ms", Variant: "a", Rate: 500, Median: 4980, Worst: 4980, LimitMs: 100, Runs: 1}},
		Warnings: []string{"a warning"},
		Error:    "run 003: refused",
	}
	var b bytes.Buffer
	WriteText(&b, rec, "/tmp/x")
	out := b.String()
	for _, want := range []string{
		"experiment x: two variants", "tpcb-like (scale 10) on 127.0.0.1:5432/bench (PostgreSQL 17.2); open model at 500 tx/s, 8 clients",
		"1 repeat per variant, interleaved", "injection: lock pgbench_branches at 20s for 5s",
		"a        1     499.5  1.50    3.00    4980", "p99 ≤ 100ms at 500 tx/s: 4980 ms (worst 4980 ms): MISSED",
		"warning: a warning", "ended early: run 003: refused", "experiment directory: /tmp/x",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\nc ") {
		t.Errorf("a variant that is not in the record shows:\n%s", out)
	}

	// A search: the capacity report instead of the variant table.
	cfg := capacity.Config{Quantile: 0.99, Limit: 50 * time.Millisecond}
	pass := capacity.Step{N: 2, Phase: capacity.PhaseFraction, Pass: true, Why: "p99 41 ms ≤ 50 ms",
		Probe: capacity.Probe{Kind: capacity.KindOpen, Rate: 300, Achieved: 300, Quantile: 41 * time.Millisecond, Dir: "runs/002"}}
	fail := capacity.Step{N: 3, Phase: capacity.PhaseFraction, Why: "p99 73 ms > 50 ms",
		Probe: capacity.Probe{Kind: capacity.KindOpen, Rate: 600, Achieved: 590, Quantile: 73 * time.Millisecond, Dir: "runs/003"}}
	rec = &Record{Name: "s", Model: "search", Clients: 8, Repeats: 1, Variants: []VariantRecord{{Name: "baseline"}},
		Search: &capacity.Result{Config: cfg, Ceiling: 1000, Steps: []capacity.Step{pass, fail}, Rate: 300, Pass: &pass, Fail: &fail, Stopped: capacity.StopMaxSteps}}
	b.Reset()
	WriteText(&b, rec, "/tmp/s")
	out = b.String()
	if !strings.Contains(out, "capacity search, 8 clients") || !strings.Contains(out, "capacity: 300 tx/s") || strings.Contains(out, "variant  runs") {
		t.Errorf("search summary:\n%s", out)
	}
}

// TestWriteTextRamp: a ramp's header gives its step duration, not the
// window; a level without pg_stat_statements shows calls/s and rows/s as
// "—" with the reason, not 0.
func TestWriteTextRamp(t *testing.T) {
	reason := `pg_stat_statements is not installed in database "postgres": add pg_stat_statements to shared_preload_libraries`
	rec := &Record{Name: "r", Model: "ramp", Workload: "select-only", WarmupS: 10, WindowS: 120, StepS: 30, Repeats: 1,
		Variants: []VariantRecord{{Name: "base"}},
		Ramp: []RampLevel{
			{Variant: "base", Level: 50, Runs: []string{"base#1"}, TPS: 50, CallsPerSec: 50, RowsPerSec: 50},
			{Variant: "base", Level: 100, Runs: []string{"base#1"}, TPS: 100, StatementsMissing: reason},
		},
		Warnings: []string{"collector: statements collector not started: " + reason},
	}
	var b bytes.Buffer
	WriteText(&b, rec, "/tmp/r")
	out := b.String()
	for _, want := range []string{
		"warm-up 10s before the first step, 30s per step, 1 repeat per variant",
		"calls/s, rows/s —: " + reason,
		"warning: collector: statements collector not started: " + reason,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "window 120s") {
		t.Errorf("a ramp's header states the unused window:\n%s", out)
	}
	var level100 string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "base") && strings.Contains(line, " 100 ") {
			level100 = line
		}
	}
	if f := strings.Fields(level100); len(f) < 8 || f[6] != "—" || f[7] != "—" {
		t.Errorf("level 100: %q, want calls/s and rows/s as —", level100)
	}
}

// rampLevel: runs without statement evidence give the reason, not 0.
func TestRampLevelMissingStatements(t *testing.T) {
	from := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	run := func(ev *results.Evidence) compare.RunRef {
		return compare.RunRef{Label: "v#1", Run: &results.Run{Summary: &results.Summary{}, Evidence: ev}}
	}
	missing := &results.Evidence{From: from, To: from.Add(10 * time.Second)}
	missing.SetMissing(results.EvidenceStatements, "pg_stat_statements is not installed")
	l := rampLevel("v", 10, []compare.RunRef{run(missing)})
	if l.StatementsMissing != "pg_stat_statements is not installed" || l.CallsPerSec != 0 {
		t.Errorf("level %+v, want the reason", l)
	}
	got := rampLevel("v", 10, []compare.RunRef{run(&results.Evidence{From: from, To: from.Add(10 * time.Second), Calls: 500, Rows: 1000}), run(missing)})
	if got.StatementsMissing != "" || got.CallsPerSec != 50 || got.RowsPerSec != 100 {
		t.Errorf("level with one run's statements: %+v", got)
	}
}

// TestOrder: interleaved rounds (A B A B) or variant after variant.
func TestOrder(t *testing.T) {
	spec := &Spec{Protocol: Protocol{Repeats: 2, Interleave: true}, Variants: []Variant{{Name: "a"}, {Name: "b"}, {Name: "c"}}}
	r := &runner{spec: spec}
	got := func() string {
		var s []string
		for _, p := range r.order() {
			s = append(s, spec.Variants[p.variant].Name+string(rune('0'+p.repeat)))
		}
		return strings.Join(s, " ")
	}
	if g := got(); g != "a1 b1 c1 a2 b2 c2" {
		t.Errorf("interleaved: %s", g)
	}
	spec.Protocol.Interleave = false
	if g := got(); g != "a1 a2 b1 b2 c1 c2" {
		t.Errorf("not interleaved: %s", g)
	}
}
