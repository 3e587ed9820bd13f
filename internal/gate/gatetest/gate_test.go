// Package gatetest tests the CI gate end to end: `pgtrial run` against a
// throwaway cluster of the test's own, then `pgtrial compare --fail-on`
// and its exit status (a package of its own: the runs take about a
// minute).
package gatetest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The gate's exit statuses (internal/cli's exitGateFail, exitGateInconclusive).
const (
	exitFail         = 3
	exitInconclusive = 4
)

// TestGateSynchronousCommit runs simple-update (2 clients, 1.5 s measured
// a run) on a cluster with fsync on (the shared test cluster has it off,
// where a commit's flush costs nothing). In the closed model, 4 rounds of
// three runs interleaved: "off" and "same" with synchronous_commit off,
// "on" with it on; in the open model at 200 tx/s (uniform arrivals), 5
// runs a side with it off. The gate tps<-3%:
//
//   - the open model's A/A exits 0: its throughput is the schedule's, and
//     the runs exclude a 3 % loss;
//   - the closed model's A/A (off against same) never exits 3: 0, or 4
//     when the runs' noise is wider than 3 % (on a loaded machine a
//     closed run's tps varies by tens of per cent);
//   - off against on exits 3: every commit waits for its WAL flush, a real
//     loss far beyond 3 %; --markdown writes the table with the fail.
func TestGateSynchronousCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about a minute")
	}
	bin := pgtest.BuildPgtrial(t)
	c := pgtest.OwnCluster(t, pgtest.Own{Settings: map[string]string{"fsync": "on"}})
	url := c.URL("postgres")
	pgtrial := func(timeout time.Duration, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = cleanEnv()
		cmd.WaitDelay = 5 * time.Second
		done := make(chan struct{})
		timer := time.AfterFunc(timeout, func() { cmd.Process.Signal(os.Interrupt); close(done) })
		out, err := cmd.CombinedOutput()
		if !timer.Stop() {
			<-done
			t.Fatalf("pgtrial %s: still running after %s\n%s", strings.Join(args, " "), timeout, out)
		}
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("pgtrial %s: %v", strings.Join(args, " "), err)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := pgtrial(time.Minute, "init", "-s", "1", "-q", url); code != 0 {
		t.Fatalf("pgtrial init: exit %d\n%s", code, out)
	}

	root := t.TempDir()
	dirs := map[string][]string{}
	run := func(side string, r int, load ...string) {
		t.Helper()
		dir := filepath.Join(root, side, fmt.Sprintf("%02d", r))
		args := append(append([]string{"run"}, load...), "-c", "2", "-b", "simple-update", "-T", "1500ms", "--warmup", "500ms",
			"--no-report", "--no-collect", "--quiet", "--run-dir", dir, url)
		if code, out := pgtrial(30*time.Second, args...); code != 0 {
			t.Fatalf("pgtrial run (%s, round %d): exit %d\n%s", side, r+1, code, out)
		}
		dirs[side] = append(dirs[side], dir)
	}
	// The closed model's rounds: off, same (A/A), on.
	const rounds = 4
	sides := []struct{ name, sync string }{{"off", "off"}, {"same", "off"}, {"on", "on"}}
	for r := range rounds {
		for _, s := range sides {
			pgtest.Exec(t, url, "ALTER DATABASE postgres SET synchronous_commit = "+s.sync)
			run(s.name, r, "--closed")
		}
	}
	// The open model's A/A: 200 tx/s on a uniform schedule, far below what
	// the server takes, synchronous_commit off.
	pgtest.Exec(t, url, "ALTER DATABASE postgres SET synchronous_commit = off")
	for r := range 5 {
		run("open-a", r, "--rate", "200", "--arrival", "uniform")
		run("open-b", r, "--rate", "200", "--arrival", "uniform")
	}
	for side, ds := range dirs {
		var tps []string
		for _, d := range ds {
			b, _ := os.ReadFile(filepath.Join(d, "run.json"))
			if i := strings.Index(string(b), `"tps":`); i >= 0 {
				tps = append(tps, strings.TrimSpace(strings.SplitN(string(b[i+6:]), ",", 2)[0]))
			}
		}
		t.Logf("%s tps: %s", side, strings.Join(tps, " "))
	}
	gate := func(a, b string, extra ...string) (int, string) {
		args := append([]string{"compare", "--name-a", a, "--name-b", b, "--fail-on", "tps<-3%"}, extra...)
		args = append(append(append(args, dirs[a]...), "--"), dirs[b]...)
		return pgtrial(30*time.Second, args...)
	}

	if code, out := gate("open-a", "open-b"); code != 0 {
		t.Errorf("A/A in the open model: exit %d, want 0\n%s", code, gateTable(out))
	}
	code, out := gate("off", "same")
	if code != 0 && code != exitInconclusive {
		t.Errorf("A/A in the closed model: exit %d, want 0 or %d (never a fail)\n%s", code, exitInconclusive, gateTable(out))
	}
	t.Logf("A/A in the closed model: exit %d\n%s", code, gateTable(out))
	md := filepath.Join(root, "gate.md")
	code, out = gate("off", "on", "--markdown", md)
	if code != exitFail {
		t.Errorf("synchronous_commit off against on: exit %d, want %d\n%s", code, exitFail, gateTable(out))
	}
	src, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "| tps&lt;-3% | tps |") || !strings.Contains(string(src), "❌ fail |") {
		t.Errorf("gate.md has no failed tps row:\n%s", src)
	}
	t.Logf("synchronous_commit off against on:\n%s", gateTable(out))
}

// gateTable is the gate's part of compare's output.
func gateTable(out string) string {
	if i := strings.Index(out, "pgtrial gate:"); i >= 0 {
		return out[i:]
	}
	return out
}

// cleanEnv is the environment without libpq's variables, so that the
// URL given is the target.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "PGTRIAL_") {
			env = append(env, kv)
		}
	}
	return env
}
