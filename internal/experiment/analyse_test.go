package experiment

import (
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/results"
)

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
