package experiment

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/capacity"
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
