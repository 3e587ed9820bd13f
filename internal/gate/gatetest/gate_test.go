// Package gatetest tests the CI gate end to end: `pgtrial run` against a
// throwaway cluster of the test's own, then `pgtrial compare --fail-on`
// and its exit status (a package of its own: the runs take about a
// minute).
package gatetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The gate's exit statuses (internal/cli's exitGateFail, exitGateInconclusive).
const (
	exitFail = 3
)

// TestGateSynchronousCommit runs simple-update (2 clients, 1.5 s measured
// a run) on a cluster with fsync on (the shared test cluster has it off,
// where a commit's flush costs nothing):
//
//   - an experiment in the closed model, variants sync-off, sync-on and
//     sync-same (synchronous_commit off, on, off), 5 rounds interleaved (5 vs
//     5 runs fail even with two of them out of order),
//     with gate: "tps<-3%": it exits 3, sync-on failing (every commit
//     waits for its WAL flush, a real loss far beyond 3 %) and the A/A
//     sync-same not failing (it passes, or is inconclusive when the runs'
//     noise is wider than 3 %: on a loaded machine a closed run's tps
//     varies by tens of per cent);
//   - compare EXPDIR --fail-on tps<-3% --markdown exits 3 and writes the
//     table with sync-on's fail;
//   - compare --fail-on tps<-3% of an open-model A/A (200 tx/s, uniform
//     arrivals, 5 runs a side) exits 0: its throughput is the schedule's,
//     and the runs exclude a 3 % loss.
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

	// The closed model: an experiment of 3 variants, 4 rounds interleaved.
	exp := filepath.Join(root, "exp")
	file := filepath.Join(root, "sync.yaml")
	spec := `workload: {builtin: simple-update}
load: {clients: 2, closed: true}
protocol: {warmup: 500ms, window: 1500ms, repeats: 5}
variants:
  - {name: sync-off, settings: {synchronous_commit: "off"}}
  - {name: sync-on, settings: {synchronous_commit: "on"}}
  - {name: sync-same, settings: {synchronous_commit: "off"}}
collect: false
gate: "tps<-3%"
`
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out := pgtrial(2*time.Minute, "experiment", "--url", url, "--dir", exp, "--no-report", "--quiet", file)
	if code != exitFail {
		t.Fatalf("pgtrial experiment with gate: tps<-3%%: exit %d, want %d\n%s", code, exitFail, out)
	}
	var rec struct {
		Gate []struct {
			NameB   string `json:"name_b"`
			Outcome string `json:"outcome"`
			Rules   []struct {
				Why string `json:"why"`
			} `json:"rules"`
		} `json:"gate"`
		Runs []struct {
			Variant string  `json:"variant"`
			TPS     float64 `json:"tps"`
		} `json:"runs"`
	}
	b, err := os.ReadFile(filepath.Join(exp, "experiment.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	tps := map[string][]string{}
	for _, r := range rec.Runs {
		tps[r.Variant] = append(tps[r.Variant], strconv.FormatFloat(r.TPS, 'f', 0, 64))
	}
	t.Logf("closed-model tps: %v", tps)
	if len(rec.Gate) != 2 {
		t.Fatalf("experiment.json's gate: %d results, want 2 (each variant against sync-off)", len(rec.Gate))
	}
	for _, g := range rec.Gate {
		t.Logf("%s: %s: %s", g.NameB, g.Outcome, g.Rules[0].Why)
	}
	if g := rec.Gate[0]; g.NameB != "sync-on" || g.Outcome != "fail" {
		t.Errorf("sync-on against sync-off: %s, want fail", g.Outcome)
	}
	// The closed model's A/A: pass, or inconclusive when the runs' noise is
	// wider than 3 %. A fail is possible by chance: with 4 runs a side only
	// a complete separation (1 ordering in 70, 1.4 %) is "differs" (the
	// simulation in internal/gate bounds the rate), so it is logged here,
	// not failed on; the A/A that must pass is the open model's below.
	if g := rec.Gate[1]; g.NameB != "sync-same" {
		t.Errorf("the second gate result is %s's, want sync-same's", g.NameB)
	} else if g.Outcome == "fail" {
		t.Logf("note: the closed-model A/A failed the gate by chance (%s)", g.Rules[0].Why)
	}

	// compare of the experiment directory gates the same comparisons.
	md := filepath.Join(root, "gate.md")
	code, out = pgtrial(30*time.Second, "compare", "--fail-on", "tps<-3%", "--markdown", md, exp)
	if code != exitFail {
		t.Errorf("compare EXPDIR --fail-on tps<-3%%: exit %d, want %d\n%s", code, exitFail, gateTable(out))
	}
	src, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "sync-on against sync-off: ❌ fail") || !strings.Contains(string(src), "| tps&lt;-3% | tps |") {
		t.Errorf("gate.md has no failed tps row for sync-on:\n%s", src)
	}

	// The open model's A/A: 200 tx/s on a uniform schedule, far below what
	// the server takes, synchronous_commit off (as the experiment left it).
	dirs := map[string][]string{}
	for r := range 5 {
		for _, side := range []string{"a", "b"} {
			dir := filepath.Join(root, side, fmt.Sprintf("%02d", r))
			code, out := pgtrial(30*time.Second, "run", "--rate", "200", "--arrival", "uniform", "-c", "2", "-b", "simple-update",
				"-T", "1500ms", "--warmup", "500ms", "--no-report", "--no-collect", "--quiet", "--run-dir", dir, url)
			if code != 0 {
				t.Fatalf("pgtrial run (%s, round %d): exit %d\n%s", side, r+1, code, out)
			}
			dirs[side] = append(dirs[side], dir)
		}
	}
	args := append(append(append([]string{"compare", "--fail-on", "tps<-3%"}, dirs["a"]...), "--"), dirs["b"]...)
	if code, out := pgtrial(30*time.Second, args...); code != 0 {
		t.Errorf("A/A in the open model: exit %d, want 0\n%s", code, gateTable(out))
	}
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
