package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// A client count the server cannot take is refused before anything is
// dialled or written, as a setup error (exit 1), with the limit's figures;
// --connect-rate must be a positive rate. (The refusal dials nothing, so
// the shared cluster's slots are not touched.)
func TestRunRefusesTooManyClients(t *testing.T) {
	url := pgtest.ConnString(t)
	tmp := t.TempDir()
	runDir := filepath.Join(tmp, "rd")
	t0 := time.Now()
	code, _, errOut := runCLI(t, "run", url, "--closed", "-T", "2s", "-c", "100000", "-f", connTestScript(t, tmp), "--run-dir", runDir)
	if took := time.Since(t0); took > 5*time.Second {
		t.Errorf("refused after %v", took)
	}
	if code != exitBadInput {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitBadInput, errOut)
	}
	for _, want := range []string{"pgtrial: error: -c 100000: the server accepts at most ", "(max_connections ", " in use − ", "for pgtrial's collectors); use fewer clients or raise max_connections"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if _, err := os.Stat(runDir); !os.IsNotExist(err) {
		t.Errorf("the refused run left %s: %v", runDir, err)
	}

	for _, bad := range []string{"0", "-5", "NaN"} {
		code, _, errOut := runCLI(t, "run", url, "--closed", "--connect-rate", bad, "--run-dir", runDir)
		if code != exitBadInput || !strings.Contains(errOut, "invalid --connect-rate") {
			t.Errorf("--connect-rate %s: exit %d, stderr %q", bad, code, errOut)
		}
	}
}

func connTestScript(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "s.sql")
	if err := os.WriteFile(p, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
