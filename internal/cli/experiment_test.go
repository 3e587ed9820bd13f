package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// TestExperimentCommand: --check validates without connecting; a bad file
// is exit 1 with file:line:column and the key; an experiment runs against
// --url and prints experiment.json with --json.
func TestExperimentCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(`
name: cmd
workload: {builtin: select-only, scale: 1}
load: {clients: 2, rate: 100}
protocol: {warmup: 1s, window: 2s, repeats: 2}
variants: [{name: a}, {name: b, settings: {work_mem: 8MB}}]
collect: false
`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("load:\n  rate: 100\n  clinets: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCLI(t, "experiment", "--check", good)
	if code != 0 || !strings.Contains(out, "the file is valid") {
		t.Errorf("--check good: exit %d, %q %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "experiment", "--check", bad)
	if code != 1 || !strings.Contains(errOut, "bad.yaml:3:3") || !strings.Contains(errOut, "load.clinets") || !strings.Contains(errOut, "clients") {
		t.Errorf("--check bad: exit %d, %q", code, errOut)
	}

	url := pgtest.ConnString(t)
	pgtest.Measure(t)
	expDir := filepath.Join(dir, "exp")
	code, out, errOut = runCLI(t, "experiment", "--url", url, "--dir", expDir, "--json", "--quiet", good)
	if code != 0 {
		t.Fatalf("experiment: exit %d\n%s", code, errOut)
	}
	var rec experiment.Record
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(rec.Runs) != 4 || len(rec.Comparisons) != 1 || rec.Variants[1].Effective["work_mem"] != "8MB" {
		t.Errorf("record: %d runs, %d comparisons, variants %+v", len(rec.Runs), len(rec.Comparisons), rec.Variants)
	}
	for _, r := range rec.Runs {
		if _, err := os.Stat(filepath.Join(expDir, r.Dir, "run.json")); err != nil {
			t.Errorf("run %d: %v", r.N, err)
		}
	}
	if strings.Contains(errOut, "password") {
		t.Errorf("stderr mentions a password: %s", errOut)
	}
	// The directory holds an experiment now: a second one is refused.
	code, _, errOut = runCLI(t, "experiment", "--url", url, "--dir", expDir, "--quiet", good)
	if code != 1 || !strings.Contains(errOut, "already holds an experiment") {
		t.Errorf("second run into the same directory: exit %d, %q", code, errOut)
	}
}

// TestExampleExperimentsAreValid: every file in docs/examples passes
// `experiment --check` (the README points users at them).
func TestExampleExperimentsAreValid(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example experiments in docs/examples (%v)", err)
	}
	for _, f := range files {
		if code, out, errOut := runCLI(t, "experiment", "--check", f); code != 0 || !strings.Contains(out, "the file is valid") {
			t.Errorf("%s: exit %d, %q %q", f, code, out, errOut)
		}
	}
}
