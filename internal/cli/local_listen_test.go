package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// TestLocalStaysOnLoopback: after ALTER SYSTEM SET listen_addresses = '*'
// and `local stop`, `local start`, the cluster listens on 127.0.0.1 only (by
// the kernel's socket tables), and `local status` says so on its listening
// line (defect 6 of issue 14: it listened on 0.0.0.0 and [::], and status
// did not show where it listened).
func TestLocalStaysOnLoopback(t *testing.T) {
	dir := localDir(t)
	d := []string{"--dir", dir}
	local := func(sub string, rest ...string) []string {
		return append(append([]string{"local", sub}, d...), rest...)
	}
	out, _ := mustRun(t, 0, local("start")...)
	url := lastLine(out)
	pgtest.Exec(t, url, "ALTER SYSTEM SET listen_addresses = '*'")
	mustRun(t, 0, local("stop")...)
	mustRun(t, 0, local("start")...)

	m := regexp.MustCompile(`(?m)^port: +(\d+)$`).FindStringSubmatch(mustRunOut(t, local("status")...))
	if m == nil {
		t.Fatal("no port line in status")
	}
	port, _ := strconv.Atoi(m[1])
	got, err := localpg.TCPListeners(0, port)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].String() != fmt.Sprintf("127.0.0.1:%d", port) {
		t.Errorf("with listen_addresses = '*' in postgresql.auto.conf, after stop and start: listening on %v, want 127.0.0.1:%d only", got, port)
	}
	status := mustRunOut(t, local("status")...)
	if want := fmt.Sprintf("\nlistening: 127.0.0.1:%d\n", port); !strings.Contains(status, want) {
		t.Errorf("status lacks %q:\n%s", strings.TrimSpace(want), status)
	}
}

func mustRunOut(t *testing.T, args ...string) string {
	t.Helper()
	out, _ := mustRun(t, 0, args...)
	return out
}

// TestExperimentCheckRefusesLocalListen: `experiment --check` refuses a
// variant that moves the local cluster off loopback, at its line and
// column (defect 6 of issue 14: it passed the check).
func TestExperimentCheckRefusesLocalListen(t *testing.T) {
	file := filepath.Join(t.TempDir(), "open.yaml")
	spec := "target: {local: true}\nload: {rate: 10}\nvariants:\n  - name: open\n    settings:\n      listen_addresses: \"*\"\n"
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "experiment", "--check", file)
	if code != exitBadInput || !strings.Contains(errOut, file+":6:7: variants[0].settings.listen_addresses: listen_addresses says where the server listens") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
