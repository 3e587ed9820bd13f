package collect

import (
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// A session blocked on a table's lock shows in activity.csv as
// Lock:relation with the table named (schema-qualified: it is not in
// public) and the holder as its blocker; a session idle in a transaction
// is in activity.csv with its state but not counted in waits.csv; every
// sample has a row (pid 0 when no client backend was active).
func TestActivityLockWait(t *testing.T) {
	url, ctx := wtDB(t)
	holder := pgtest.Connect(t, ctx, url)
	waiter := pgtest.Connect(t, ctx, url)
	idler := pgtest.Connect(t, ctx, url)
	sleeper := pgtest.Connect(t, ctx, url)
	if _, err := holder.Exec(ctx, "CREATE SCHEMA app; CREATE TABLE app.locked (x int)"); err != nil {
		t.Fatal(err)
	}
	// Whether the server computes query ids (14+, compute_query_id on, or
	// auto with pg_stat_statements loaded).
	// The column does not exist before 14: ask for the version first (a
	// query naming it fails to parse on 13).
	var version int
	if err := holder.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	hasQueryID := false
	if version >= 140000 {
		if err := holder.QueryRow(ctx, `SELECT query_id IS NOT NULL FROM pg_stat_activity WHERE pid = pg_backend_pid()`).Scan(&hasQueryID); err != nil {
			t.Fatal(err)
		}
	}
	holderPID, waiterPID, idlerPID := holder.PgConn().PID(), waiter.PgConn().PID(), idler.PgConn().PID()
	sleeperPID := sleeper.PgConn().PID()

	cfg := wtConfig(t, url, WaitSourceActivity, 50*time.Millisecond, 500*time.Millisecond)
	w := wtNew(t, ctx, cfg, t.Logf)
	stop := wtRun(t, w, cfg)

	wtSleepUntil(cfg.RunStart.Add(300 * time.Millisecond))
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE app.locked IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	itx, err := idler.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := itx.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	waitStart := time.Now()
	selected := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(ctx, "SELECT count(*) FROM app.locked")
		selected <- err
	}()
	if _, err := sleeper.Exec(ctx, "SELECT pg_sleep(0.5)"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	commit := time.Now()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-selected; err != nil {
		t.Fatal(err)
	}
	if err := itx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wtSleepUntil(commit.Add(400 * time.Millisecond))
	stop()

	act, err := results.ReadActivity(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	instants := map[float64]bool{}
	var lock, idle, sleep, waitsLock int
	for _, r := range act {
		instants[r.Elapsed] = true
		// Elapsed is on the monotonic clock, Time on the wall clock (read back
		// from the file, it has no monotonic reading): a VM's clock being
		// slewed moves one against the other by milliseconds (−6 ms seen in
		// CI), so only a disagreement beyond a sample period is a bug.
		if d := r.Time.Sub(cfg.RunStart).Seconds() - r.Elapsed; d < -0.05 || d > 0.05 {
			t.Errorf("row %+v: time and elapsed_s disagree by %.3f s", r, d)
		}
		if r.PeriodMs != 50 {
			t.Errorf("row %+v: period %v ms, want 50", r, r.PeriodMs)
		}
		switch r.PID {
		case waiterPID:
			if r.Type != "Lock" {
				continue
			}
			lock++
			if r.Event != "relation" || r.Relation != "app.locked" || r.BlockedBy != holderPID || r.State != "active" {
				t.Errorf("the waiter's row %+v: want Lock:relation on app.locked, blocked by %d", r, holderPID)
			}
			// query_id is empty: the lock is taken while the statement is
			// parsed, before its query id is computed.
			at := cfg.RunStart.Add(time.Duration(r.Elapsed * float64(time.Second)))
			if at.Before(waitStart.Add(-5*time.Millisecond)) || at.After(commit.Add(50*time.Millisecond)) {
				t.Errorf("a Lock sample at %v, outside the wait (%v to %v)", at.Sub(cfg.RunStart), waitStart.Sub(cfg.RunStart), commit.Sub(cfg.RunStart))
			}
		case idlerPID:
			if r.State == "idle in transaction" {
				idle++
			}
		case sleeperPID:
			if r.Type == "Timeout" && r.Event == "PgSleep" {
				sleep++
				if (r.QueryID != "") != hasQueryID {
					t.Errorf("the sleeper's row %+v: query_id %q, the server computes them: %v", r, r.QueryID, hasQueryID)
				}
			}
		case holderPID:
			if r.Type == "Lock" {
				t.Errorf("the holder waits: %+v", r)
			}
		case 0:
			if r.State != "" || r.Type != "" {
				t.Errorf("a row of pid 0 with a state: %+v", r)
			}
		}
	}
	// 1 s of wait at 50 ms: ~20 samples; the idler was idle in its
	// transaction about as long.
	if lock < 14 || lock > 22 {
		t.Errorf("%d Lock:relation samples of the waiter, want ~20", lock)
	}
	if sleep < 6 {
		t.Errorf("%d samples of the session in pg_sleep(0.5), want ~10", sleep)
	}
	if idle < 14 {
		t.Errorf("%d samples of the session idle in transaction, want ~20", idle)
	}
	// waits.csv: the same samples, counted per interval; the idle session
	// is not counted (waits.csv counts active sessions).
	rows := wtRows(t, cfg.Dir)
	var ticks int64
	clientWaits := 0
	seen := map[time.Time]bool{}
	for _, r := range rows {
		if r.Class == WaitClassClient && r.Type == "Lock" && r.Event == "relation" {
			waitsLock += int(r.Samples)
		}
		if r.Class == WaitClassClient && strings.HasPrefix(r.Type, "Client") {
			clientWaits += int(r.Samples)
			t.Logf("waits.csv: a Client wait of an active session: %+v", r)
		}
		if r.Class == WaitClassClient && !seen[r.Time] {
			seen[r.Time] = true
			ticks += r.Ticks
		}
	}
	// The idle-in-transaction session is not counted. pg_stat_activity reads
	// a backend's state and its wait_event apart (wait_event_info from
	// PGPROC, outside the status's change count), so a sample taken as the
	// session goes from active to reading its next command can be "active,
	// Client:ClientRead" (seen once on PostgreSQL 13 in CI): one such sample
	// is that race, more would be the idle session counted.
	if clientWaits > 1 {
		t.Errorf("waits.csv counts %d Client samples of active sessions: the session idle in its transaction is counted", clientWaits)
	}
	if waitsLock != lock {
		t.Errorf("waits.csv has %d Lock:relation samples, activity.csv %d: one query, two views of it", waitsLock, lock)
	}
	if int64(len(instants)) != ticks {
		t.Errorf("activity.csv has %d samples, waits.csv %d ticks: every sample has a row", len(instants), ticks)
	}
}

// The sample query runs on the server of the tests (15: MATERIALIZED and
// query_id), and the query text of older versions leaves out what they lack.
func TestBuildSessionsQuery(t *testing.T) {
	for _, c := range []struct {
		version      int
		mat, queryID bool
	}{{110000, false, false}, {130000, true, false}, {150000, true, true}} {
		q := buildSessionsQuery(c.version)
		if strings.Contains(q, "MATERIALIZED") != c.mat || strings.Contains(q, "a.query_id") != c.queryID {
			t.Errorf("version %d: MATERIALIZED %v, query_id %v in\n%s", c.version, strings.Contains(q, "MATERIALIZED"), strings.Contains(q, "a.query_id"), q)
		}
		if !strings.HasPrefix(q, CollectorSQLMarker) || strings.Contains(q, "%!") {
			t.Errorf("version %d: query %s", c.version, q)
		}
	}
	url, ctx := wtDB(t)
	conn := pgtest.Connect(t, ctx, url)
	var version int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		t.Fatal(err)
	}
	for _, v := range []int{110000, version} {
		rows, err := conn.Query(ctx, buildSessionsQuery(v), ApplicationName)
		if err != nil {
			t.Fatalf("version %d's query on %d: %v", v, version, err)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatalf("version %d's query on %d: %v", v, version, err)
		}
	}
}
