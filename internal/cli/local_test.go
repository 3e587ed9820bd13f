package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// localDir returns a --dir for a test cluster that the server's OS user can reach
// (as root, t.TempDir()'s parent is mode 0700) and destroys the cluster at the end.
func localDir(t *testing.T) string {
	t.Helper()
	if _, err := localpg.FindBinaries(localpg.FindOptions{}); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("no PostgreSQL binaries: %v", err)
	}
	d := t.TempDir()
	if err := os.Chmod(filepath.Dir(d), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(d, "cluster")
	t.Cleanup(func() { runCLI(t, "local", "destroy", "--dir", dir) })
	return dir
}

var urlRE = regexp.MustCompile(`(?m)^postgres://postgres@127\.0\.0\.1:\d+/(\w+)\?sslmode=disable$`)

func mustRun(t *testing.T, wantCode int, args ...string) (string, string) {
	t.Helper()
	code, out, errOut := runCLI(t, args...)
	if code != wantCode {
		t.Fatalf("pgtrial %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantCode, out, errOut)
	}
	return out, errOut
}

func showSetting(t *testing.T, url, name string) string {
	t.Helper()
	var v string
	pgtest.QueryRow(t, url, "SELECT current_setting($1)", []any{name}, &v)
	return v
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestLocalCommands(t *testing.T) {
	dir := localDir(t)
	d := []string{"--dir", dir}
	local := func(sub string, rest ...string) []string {
		return append(append([]string{"local", sub}, d...), rest...)
	}

	out, errOut := mustRun(t, exitNotRunning, local("status")...)
	if !strings.Contains(out, "state:     not created") || !strings.Contains(errOut, "not created") {
		t.Errorf("status before start:\n%s%s", out, errOut)
	}
	mustRun(t, exitBadInput, local("url")...)

	out, _ = mustRun(t, 0, local("start")...)
	if !strings.Contains(out, "created cluster") || !strings.Contains(out, "started cluster") {
		t.Errorf("start output:\n%s", out)
	}
	url := lastLine(out)
	if !urlRE.MatchString(url) {
		t.Fatalf("last line of start is not a URL: %q", url)
	}

	out, _ = mustRun(t, 0, local("start")...)
	if !strings.Contains(out, "already running") || lastLine(out) != url {
		t.Errorf("second start (want 'already running' and %s):\n%s", url, out)
	}

	out, _ = mustRun(t, 0, local("status")...)
	for _, want := range []string{"state:     running", "version:   PostgreSQL ", "port:      ", "pid:       ",
		"data dir:  " + filepath.Join(dir, "data"), "data size: ", "url:       " + url} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}

	out, _ = mustRun(t, 0, local("url")...)
	if strings.TrimSpace(out) != url {
		t.Errorf("url printed %q, want %s", out, url)
	}
	out, _ = mustRun(t, 0, local("url", "--db", "bench")...)
	if got := urlRE.FindStringSubmatch(out); got == nil || got[1] != "bench" {
		t.Errorf("url --db bench printed %q", out)
	}

	out, _ = mustRun(t, 0, local("start", "--db", "bench")...)
	if !strings.Contains(out, `created database "bench"`) || !strings.HasSuffix(lastLine(out), "/bench?sslmode=disable") {
		t.Errorf("start --db bench:\n%s", out)
	}
	if got := showSetting(t, lastLine(out), "server_version"); got == "" {
		t.Error("cannot query the bench database")
	}

	out, _ = mustRun(t, 0, local("set", "work_mem=64MB")...)
	if !strings.Contains(out, "work_mem = 64MB (reload") {
		t.Errorf("set work_mem:\n%s", out)
	}
	if got := showSetting(t, url, "work_mem"); got != "64MB" {
		t.Errorf("work_mem = %s", got)
	}

	out, _ = mustRun(t, 0, local("set", "max_connections=150", "maintenance_work_mem=128MB")...)
	if !strings.Contains(out, "max_connections = 150 (restart: server restarted)") ||
		!strings.Contains(out, "maintenance_work_mem = 128MB (reload; applied by the restart)") {
		t.Errorf("set max_connections:\n%s", out)
	}
	if got := showSetting(t, url, "max_connections"); got != "150" {
		t.Errorf("max_connections = %s after restart", got)
	}

	_, errOut = mustRun(t, exitBadInput, local("set", "no_such_thing=1")...)
	if !strings.Contains(errOut, `pgtrial: error: unknown setting "no_such_thing"`) {
		t.Errorf("unknown setting stderr: %s", errOut)
	}
	_, errOut = mustRun(t, exitBadInput, local("set", "work_mem")...)
	if !strings.Contains(errOut, "NAME=VALUE") {
		t.Errorf("malformed setting stderr: %s", errOut)
	}
	mustRun(t, exitBadInput, local("set")...)

	out, _ = mustRun(t, 0, local("stop")...)
	if !strings.Contains(out, "stopped cluster") {
		t.Errorf("stop:\n%s", out)
	}
	out, _ = mustRun(t, 0, local("stop")...)
	if !strings.Contains(out, "was not running") {
		t.Errorf("second stop:\n%s", out)
	}
	out, _ = mustRun(t, exitNotRunning, local("status")...)
	if !strings.Contains(out, "state:     stopped") {
		t.Errorf("status after stop:\n%s", out)
	}
	out, errOut = mustRun(t, 0, local("url")...)
	if strings.TrimSpace(out) != url || !strings.Contains(errOut, "not running") {
		t.Errorf("url when stopped: %q / %q", out, errOut)
	}

	// Settings survive a stop; start brings the same cluster back.
	out, _ = mustRun(t, 0, local("start")...)
	if strings.Contains(out, "created cluster") || lastLine(out) != url {
		t.Errorf("restart after stop:\n%s", out)
	}
	if got := showSetting(t, url, "max_connections"); got != "150" {
		t.Errorf("max_connections = %s after stop/start", got)
	}

	out, _ = mustRun(t, 0, local("destroy")...)
	if !strings.Contains(out, "destroyed cluster") {
		t.Errorf("destroy:\n%s", out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists (%v)", dir, err)
	}
	out, _ = mustRun(t, 0, local("destroy")...)
	if !strings.Contains(out, "nothing to destroy") {
		t.Errorf("second destroy:\n%s", out)
	}
}

func TestLocalDestroyRefusesUnmarkedDirectory(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut := mustRun(t, exitBadInput, "local", "destroy", "--dir", dir)
	if !strings.Contains(errOut, "refusing to destroy") || !strings.Contains(errOut, localpg.MarkerFile) {
		t.Errorf("stderr: %s", errOut)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("%s removed: %v", keep, err)
	}
}

func TestLocalBadPGBin(t *testing.T) {
	dir := t.TempDir()
	_, errOut := mustRun(t, exitBadInput, "local", "start", "--dir", filepath.Join(dir, "c"), "--pg-bin", filepath.Join(dir, "nothing"))
	for _, want := range []string{"--pg-bin=", "does not exist", "apt-get update && apt-get install -y postgresql postgresql-contrib"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q: %s", want, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "c")); !os.IsNotExist(err) {
		t.Errorf("a failed start left %s behind", filepath.Join(dir, "c"))
	}
}

func TestLocalHelpDocumentsTheRules(t *testing.T) {
	out, _ := mustRun(t, 0, "local", "--help")
	for _, want := range []string{
		"--pg-bin", "PGTRIAL_PG_BIN", "pg_config --bindir", "/usr/lib/postgresql/*/bin",
		"${XDG_CACHE_HOME:-$HOME/.cache}/pgtrial/clusters/NAME", "/var/tmp/pgtrial/clusters/NAME",
		"--os-user", "trust", "127.0.0.1", "apt-get update && apt-get install -y postgresql postgresql-contrib",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("local --help lacks %q", want)
		}
	}
	out, _ = mustRun(t, 0, "local", "status", "--help")
	if !strings.Contains(out, "0 when the cluster is running, 3 when it is stopped or not created") {
		t.Errorf("status --help does not document the exit status:\n%s", out)
	}
}
