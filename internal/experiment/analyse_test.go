package experiment

import (
	"fmt"
	"math"
	"path/filepath"
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

// TestAnalysePairedRounds: an interleaved experiment's comparison carries
// the paired-by-round analysis of its primary metric, rounds matched by
// repeat (a failed run leaves its round out); a variant-by-variant one
// does not pair.
func TestAnalysePairedRounds(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	rec := &Record{Interleave: true, Variants: []VariantRecord{{Name: "base"}, {Name: "fast"}}}
	// 7 rounds; B 4 % faster; the machine slows 2 % a round; B's run of
	// round 4 failed.
	n := 0
	for rep := 1; rep <= 7; rep++ {
		for vi, v := range rec.Variants {
			n++
			rr := RunRecord{N: n, Variant: v.Name, Repeat: rep, Dir: fmt.Sprintf("runs/%03d-%s-%d", n, v.Name, rep)}
			if v.Name == "fast" && rep == 4 {
				rr.Error = "connection lost"
				rec.Runs = append(rec.Runs, rr)
				continue
			}
			tps := 1000 * (1 - 0.02*float64(rep)) * (1 + 0.04*float64(vi)) * (1 + 0.001*float64(rep*vi))
			run := &results.Run{StartedAt: t0.Add(time.Duration(n) * time.Minute), Workload: results.Workload{Name: "tpcb-like"},
				Model: results.Model{Kind: results.ModelClosed, Clients: 8}}
			d, err := results.Create(filepath.Join(dir, rr.Dir), run)
			if err != nil {
				t.Fatal(err)
			}
			run.Summary = &results.Summary{Total: results.ScriptSummary{Committed: 60000, TPS: tps,
				Response: results.Percentiles{P50: 2, P95: 5, P99: 8, P999: 12, Max: 20}}}
			if err := d.Finish(run); err != nil {
				t.Fatal(err)
			}
			rr.TPS = tps
			rec.Runs = append(rec.Runs, rr)
		}
	}
	r := &runner{spec: &Spec{Protocol: Protocol{Repeats: 7, Interleave: true}}, env: Env{Dir: dir}, rec: rec}
	r.analyse()
	if len(rec.Comparisons) != 1 {
		t.Fatalf("%d comparisons", len(rec.Comparisons))
	}
	p := rec.Comparisons[0].Paired
	if p == nil {
		t.Fatal("no paired analysis in an interleaved experiment")
	}
	want := [][2]string{{"base#1", "fast#1"}, {"base#2", "fast#2"}, {"base#3", "fast#3"}, {"base#5", "fast#4"}, {"base#6", "fast#5"}, {"base#7", "fast#6"}}
	if p.Metric != "tps" || p.Rounds != 6 || fmt.Sprint(p.Runs) != fmt.Sprint(want) {
		t.Errorf("paired %s over %d rounds %v, want tps over 6 rounds %v", p.Metric, p.Rounds, p.Runs, want)
	}
	if !p.Ratio.OK || math.Abs(p.Ratio.Point-1.044) > 0.002 || !(p.Test.P < 0.05) || p.DriftText == "" {
		t.Errorf("paired: ratio %+v, p %v, drift %q", p.Ratio, p.Test.P, p.DriftText)
	}
	t.Logf("%s", p.Text)
	t.Logf("%s", p.DriftText)

	rec.Interleave = false
	rec.Comparisons = nil
	r.analyse()
	if len(rec.Comparisons) != 1 || rec.Comparisons[0].Paired != nil {
		t.Errorf("not interleaved: paired %+v", rec.Comparisons[0].Paired)
	}
}
