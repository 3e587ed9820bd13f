package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// rampFindingsRecord is a ramp of 2 levels × 3 repeats of two variants of
// synthetic run directories, with its findings.
func rampFindingsRecord(t *testing.T) (*experiment.Record, string) {
	t.Helper()
	dir := t.TempDir()
	in := &explain.ExperimentInput{Dir: dir, By: "clients", Levels: []float64{2, 4}, Variants: []string{"base", "more"}, Interleaved: true}
	rec := &experiment.Record{Name: "ramp-findings", Model: "ramp", Workload: "tpcb-like", Repeats: 3,
		Variants: []experiment.VariantRecord{{Name: "base"}, {Name: "more"}}}
	seed := uint64(1)
	for _, level := range in.Levels {
		for rep := 1; rep <= 3; rep++ {
			for _, v := range in.Variants {
				name := fmt.Sprintf("%s-c%g-r%d", v, level, rep)
				rd := filepath.Join(dir, "runs", name)
				if err := os.MkdirAll(filepath.Dir(rd), 0o700); err != nil {
					t.Fatal(err)
				}
				seed++
				run, err := resultstest.WriteRun(rd, resultstest.Options{Duration: 6 * time.Second, Seed: seed, Rate: -1, Clients: int(level),
					Query: "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2 " + resultstest.XSS})
				if err != nil {
					t.Fatal(err)
				}
				in.Runs = append(in.Runs, explain.ExpRun{Variant: v, Level: level, Repeat: rep, Dir: rd, Run: run})
				rec.Runs = append(rec.Runs, experiment.RunRecord{Variant: v, Level: level, Repeat: rep, Phase: "step", Dir: "runs/" + name, Clients: int(level)})
			}
		}
	}
	rec.Findings = explain.Experiment(in, explain.Defaults())
	return rec, dir
}

func TestRampFindingsText(t *testing.T) {
	rec, _ := rampFindingsRecord(t)
	if rec.Findings.Ramp == nil || len(rec.Findings.Variants) != 1 {
		t.Fatalf("findings: %+v", rec.Findings)
	}
	out := text(t, &Doc{Blocks: ExperimentFindingsBlocks(rec.Findings)})
	wantAll(t, "the ramp findings", out,
		"ramp findings: base per level", "ramp findings: more per level",
		"calls/s", "rows/s", "top waits", "CPU ", "us %", "wa %", "free MiB", "disk util %",
		"runs base-c2-r1, base-c2-r2, base-c2-r3; top wait events ", "sessions)",
		"top statements by time and by shared blocks", "UPDATE pgbench_accounts",
		"trends over the ramp", "R²", "an association of the figure with the load",
		"knee: the knee is the first level", "no knee in the levels measured",
		"more against base over the ramp (runs paired by level and repeat)",
		"operational speed (calls/s)", "Wilcoxon signed-rank over 6 level×repeat pairs",
		"more against base per level", "3 vs 3 runs cannot decide")
}

func TestRampFindingsFigures(t *testing.T) {
	rec, dir := rampFindingsRecord(t)
	d, err := ExperimentReport(dir, rec)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, b := range d.Blocks {
		if f, ok := b.(*Figure); ok {
			for _, c := range f.Charts {
				titles = append(titles, c.Title)
			}
		}
	}
	all := strings.Join(titles, "\n")
	wantAll(t, "the report's charts", all, "operational speed per level", "response p99 per level", "vmstat us + sy")
	var b strings.Builder
	if err := WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), resultstest.XSS) {
		t.Error("the HTML holds the statement's text unescaped")
	}
	checkMarkdown(t, d, "ramp findings: base per level")
}

// TestVariantChangeFixedLoadText: a fixed load, one run a side: the figures
// compare has not (speed, vmstat, disk) are described, not judged.
func TestVariantChangeFixedLoadText(t *testing.T) {
	dir := t.TempDir()
	in := &explain.ExperimentInput{Dir: dir, Variants: []string{"base", "more"}}
	for i, v := range in.Variants {
		rd := filepath.Join(dir, v)
		run, err := resultstest.WriteRun(rd, resultstest.Options{Duration: 5 * time.Second, Seed: uint64(i + 1), Rate: -1})
		if err != nil {
			t.Fatal(err)
		}
		in.Runs = append(in.Runs, explain.ExpRun{Variant: v, Repeat: 1, Dir: rd, Run: run})
	}
	f := explain.Experiment(in, explain.Defaults())
	if f.Ramp != nil || len(f.Variants) != 1 {
		t.Fatalf("findings: %+v", f)
	}
	out := text(t, &Doc{Blocks: ExperimentFindingsBlocks(f)})
	wantAll(t, "the fixed load's findings", out, "more against base, the figures the comparison above has not", "calls/s", "described")
	if strings.Contains(out, "over the ramp") {
		t.Errorf("a fixed load has no ramp:\n%s", out)
	}
}
