package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeCommand: pgtrial analyze writes a run directory of a log and
// prints its summary; bad input exits 1.
func TestAnalyzeCommand(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "pgbench_log.7")
	if err := os.WriteFile(log, []byte("0 1 1500 0 1796345400 100000 20\n1 1 skipped 0 1796345400 200000 0\n0 2 2500 0 1796345401 300000 30\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	code, stdout, stderr := runCLI(t, "analyze", "--dir", run, log)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"pgbench log (1 files, 3 lines, transactions)", "open model", "total: 2 committed",
		"response    1.500", "skipped 1", "not in the pgbench log", "run directory: " + run} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(run, "latency.hlog")); err != nil {
		t.Error(err)
	}
	code, stdout, _ = runCLI(t, "analyze", "--json", "--dir", filepath.Join(dir, "run2"), log)
	if code != 0 || !strings.Contains(stdout, `"committed": 2`) {
		t.Errorf("--json: exit %d\n%s", code, stdout)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("hello\n"), 0o600)
	if code, _, stderr := runCLI(t, "analyze", "--dir", filepath.Join(dir, "run3"), bad); code != 1 || !strings.Contains(stderr, bad+":1:") {
		t.Errorf("bad log: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "analyze", "--col7", "x", log); code != 1 || !strings.Contains(stderr, "--col7") {
		t.Errorf("--col7 x: exit %d, %s", code, stderr)
	}
}
