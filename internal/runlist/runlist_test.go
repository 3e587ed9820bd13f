package runlist

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
	"github.com/pgtrial/pgtrial/internal/stats"
)

func TestScan(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	// Two runs, the later one written first, one nested two levels down.
	late, err := resultstest.WriteRun(filepath.Join(root, "b", "late"), resultstest.Options{Start: t0.Add(time.Hour), Duration: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	early, err := resultstest.WriteRun(filepath.Join(root, "a"), resultstest.Options{Start: t0, Rate: -1, Duration: 10 * time.Second, Interrupted: true})
	if err != nil {
		t.Fatal(err)
	}
	// An experiment with a run of its own under runs/, which is not listed apart.
	exp := filepath.Join(root, "exp")
	if _, err := resultstest.WriteRun(filepath.Join(exp, "runs", "001"), resultstest.Options{Start: t0.Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	rec := experiment.Record{
		Schema: results.ExperimentSchema, Name: "sc", StartedAt: t0.Add(2 * time.Hour), Workload: "tpcb-like", Model: "closed", Clients: 4,
		Variants: []experiment.VariantRecord{{Name: "on"}, {Name: "off"}},
		Runs: []experiment.RunRecord{
			{N: 1, Variant: "on", TPS: 100, P99: 9},
			{N: 2, Variant: "off", TPS: 300, P99: 3},
			{N: 3, Variant: "on", TPS: 120, P99: 7},
			{N: 4, Variant: "on", TPS: 110, P99: 8},
			{N: 5, Variant: "on", TPS: 1, P99: 1, Error: "connection refused"},
		},
		Checks: []results.Check{{Name: "repeats", Status: "warn"}, {Name: "open_model", Status: "pass"}},
		Comparisons: []*compare.Report{{NameA: "on", NameB: "off", Primary: "tps", Model: results.Model{Kind: results.ModelClosed, Clients: 4}, Metrics: []compare.Metric{
			{Metric: "p99"},
			{Metric: "tps", Verdict: stats.VerdictResult{Outcome: stats.OutcomeDiffers, Ratio: stats.Interval{OK: true, Point: 2.5, Lo: 2.1, Hi: 2.9}}},
		}}},
	}
	if err := results.WriteExperiment(exp, &rec, nil); err != nil {
		t.Fatal(err)
	}
	// A run.json that is not one, and a run too deep to be found at depth 2.
	bad := filepath.Join(root, "bad")
	if err := os.MkdirAll(bad, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, results.RunFile), []byte(`{"schema":"other/v9"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := resultstest.WriteRun(filepath.Join(root, "d1", "d2", "d3"), resultstest.Options{Start: t0.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}

	got, err := Scan(root, 2)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range got {
		dirs = append(dirs, e.Dir)
	}
	// Oldest first; the error entry has no date and sorts first.
	if want := "bad a " + filepath.Join("b", "late") + " exp"; strings.Join(dirs, " ") != want {
		t.Fatalf("dirs %q, want %q", strings.Join(dirs, " "), want)
	}
	if got[0].Error == "" || !strings.Contains(got[0].Error, "unknown schema") {
		t.Errorf("bad run.json: error %q", got[0].Error)
	}
	a := got[1]
	if a.Kind != KindRun || a.Model != results.ModelClosed || !a.Interrupted || a.TPS == nil || *a.TPS != early.Summary.Total.TPS || a.P99 == nil || *a.P99 != early.Summary.Total.Response.P99 {
		t.Errorf("early run: %+v", a)
	}
	b := got[2]
	if b.Model != results.ModelOpen || b.Rate != late.Model.Rate || b.Interrupted || b.Workload != late.Workload.Name {
		t.Errorf("late run: %+v", b)
	}
	x := got[3]
	if x.Kind != KindExperiment || x.Runs != 5 || x.TPS == nil || *x.TPS != 110 || *x.P99 != 8 {
		t.Errorf("experiment: tps/p99 should be the median of the first variant's good runs: %+v", x)
	}
	if len(x.Verdicts) != 1 || x.Verdicts[0].NameB != "off" || x.Verdicts[0].Metric != "tps" || x.Verdicts[0].Outcome != stats.OutcomeDiffers || x.Verdicts[0].Ratio == nil || x.Verdicts[0].Ratio.Point != 2.5 {
		t.Errorf("verdicts %+v", x.Verdicts)
	}
	if x.Checks["warn"] != 1 || x.Checks["pass"] != 1 {
		t.Errorf("checks %v", x.Checks)
	}

	deep, err := Scan(root, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(deep) != 5 || deep[1].Dir != filepath.Join("d1", "d2", "d3") {
		t.Errorf("depth 4 should find d1/d2/d3 (oldest): %+v", deep)
	}
}

func TestScanRefusesAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Scan(f, 0); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("err %v", err)
	}
	if _, err := Scan(filepath.Join(f, "missing"), 0); err == nil {
		t.Error("a missing root should be an error")
	}
}
