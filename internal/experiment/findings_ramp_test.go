package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// TestExperimentRampFindings: a small ramp (2 → 4 clients, 1 s steps, 3
// repeats) of two variants that differ in a setting needing no restart, on
// a real server: the findings hold per level non-zero calls/s, waits by
// type and by event, the vmstat columns, the variant's changes with
// intervals over the 6 level×repeat pairs, and trends with R².
func TestExperimentRampFindings(t *testing.T) {
	url := measuredStatementsDB(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sleep.sql"), []byte("SELECT pg_sleep(0.01);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ramp.yaml")
	if err := os.WriteFile(path, []byte(`
workload: {scripts: [{file: sleep.sql}]}
load: {ramp: {by: clients, from: 2, to: 4, steps: 2, step_duration: 1s}}
protocol: {warmup: 500ms, repeats: 3}
variants:
  - {name: wm4, settings: {work_mem: 4MB}}
  - {name: wm8, settings: {work_mem: 8MB}}
interval: 250ms
`), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	env, log := testEnv(t, url, nil)
	rec := execute(t, spec, env, log)
	f := rec.Findings
	if f == nil || f.Ramp == nil {
		t.Fatalf("no ramp findings: %+v\n%s", f, log)
	}
	if len(f.Ramp.Cells) != 4 {
		t.Fatalf("%d ramp cells, want 2 variants × 2 levels", len(f.Ramp.Cells))
	}
	for _, c := range f.Ramp.Cells {
		if len(c.Runs) != 3 {
			t.Errorf("%s at %g: runs %v, want 3", c.Variant, c.Level, c.Runs)
		}
		if s := c.Figure(explain.FigCalls); s == nil || s.N == 0 || !(s.Median > 0) {
			t.Errorf("%s at %g: calls/s %+v, want > 0", c.Variant, c.Level, s)
		}
		hasType, hasEvent := false, false
		for _, s := range c.Figures {
			hasType = hasType || (strings.HasPrefix(s.Name, "wait ") && s.N > 0)
			hasEvent = hasEvent || (strings.HasPrefix(s.Name, "event ") && s.N > 0)
		}
		if !hasType || !hasEvent {
			t.Errorf("%s at %g: waits by type %v, by event %v: want both", c.Variant, c.Level, hasType, hasEvent)
		}
		for _, col := range []string{"r", "b", "us", "sy", "wa", "id", "free"} {
			if s := c.Figure(col); s == nil || s.N == 0 {
				t.Errorf("%s at %g: vmstat %s: %+v", c.Variant, c.Level, col, s)
			}
		}
	}
	if len(f.Variants) != 1 || len(f.Variants[0].Levels) != 2 {
		t.Fatalf("variant changes: %+v", f.Variants)
	}
	var speed *explain.Change
	for _, c := range f.Variants[0].OverRamp {
		if c.Figure == explain.FigCalls {
			speed = c
		}
	}
	if speed == nil || speed.Pairs != 6 || !speed.IntervalOK || speed.Role != stats.RolePrimary ||
		!strings.Contains(speed.Text, "Wilcoxon signed-rank over 6 level×repeat pairs") {
		t.Errorf("speed over the ramp: %+v", speed)
	}
	var tpsTrend *explain.Trend
	for _, tr := range f.Ramp.Trends {
		if tr.Variant == "wm4" && tr.Figure == explain.FigTPS {
			tpsTrend = tr
		}
	}
	if tpsTrend == nil || !tpsTrend.OK || tpsTrend.N != 6 || tpsTrend.R2 < 0 || tpsTrend.R2 > 1 {
		t.Errorf("tps trend: %+v", tpsTrend)
	}
	if len(f.Ramp.Knees) != 2 || f.Ramp.Knees[0].Rule != explain.KneeRule {
		t.Errorf("knees: %+v", f.Ramp.Knees)
	}
}
