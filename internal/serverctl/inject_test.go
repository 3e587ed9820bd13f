package serverctl

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// lockGranted reports whether an injection session holds ACCESS EXCLUSIVE on table.
func lockGranted(t *testing.T, url, table string) bool {
	return queryString(t, url, `SELECT (count(*) > 0)::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND l.relation = to_regclass($1) AND l.mode = 'AccessExclusiveLock' AND l.granted
		AND a.application_name = 'pgtrial-injection'`, table) == "true"
}

// injectionSessions counts the injection sessions in this database.
func injectionSessions(t *testing.T, url string) string {
	return queryString(t, url, `SELECT count(*)::text FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'pgtrial-injection'`)
}

// timedCount runs SELECT count(*) FROM table in a new session and returns when it
// was sent and when it returned.
func timedCount(t *testing.T, url, table string, limit time.Duration) (start, end time.Time) {
	t.Helper()
	ctx := testCtx(t, limit)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int64
	start = time.Now()
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatalf("count(*) on %s while locked: %v", table, err)
	}
	return start, time.Now()
}

func waitScheduled(t *testing.T, s *Scheduled, limit time.Duration) []Injected {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(limit):
		t.Fatalf("injections not done after %v", limit)
	}
	return s.Wait()
}

func TestLockInjectionBlocksForDuration(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	mustExec(t, url, "CREATE SCHEMA s", "CREATE TABLE s.t (a int)", "INSERT INTO s.t VALUES (1)")
	const at, hold = 300 * time.Millisecond, 1500 * time.Millisecond
	origin := time.Now()
	s := Schedule(testCtx(t, time.Minute), url, origin, []Injection{{Kind: InjectLock, At: at, Table: "s.t", Duration: hold}})

	waitFor(t, 10*time.Second, "the injected lock", func() bool { return lockGranted(t, url, "s.t") })
	qStart, qEnd := timedCount(t, url, "s.t", 20*time.Second)
	res := waitScheduled(t, s, 20*time.Second)

	if len(res) != 1 {
		t.Fatalf("%d results, want 1", len(res))
	}
	r := res[0]
	if r.Err != "" || r.Kind != "lock" || r.Table != "s.t" {
		t.Fatalf("result %+v, want a lock on s.t without error", r)
	}
	if !r.Planned.Equal(origin.Add(at)) {
		t.Errorf("Planned = %v, want origin + %v", r.Planned, at)
	}
	if d := r.Start.Sub(r.Planned); d < 0 || d > 250*time.Millisecond {
		t.Errorf("started %v after its planned time, want within [0, 250ms]", d)
	}
	if r.Acquired.Before(r.Start) || r.Acquired.Sub(r.Start) > 250*time.Millisecond {
		t.Errorf("acquired %v after the start, want within [0, 250ms] on an idle table", r.Acquired.Sub(r.Start))
	}
	if held := r.End.Sub(r.Acquired); held < hold || held > hold+500*time.Millisecond {
		t.Errorf("held for %v, want %v (+ at most 500ms for ROLLBACK)", held, hold)
	}
	// The other session waited until the lock went: it could not finish before
	// Acquired + hold, and finished soon after the release.
	if !qEnd.After(r.Acquired.Add(hold)) {
		t.Errorf("the query finished %v before the lock was due to go", r.Acquired.Add(hold).Sub(qEnd))
	}
	if qEnd.After(r.End.Add(500 * time.Millisecond)) {
		t.Errorf("the query finished %v after the release", qEnd.Sub(r.End))
	}
	want := r.Acquired.Add(hold).Sub(qStart) // how long it should have waited
	if waited := qEnd.Sub(qStart); waited < want || waited > want+500*time.Millisecond {
		t.Errorf("the query waited %v, want about %v", waited, want)
	}
	if n := injectionSessions(t, url); n != "0" {
		t.Errorf("%s injection sessions left after Wait", n)
	}
}

func TestLockInjectionCancelReleasesAtOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	mustExec(t, url, "CREATE TABLE t (a int)")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const hold = 30 * time.Second
	s := Schedule(ctx, url, time.Now(), []Injection{{Kind: InjectLock, Table: "t", Duration: hold}})
	waitFor(t, 10*time.Second, "the injected lock", func() bool { return lockGranted(t, url, "t") })

	// Cancel while a query waits for the lock: the query must get through at once.
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	qStart, qEnd := timedCount(t, url, "t", 10*time.Second)
	if waited := qEnd.Sub(qStart); waited > 2*time.Second {
		t.Errorf("the query waited %v for a lock cancelled after 300ms", waited)
	}
	res := waitScheduled(t, s, 5*time.Second)
	r := res[0]
	if !strings.Contains(r.Err, "cancelled after holding the lock") {
		t.Errorf("Err = %q, want it to say the lock was cancelled", r.Err)
	}
	if held := r.End.Sub(r.Acquired); held >= hold || held > 3*time.Second {
		t.Errorf("held for %v after a cancel at about 300ms", held)
	}
	if n := injectionSessions(t, url); n != "0" {
		t.Errorf("%s injection sessions left after Wait", n)
	}
}

func TestLockInjectionCancelWhileWaiting(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	mustExec(t, url, "CREATE TABLE t (a int)")
	ctx := testCtx(t, time.Minute)
	// Another session holds ACCESS SHARE, so the injected LOCK has to wait.
	holder, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, "SELECT count(*) FROM t"); err != nil {
		t.Fatal(err)
	}

	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := Schedule(ictx, url, time.Now(), []Injection{{Kind: InjectLock, Table: "t", Duration: time.Second}})
	waitFor(t, 10*time.Second, "the injection to wait for its lock", func() bool {
		return queryString(t, url, `SELECT (count(*) > 0)::text FROM pg_stat_activity
			WHERE application_name = 'pgtrial-injection' AND wait_event_type = 'Lock'`) == "true"
	})
	cancelled := time.Now()
	cancel()
	res := waitScheduled(t, s, 5*time.Second)
	r := res[0]
	if !strings.Contains(r.Err, "LOCK TABLE") || !strings.Contains(r.Err, "cancelled") {
		t.Errorf("Err = %q, want the LOCK TABLE cancelled", r.Err)
	}
	if !r.Acquired.IsZero() {
		t.Errorf("Acquired = %v for a lock never granted", r.Acquired)
	}
	if d := r.End.Sub(cancelled); d > 2*time.Second {
		t.Errorf("ended %v after the cancel", d)
	}
	if n := injectionSessions(t, url); n != "0" {
		t.Errorf("%s injection sessions left after Wait (the lock request must not stay queued)", n)
	}
}

func TestCancelBeforeItsTime(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := Schedule(ctx, url, time.Now(), []Injection{{Kind: InjectCheckpoint, At: time.Hour}})
	time.Sleep(200 * time.Millisecond)
	cancel()
	r := waitScheduled(t, s, 5*time.Second)[0]
	if !strings.Contains(r.Err, "cancelled before its time") || !r.Start.IsZero() {
		t.Errorf("result %+v, want cancelled before its time, never started", r)
	}
	// Cancelled at once, while its session is still connecting (what a
	// loaded machine did to the wait above in CI): the same.
	ctx, cancel = context.WithCancel(context.Background())
	s = Schedule(ctx, url, time.Now(), []Injection{{Kind: InjectCheckpoint, At: time.Hour}})
	cancel()
	r = waitScheduled(t, s, 5*time.Second)[0]
	if !strings.Contains(r.Err, "cancelled before its time") || !r.Start.IsZero() {
		t.Errorf("cancelled while connecting: result %+v, want cancelled before its time, never started", r)
	}
}

func TestCheckpointInjection(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	lsn0 := queryString(t, url, "SELECT checkpoint_lsn::text FROM pg_control_checkpoint()")
	time0 := queryString(t, url, "SELECT checkpoint_time::text FROM pg_control_checkpoint()")
	s := Schedule(testCtx(t, time.Minute), url, time.Now(), []Injection{{Kind: InjectCheckpoint, At: 100 * time.Millisecond}})
	r := waitScheduled(t, s, 30*time.Second)[0]
	if r.Err != "" || r.Kind != "checkpoint" {
		t.Fatalf("result %+v, want a checkpoint without error", r)
	}
	if r.Start.Before(r.Planned) || r.End.Before(r.Start) {
		t.Errorf("times out of order: planned %v start %v end %v", r.Planned, r.Start, r.End)
	}
	// A forced CHECKPOINT writes a new checkpoint record even on an idle server, so
	// the control file's checkpoint location moves on; its time (whole seconds) is
	// taken when the checkpoint starts.
	if got := queryString(t, url, "SELECT (checkpoint_lsn > $1::pg_lsn AND checkpoint_time >= $2::timestamptz)::text FROM pg_control_checkpoint()",
		lsn0, time0); got != "true" {
		t.Errorf("pg_control_checkpoint() did not move on from %s at %s", lsn0, time0)
	}
	cpTime, err := strconv.ParseInt(queryString(t, url, "SELECT extract(epoch FROM checkpoint_time)::bigint::text FROM pg_control_checkpoint()"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	// Whole seconds: the checkpoint began within [Start, End], give or take 1 s.
	if cpTime < r.Start.Unix()-1 || cpTime > r.End.Unix()+1 {
		t.Errorf("checkpoint_time %d s not within the injection's [%d, %d] s", cpTime, r.Start.Unix(), r.End.Unix())
	}
}

func TestVacuumInjection(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	mustExec(t, url, "CREATE TABLE v (a int)", "INSERT INTO v SELECT generate_series(1, 1000)", "DELETE FROM v WHERE a % 2 = 0")
	s := Schedule(testCtx(t, time.Minute), url, time.Now(), []Injection{
		{Kind: InjectVacuum, Table: "public.v"},
		{Kind: InjectVacuum, At: 50 * time.Millisecond}, // the whole database
	})
	res := waitScheduled(t, s, 30*time.Second)
	for i, r := range res {
		if r.Err != "" || r.Kind != "vacuum" || r.Start.IsZero() || r.End.Before(r.Start) {
			t.Errorf("result %d: %+v, want a vacuum without error", i, r)
		}
	}
	waitFor(t, 10*time.Second, "vacuum_count of v to rise", func() bool {
		return queryString(t, url, "SELECT (vacuum_count > 0)::text FROM pg_stat_user_tables WHERE relid = 'v'::regclass") == "true"
	})
}

func TestInjectionBadInput(t *testing.T) {
	t.Parallel()
	url := pgtest.ConnString(t)
	ctx := testCtx(t, time.Minute)
	res := waitScheduled(t, Schedule(ctx, url, time.Now(), []Injection{
		{Kind: 9},
		{Kind: InjectLock, Duration: time.Second},
		{Kind: InjectLock, Table: "t"},
		{Kind: InjectVacuum, At: -time.Second},
		{Kind: InjectCheckpoint, Table: "t"},
		{Kind: InjectLock, Table: "a..b", Duration: time.Second},
		{Kind: InjectLock, Table: "no_such_table", Duration: time.Second},
		{Kind: InjectVacuum, Table: `"unterminated`},
	}), 10*time.Second)
	wants := []string{
		"unknown injection kind 9",
		"needs a table",
		"positive duration",
		"negative time",
		"takes no table",
		"empty part",
		`"no_such_table" does not exist (SQLSTATE 42P01)`,
		"unterminated double quote",
	}
	for i, w := range wants {
		if !strings.Contains(res[i].Err, w) {
			t.Errorf("injection %d: Err = %q, want it to contain %q", i, res[i].Err, w)
		}
	}
	if res[6].Start.IsZero() || res[6].End.IsZero() {
		t.Errorf("the lock on a missing table was never tried: %+v", res[6])
	}

	res = waitScheduled(t, Schedule(ctx, "postgres://u:secret@[::1", time.Now(), []Injection{{Kind: InjectCheckpoint}}), time.Second)
	if !strings.Contains(res[0].Err, "parse the connection string") || strings.Contains(res[0].Err, "secret") {
		t.Errorf("bad connection string: Err = %q", res[0].Err)
	}
	if res := waitScheduled(t, Schedule(ctx, url, time.Now(), nil), time.Second); len(res) != 0 {
		t.Errorf("no injections: %d results", len(res))
	}
	var nilScheduled *Scheduled
	if nilScheduled.Wait() != nil {
		t.Error("nil Scheduled: Wait returned results")
	}
	<-nilScheduled.Done()
}
