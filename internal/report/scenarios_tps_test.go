package report

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// A run report made from the directory alone shows run.json's scenarios: the overview
// table and each scenario's latency table, and in the timeline one tps series per
// scenario, on the timeline's intervals, adding up to the timeline's tps.
func TestRunReportScenarios(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := resultstest.WriteRun(dir, resultstest.Options{Seed: 3, Scripts: 3, Scenarios: [][]int{{0, 2}, {1}}, StallFor: -1}); err != nil {
		t.Fatal(err)
	}
	d := makeReport(t, dir)
	all := allText(d)
	for _, want := range []string{"summary, 2 concurrent scenarios", "summary, scenario s1 (closed, 1 client, 1 thread)", "summary, scenario s2",
		"What do 2 concurrent scenarios see: s1 from 1 client (closed model), s2 "} {
		if !strings.Contains(all, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	tl := figure(t, d, "timeline")
	var tps, s1, s2 []float64
	for _, c := range tl.Charts {
		if c.ID != "timeline-tps" {
			continue
		}
		for _, s := range c.Series {
			switch s.Name {
			case "tps":
				tps = s.Y
			case "tps s1":
				s1 = s.Y
			case "tps s2":
				s2 = s.Y
			}
		}
	}
	if len(tps) == 0 || len(s1) != len(tps) || len(s2) != len(tps) {
		t.Fatalf("series: tps %d points, tps s1 %d, tps s2 %d; want the same number", len(tps), len(s1), len(s2))
	}
	timeline, err := results.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tps {
		// No transaction is cut at the end here: the service counts are the committed.
		if math.IsNaN(s1[i]) || math.IsNaN(s2[i]) || math.Abs(s1[i]+s2[i]-tps[i]) > 1e-9*max(1, tps[i]) {
			t.Fatalf("interval %d (%.3f s): s1 %.3f + s2 %.3f tps, the timeline's %.3f", i, timeline[i].Elapsed, s1[i], s2[i], tps[i])
		}
		if s1[i] == 0 || s2[i] == 0 {
			t.Errorf("interval %d: a scenario has no transactions (s1 %.1f, s2 %.1f)", i, s1[i], s2[i])
		}
	}
	// Without scenarios, no such series.
	plain := filepath.Join(t.TempDir(), "plain")
	if _, err := resultstest.WriteRun(plain, resultstest.Options{Seed: 3, Scripts: 3}); err != nil {
		t.Fatal(err)
	}
	if all := allText(makeReport(t, plain)); strings.Contains(all, "tps s1") || strings.Contains(all, "concurrent scenarios") {
		t.Error("a run without scenarios shows scenario series or tables")
	}
}
