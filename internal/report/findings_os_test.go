package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// TestFindingsOSText renders a synthetic run's alarms, associations and
// Pareto as text: the alarm table lists every condition (0 % said as "no
// alarm"), the ranking says "association" and "not causes", the Pareto
// lists stop at 80 %, and no query text escapes redaction.
func TestFindingsOSText(t *testing.T) {
	dir := t.TempDir()
	run, err := resultstest.WriteRun(dir, resultstest.Options{Seed: 5, StallAt: 20 * time.Second, StallFor: 6 * time.Second, Query: "ALTER ROLE bench PASSWORD 'secret-literal'"})
	if err != nil {
		t.Fatal(err)
	}
	f := explain.Run(dir, run, explain.Defaults())
	var b strings.Builder
	if err := WriteText(&b, (&Doc{Title: "findings"}).Add(RunFindingsBlocks(f)...)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Logf("\n%s", out)
	for _, want := range []string{
		"OS alarms (share of the 60 measured intervals", "iowait", "wa > 10 % of CPU time", "held in no interval: ", "MemAvailable < 5 % of RAM",
		"associations of waits with slowdown across", "associations, not causes", "Lock", "association",
		"Pareto: the wait events that make 80 % of active samples", "Pareto: the statements that make 80 % of execution time",
		"shared blocks hit + read",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text lacks %q", want)
		}
	}
	if strings.Contains(out, "secret-literal") {
		t.Errorf("a literal of a query reached the text")
	}
}

// TestLevelFindingsText renders an experiment's associations across runs
// and its alarms per variant and level.
func TestLevelFindingsText(t *testing.T) {
	in := &explain.ExperimentInput{By: "clients", Levels: []float64{2, 4, 6, 8}, Variants: []string{"a"}}
	for i, l := range in.Levels {
		for rep := range 2 {
			dir := t.TempDir()
			run, err := resultstest.WriteRun(dir, resultstest.Options{Seed: uint64(10*i + rep), Duration: 30 * time.Second, StallAt: 10 * time.Second, StallFor: time.Duration(i+1) * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			run.Findings = nil // the alarms are computed from the directory
			in.Runs = append(in.Runs, explain.ExpRun{Variant: "a", Level: l, Repeat: rep + 1, Dir: dir, Run: run})
		}
	}
	f := explain.Experiment(in, explain.Defaults())
	if f.Associations == nil || len(f.Alarms) != 4 {
		t.Fatalf("associations %v, %d alarm rows; warnings %v", f.Associations, len(f.Alarms), f.Warnings)
	}
	if _, err := json.Marshal(f); err != nil {
		t.Fatalf("the experiment's findings do not encode (NaN?): %v", err)
	}
	var b strings.Builder
	if err := WriteText(&b, (&Doc{Title: "findings"}).Add(ExperimentFindingsBlocks(f)...)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Logf("\n%s", out)
	for _, want := range []string{"the level removed (8 runs, 4 levels, 1 variant; associations, not causes)", "partial r", "within r p99",
		"OS alarms per variant and level", "free memory"} {
		if !strings.Contains(out, want) {
			t.Errorf("the text lacks %q", want)
		}
	}
}

// TestVariantParetoText: an experiment's Pareto per variant names the
// variant and its runs in every title.
func TestVariantParetoText(t *testing.T) {
	p := &results.Pareto{Share: 0.8, Waits: []stats.Item{{Name: "Lock:relation", Value: 80, Share: 0.8, Cumulative: 0.8}}, WaitsTotal: 100, WaitsOf: 3,
		StmtsMissing: "pg_stat_statements is not installed"}
	var b strings.Builder
	if err := WriteText(&b, &Doc{Blocks: ExperimentFindingsBlocks(&explain.ExperimentFindings{Pareto: []*explain.VariantPareto{{Variant: "sb16MB", Runs: 12, Pareto: p}}})}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Pareto of sb16MB, its 12 runs together: the wait events that make 80 % of active samples (1 of 3)",
		"Lock:relation", "missing (pg_stat_statements is not installed)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestRunAlarmsWithoutLevels: an experiment at one load (level 0) has no
// level column in its OS alarms, a ramp's has.
func TestRunAlarmsWithoutLevels(t *testing.T) {
	one := []*explain.RunAlarms{{Variant: "a", Runs: 2, Items: []explain.LevelAlarm{{Name: "iowait", Condition: "wa > 10 %", Runs: 2, Median: 0.5, Min: 0.4, Max: 0.6}}}}
	var b strings.Builder
	if err := WriteText(&b, (&Doc{}).Add(runAlarmsBlocks(one)...)); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "OS alarms per variant (") || strings.Contains(out, "level") {
		t.Errorf("one load:\n%s", out)
	}
	one[0].Level = 4
	b.Reset()
	if err := WriteText(&b, (&Doc{}).Add(runAlarmsBlocks(one)...)); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "OS alarms per variant and level") || !strings.Contains(out, "  a        4      2") {
		t.Errorf("a ramp:\n%s", out)
	}
}
