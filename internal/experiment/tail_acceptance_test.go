package experiment

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// TestTailAcceptance is issue 17's acceptance of the tail explanation: a
// 30 s open-model run with a 3 s ACCESS EXCLUSIVE lock on pgbench_accounts
// at 10 s, pg_stat_activity sampled by pid: most of the transactions above
// p99 are attributed to Lock waits (their own, or those of the connection
// they queued behind) during the injected lock. It needs the engine's
// slow.csv, and skips until a run writes one.
func TestTailAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("a 30 s run")
	}
	url := pgtest.ConnString(t)
	spec := experimentFile(t, `
name: tail
workload: {builtin: tpcb-like, scale: 1}
load: {clients: 4, rate: 100}
protocol: {warmup: 1s, window: 30s, repeats: 1}
collect: {kinds: [waits], wait_interval: 50ms, wait_source: activity}
injections: [{at: 10s, kind: lock, table: pgbench_accounts, duration: 3s}]
`)
	env, log := testEnv(t, url, nil)
	rec := execute(t, spec, env, log)
	if len(rec.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(rec.Runs))
	}
	dir := filepath.Join(env.Dir, rec.Runs[0].Dir)
	// The collector's half: the clients' backends are seen waiting on the
	// table's lock, by pid, in activity.csv.
	act, err := results.ReadActivity(dir)
	if err != nil {
		t.Fatalf("activity.csv with --wait-source activity: %v", err)
	}
	pids := map[uint32]bool{}
	for _, r := range act {
		if r.Type == "Lock" && r.Event == "relation" && r.Relation == "pgbench_accounts" {
			pids[r.PID] = true
		}
	}
	if len(pids) < 2 {
		t.Errorf("%d client backends seen waiting on pgbench_accounts' lock in activity.csv, want most of the 4", len(pids))
	}
	if _, err := os.Stat(filepath.Join(dir, results.SlowFile)); errors.Is(err, fs.ErrNotExist) {
		t.Skip("the run has no slow.csv: the engine does not keep the slowest transactions yet")
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Findings == nil || run.Findings.Tail == nil {
		var w []string
		if run.Findings != nil {
			w = run.Findings.Warnings
		}
		t.Fatalf("no tail finding: warnings %q\n%s", w, log)
	}
	tl := run.Findings.Tail
	for _, l := range tl.Summary {
		t.Log(l)
	}
	lock := 0
	for _, g := range tl.Groups {
		t.Logf("%d %s (%s) [%s] during %q", g.Count, g.Wait, g.Relation, g.Part, g.Occurrence)
		if strings.HasPrefix(g.Wait, "Lock:") && strings.HasPrefix(g.Occurrence, "injected lock on pgbench_accounts") {
			lock += g.Count
		}
	}
	if tl.Kept == 0 || 2*lock <= tl.Kept {
		t.Errorf("%d of %d transactions above p99 attributed to Lock waits during the injected lock, want most", lock, tl.Kept)
	}
	if !tl.Open || tl.LagMs <= 0 {
		t.Errorf("an open run's tail without lag: %+v", tl)
	}
}
