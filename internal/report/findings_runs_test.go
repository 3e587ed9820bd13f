package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
	"github.com/pgtrial/pgtrial/schema"
)

// TestExperimentRunFindings: the experiment's summary lists each run with
// a change in one line (its changes and its tail), counts the quiet ones,
// and leaves out runs whose run.json has no findings.
func TestExperimentRunFindings(t *testing.T) {
	dir := t.TempDir()
	rel := func(i int) string { return filepath.Join("runs", []string{"001-a-r1", "002-a-r2", "003-a-r3"}[i]) }
	rec := &experiment.Record{}
	drop := -0.99
	for i := range 3 {
		run, err := resultstest.WriteRun(filepath.Join(dir, rel(i)), resultstest.Options{Seed: uint64(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		rec.Runs = append(rec.Runs, experiment.RunRecord{N: i + 1, Variant: "a", Repeat: i + 1, Dir: rel(i)})
		switch i {
		case 0: // a change matched to a lock, and its tail
			run.Findings = &results.Findings{Schema: results.FindingsSchema,
				Changes: &results.Changes{MatchS: 3, Changes: []results.Change{{Series: "tps", Unit: "tx/s", AtS: 12, Before: 100, After: 1, Relative: &drop,
					Matched: []results.ChangeMatch{{Kind: results.OccurStall, Label: "injected lock on <b>t</b>, 3 s", Edge: "start", AtS: 12}}}}},
				Tail: &results.Tail{Summary: []string{"of 30 transactions above p99 (2757 ms), 26 (87 %) waited on Lock:relation (t)", "second sentence"}}}
		case 1: // no change
			run.Findings = &results.Findings{Schema: results.FindingsSchema, Changes: &results.Changes{MatchS: 3}}
		}
		rewriteRun(t, filepath.Join(dir, rel(i)), run)
	}
	var b strings.Builder
	if err := WriteText(&b, &Doc{Blocks: experimentRunFindingsBlocks(rec, dir)}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{runFindingsTitle,
		"001-a-r1: tps ÷100 (100 → 1 tx/s) at 12 s, with injected lock on <b>t</b>, 3 s from 12 s; tail: of 30 transactions above p99",
		"1 other run of 2: no level shift"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "second sentence") || strings.Contains(out, "003-a-r3") {
		t.Errorf("more than the tail's first sentence, or a run without findings:\n%s", out)
	}
	// No run with a change: no block.
	rec.Runs = rec.Runs[1:]
	if bs := experimentRunFindingsBlocks(rec, dir); bs != nil {
		t.Errorf("blocks without a change: %+v", bs)
	}
}

// rewriteRun writes run as dir's run.json (the test's own findings).
func rewriteRun(t *testing.T, dir string, run *results.Run) {
	t.Helper()
	run.Schema = results.Schema
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(schema.Run, data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.RunFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
}
