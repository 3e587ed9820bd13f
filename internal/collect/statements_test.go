package collect

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// Statements of the integration tests, without constants: pg_stat_statements
// keeps them as written (pgx sends the parameters).
const (
	stmtTestSelect = "select count(*) from t where id = $1"
	stmtTestUpdate = "update t set v = -v where id = $1"
)

// stmtTestDB is a fresh database with pg_stat_statements and a table t
// of 1000 rows, and a connection to it. It skips the test when the test
// cluster does not preload pg_stat_statements.
func stmtTestDB(t *testing.T, ctx context.Context) (string, *pgx.Conn) {
	t.Helper()
	url := pgtest.ConnString(t)
	conn := pgtest.Connect(t, ctx, url)
	var preload string
	if err := conn.QueryRow(ctx, "show shared_preload_libraries").Scan(&preload); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(preload, "pg_stat_statements") {
		t.Skipf("the test cluster does not preload pg_stat_statements (shared_preload_libraries = %q): install the PostgreSQL contrib package", preload)
	}
	for _, sql := range []string{
		"create extension if not exists pg_stat_statements",
		"create table t (id int primary key, v int not null)",
		"insert into t select g, 0 from generate_series(1, 1000) g",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	return url, conn
}

// stmtRun runs sql n times with id = 1 … n (mod 1000).
func stmtRun(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string, n int) {
	t.Helper()
	for i := range n {
		if _, err := conn.Exec(ctx, sql, i%1000+1); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// stmtRowOf is the only row of phase whose query is sql.
func stmtRowOf(t *testing.T, rows []StatementRow, phase, sql string) StatementRow {
	t.Helper()
	var found []StatementRow
	for _, r := range rows {
		if r.Phase == phase && r.Query == sql {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		t.Fatalf("phase %q, %q: %d rows, want 1 (rows: %+v)", phase, sql, len(found), rows)
	}
	return found[0]
}

func stmtTestCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// stmtStart starts a statements collector on url, its run starting now and
// its files in a fresh directory; it is closed at the test's end.
func stmtStart(t *testing.T, ctx context.Context, url string) (*statements, *Config, *testWarnings) {
	t.Helper()
	w := &testWarnings{}
	cfg := &Config{ConnString: url, Dir: t.TempDir(), RunStart: time.Now()}
	s, err := newStatements(ctx, cfg, w.warn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.close() })
	return s, cfg, w
}

func TestStatementsMeasureDeltas(t *testing.T) {
	t.Parallel()
	ctx := stmtTestCtx(t)
	url, conn := stmtTestDB(t, ctx)
	// Calls before the collector starts and between its start and the
	// mark: neither may count.
	stmtRun(t, ctx, conn, stmtTestSelect, 30)
	stmtRun(t, ctx, conn, stmtTestUpdate, 20)

	s, cfg, w := stmtStart(t, ctx, url)
	stmtRun(t, ctx, conn, stmtTestSelect, 15)
	stmtRun(t, ctx, conn, stmtTestUpdate, 10)

	t0 := cfg.RunStart.Add(100 * time.Millisecond)
	if err := s.mark(ctx, results.PhaseMeasure, t0); err != nil {
		t.Fatal(err)
	}
	stmtRun(t, ctx, conn, stmtTestSelect, 200)
	stmtRun(t, ctx, conn, stmtTestUpdate, 50)
	end := t0.Add(2 * time.Second)
	if err := s.finish(ctx, end); err != nil {
		t.Fatal(err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if ws := w.list(); len(ws) > 0 {
		t.Errorf("testWarnings: %q", ws)
	}

	rows, err := ReadStatements(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	sel := stmtRowOf(t, rows, results.PhaseMeasure, stmtTestSelect)
	upd := stmtRowOf(t, rows, results.PhaseMeasure, stmtTestUpdate)
	if sel.Calls != 200 || upd.Calls != 50 {
		t.Errorf("calls: select %d (want 200), update %d (want 50)", sel.Calls, upd.Calls)
	}
	if sel.Rows != 200 || upd.Rows != 50 {
		t.Errorf("rows: select %d (want 200), update %d (want 50)", sel.Rows, upd.Rows)
	}
	if sel.SharedBlksHit+sel.SharedBlksRead <= 0 || upd.SharedBlksHit+upd.SharedBlksRead <= 0 {
		t.Errorf("shared blocks: select %d+%d, update %d+%d, want > 0", sel.SharedBlksHit, sel.SharedBlksRead, upd.SharedBlksHit, upd.SharedBlksRead)
	}
	if upd.WALRecords < 50 || upd.WALBytes <= 0 {
		t.Errorf("update WAL: %d records, %d bytes; want >= 50 records and bytes > 0", upd.WALRecords, upd.WALBytes)
	}
	if sel.TotalExecMs <= 0 || math.Abs(sel.MeanExecMs-sel.TotalExecMs/200) > 0.001 {
		t.Errorf("select exec: total %.3f ms, mean %.3f ms; want total > 0 and mean = total/200", sel.TotalExecMs, sel.MeanExecMs)
	}
	if sel.Nested || sel.QueryID == 0 || sel.UserID == 0 {
		t.Errorf("select key: %+v", sel)
	}
	if !sel.Time.Equal(end.Truncate(time.Millisecond)) || !sel.PhaseStart.Equal(t0.Truncate(time.Millisecond)) {
		t.Errorf("select times: %v from %v, want %v from %v", sel.Time, sel.PhaseStart, end, t0)
	}
	if want := end.Sub(cfg.RunStart).Seconds(); math.Abs(sel.Elapsed-want) > 0.001 {
		t.Errorf("elapsed_s %.3f, want %.3f", sel.Elapsed, want)
	}
	for _, r := range rows {
		if r.Phase != results.PhaseMeasure {
			t.Errorf("row of phase %q: only the measured phase was marked", r.Phase)
		}
		if strings.Contains(r.Query, ApplicationName) {
			t.Errorf("the collector's own query is in statements.csv: %q", r.Query)
		}
	}
}

func TestStatementsTwoPhases(t *testing.T) {
	t.Parallel()
	ctx := stmtTestCtx(t)
	url, conn := stmtTestDB(t, ctx)
	s, cfg, _ := stmtStart(t, ctx, url)
	if err := s.mark(ctx, results.PhaseWarmup, cfg.RunStart); err != nil {
		t.Fatal(err)
	}
	stmtRun(t, ctx, conn, stmtTestSelect, 40)
	stmtRun(t, ctx, conn, stmtTestUpdate, 5)
	t1 := cfg.RunStart.Add(time.Second)
	if err := s.mark(ctx, results.PhaseMeasure, t1); err != nil {
		t.Fatal(err)
	}
	stmtRun(t, ctx, conn, stmtTestSelect, 70)
	if err := s.finish(ctx, t1.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.finish(ctx, t1.Add(2*time.Second)); err != nil {
		t.Errorf("second finish: %v", err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadStatements(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := stmtRowOf(t, rows, results.PhaseWarmup, stmtTestSelect); r.Calls != 40 || !r.Time.Equal(t1.Truncate(time.Millisecond)) {
		t.Errorf("warm-up select: %d calls ending %v, want 40 ending %v", r.Calls, r.Time, t1)
	}
	if r := stmtRowOf(t, rows, results.PhaseWarmup, stmtTestUpdate); r.Calls != 5 {
		t.Errorf("warm-up update: %d calls, want 5", r.Calls)
	}
	if r := stmtRowOf(t, rows, results.PhaseMeasure, stmtTestSelect); r.Calls != 70 || !r.PhaseStart.Equal(t1.Truncate(time.Millisecond)) {
		t.Errorf("measured select: %d calls from %v, want 70 from %v", r.Calls, r.PhaseStart, t1)
	}
	for _, r := range rows {
		if r.Phase == results.PhaseMeasure && r.Query == stmtTestUpdate {
			t.Errorf("the update ran only in the warm-up, yet has a measured row: %+v", r)
		}
	}
	se, err := statementsEvidence(cfg.Dir, results.PhaseMeasure, EvidenceTopStatements)
	if err != nil {
		t.Fatal(err)
	}
	ev := se.list
	i := slices.IndexFunc(ev, func(c results.StatementCost) bool { return c.Query == stmtTestSelect })
	if i < 0 || ev[i].Calls != 70 || ev[i].Rows != 70 {
		t.Errorf("evidence of the measured phase: %+v, want the select with 70 calls", ev)
	}
}

func TestStatementsFinishWithoutMark(t *testing.T) {
	t.Parallel()
	ctx := stmtTestCtx(t)
	url, conn := stmtTestDB(t, ctx)
	s, cfg, _ := stmtStart(t, ctx, url)
	stmtRun(t, ctx, conn, stmtTestSelect, 25)
	if err := s.finish(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.mark(ctx, results.PhaseMeasure, time.Now()); err == nil {
		t.Error("mark after finish: no error")
	}
	s.close()
	rows, err := ReadStatements(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := stmtRowOf(t, rows, "", stmtTestSelect); r.Calls != 25 {
		t.Errorf("select without a mark: %d calls, want 25", r.Calls)
	}
}

func TestStatementsNotInstalled(t *testing.T) {
	t.Parallel()
	ctx := stmtTestCtx(t)
	cfg := &Config{ConnString: pgtest.ConnString(t), Dir: t.TempDir(), RunStart: time.Now()}
	var w testWarnings
	s, err := newStatements(ctx, cfg, w.warn)
	if err == nil {
		s.close()
		t.Fatal("no error without the extension")
	}
	for _, want := range []string{"not installed", "CREATE EXTENSION pg_stat_statements", "shared_preload_libraries"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, results.StatementsFile)); err == nil {
		t.Errorf("%s created although the collector did not start", results.StatementsFile)
	}
}

func TestExplainStatementsError(t *testing.T) {
	notLoaded := &pgconn.PgError{Code: "55000", Message: `pg_stat_statements must be loaded via "shared_preload_libraries"`}
	err := explainStatementsError(fmt.Errorf("query: %w", notLoaded), "bench")
	if !strings.Contains(err.Error(), "not loaded") || !strings.Contains(err.Error(), "restart") {
		t.Errorf("library not loaded: %v", err)
	}
	other := explainStatementsError(&pgconn.PgError{Code: "42501", Message: "permission denied"}, "bench")
	if strings.Contains(other.Error(), "not loaded") {
		t.Errorf("another error explained as the library not loaded: %v", other)
	}
}

func TestStatementsEvidence(t *testing.T) {
	// Columns in another order than the collector writes them, and some
	// missing: the reader picks them by name. Rows without sessions (an
	// older pgtrial's file) are the run's.
	csvText := `phase,time,elapsed_s,queryid,userid,toplevel,sessions,calls,rows,total_exec_ms,shared_blks_hit,shared_blks_read,wal_bytes,query
warmup,2025-01-01T00:00:10.000Z,10.000,1,10,true,run,1000,1000,9000.000,1,1,1,select a
measure,2025-01-01T00:01:10.000Z,70.000,1,10,true,run,100,100,300.000,1000,100,0,select a
measure,2025-01-01T00:01:10.000Z,70.000,1,11,true,,50,50,150.000,500,50,0,select a
measure,2025-01-01T00:01:10.000Z,70.000,2,10,true,run,10,10,500.000,40,20,8000,update b
measure,2025-01-01T00:01:10.000Z,70.000,3,10,false,run,5,5,50.000,5,0,0,select nested
measure,2025-01-01T00:01:10.000Z,70.000,4,10,true,run,1,1,1.000,1,0,0,select d
measure,2025-01-01T00:01:10.000Z,70.000,,,,other sessions,40,20,49.000,80,0,0,
measure,2025-01-01T00:01:10.000Z,70.000,6,10,true,run,1,1,0.000,0,0,0,"alter role x password 'secret-old'"
measure,2025-01-01T00:01:10.000Z,70.000,5,10,true,run,1,1,0.5`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, results.StatementsFile), []byte(csvText), 0o644); err != nil {
		t.Fatal(err)
	}
	se, err := statementsEvidence(dir, results.PhaseMeasure, 3)
	if err != nil {
		t.Fatal(err)
	}
	got, calls, rows := se.list, se.calls, se.rows
	// Top-level calls and rows of the run's statements of the phase, every
	// statement (not only the top 3): 100 + 50 + 10 + 1 + 1; the nested
	// one is counted in its caller, the other sessions apart.
	if calls != 162 || rows != 162 {
		t.Errorf("calls %d, rows %d; want 162, 162", calls, rows)
	}
	// Top-level time of the phase: 300 + 150 + 500 + 1 = 951 ms (the cut
	// last line is not read; the nested statement's time is its caller's).
	const all = 951.0
	want := []results.StatementCost{
		{QueryID: 2, Query: "update b", Calls: 10, Rows: 10, TotalMs: 500, MeanMs: 50, Share: 500 / all, SharedHitPerCall: 4, SharedReadPerCall: 2, WALBytesPerCall: 800},
		{QueryID: 1, Query: "select a", Calls: 150, Rows: 150, TotalMs: 450, MeanMs: 3, Share: 450 / all, SharedHitPerCall: 10, SharedReadPerCall: 1},
		{QueryID: 3, Query: "select nested", Calls: 5, Rows: 5, TotalMs: 50, MeanMs: 10, Share: 50 / all, SharedHitPerCall: 1},
	}
	close := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	same := func(g, w results.StatementCost) bool {
		return g.QueryID == w.QueryID && g.Query == w.Query && g.Calls == w.Calls && g.Rows == w.Rows &&
			close(g.TotalMs, w.TotalMs) && close(g.MeanMs, w.MeanMs) && close(g.Share, w.Share) &&
			close(g.SharedHitPerCall, w.SharedHitPerCall) && close(g.SharedReadPerCall, w.SharedReadPerCall) &&
			close(g.WALBytesPerCall, w.WALBytesPerCall)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d statements, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !same(got[i], want[i]) {
			t.Errorf("statement %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	// The other sessions: one sum, its share of all statements' time.
	wantOthers := results.StatementCost{Calls: 40, Rows: 20, TotalMs: 49, MeanMs: 49.0 / 40, Share: 49 / (all + 49), SharedHitPerCall: 2}
	if se.others == nil || !same(*se.others, wantOthers) {
		t.Errorf("other sessions: %+v, want %+v", se.others, wantOthers)
	}

	warm, err := statementsEvidence(dir, results.PhaseWarmup, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(warm.list) != 1 || warm.list[0].Calls != 1000 || warm.list[0].Share != 1 || warm.others != nil {
		t.Errorf("warm-up: %+v, want statement 1 alone with 1000 calls", warm)
	}
	all6, err := statementsEvidence(dir, results.PhaseMeasure, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all6.list) != 5 {
		t.Errorf("top 0: %d statements, want all 5", len(all6.list))
	}
	// A text an older pgtrial wrote as the server gave it is redacted.
	for _, c := range all6.list {
		if strings.Contains(c.Query, "secret-old") {
			t.Errorf("statement %d: %q", c.QueryID, c.Query)
		}
	}
	if _, err := statementsEvidence(t.TempDir(), results.PhaseMeasure, 3); err == nil {
		t.Error("no error without statements.csv")
	}
}

// stmtCols is a column set of pg_stat_statements.
func stmtCols(names string) map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(names) {
		m[n] = true
	}
	return m
}

func TestBuildStatementsQuery(t *testing.T) {
	const (
		v18 = `userid dbid queryid query plans total_plan_time min_plan_time max_plan_time mean_plan_time
			stddev_plan_time calls total_exec_time min_exec_time max_exec_time mean_exec_time stddev_exec_time
			rows shared_blks_hit shared_blks_read shared_blks_dirtied shared_blks_written local_blks_hit
			local_blks_read local_blks_dirtied local_blks_written temp_blks_read temp_blks_written
			blk_read_time blk_write_time wal_records wal_fpi wal_bytes`
		v111 = `userid dbid toplevel queryid query plans total_plan_time min_plan_time max_plan_time
			mean_plan_time stddev_plan_time calls total_exec_time min_exec_time max_exec_time mean_exec_time
			stddev_exec_time rows shared_blks_hit shared_blks_read shared_blks_dirtied shared_blks_written
			local_blks_hit local_blks_read local_blks_dirtied local_blks_written temp_blks_read
			temp_blks_written shared_blk_read_time shared_blk_write_time local_blk_read_time
			local_blk_write_time temp_blk_read_time temp_blk_write_time wal_records wal_fpi wal_bytes
			jit_functions stats_since minmax_stats_since`
		v17 = `userid dbid queryid query calls total_time min_time max_time mean_time stddev_time rows
			shared_blks_hit shared_blks_read shared_blks_dirtied shared_blks_written local_blks_hit
			local_blks_read local_blks_dirtied local_blks_written temp_blks_read temp_blks_written
			blk_read_time blk_write_time`
	)
	tests := []struct {
		name       string
		cols       string
		info       bool
		contains   []string
		absent     []string
		toplevel   bool
		statsSince bool
		missing    []string
	}{
		{
			name:     "1.8",
			cols:     v18,
			contains: []string{`"blk_read_time"::float8`, `"blk_write_time"::float8`, `"total_exec_time"::float8`, `"wal_bytes"::float8`, "null::bool as toplevel", "null::int8 as dealloc", "null::timestamptz as stats_since"},
			absent:   []string{"shared_blk_read_time", "pg_stat_statements_info"},
		},
		{
			name:       "1.11",
			cols:       v111,
			info:       true,
			contains:   []string{`"shared_blk_read_time"::float8`, `"shared_blk_write_time"::float8`, `"total_plan_time"::float8`, `toplevel,`, "stats_since,", `"public"."pg_stat_statements_info"`},
			absent:     []string{`"blk_read_time"`, "null::bool"},
			toplevel:   true,
			statsSince: true,
		},
		{
			name:     "1.7 left behind by an upgrade",
			cols:     v17,
			contains: []string{`"total_time"::float8`, `"blk_read_time"::float8`},
			missing:  []string{"total_plan_ms", "wal_records", "wal_fpi", "wal_bytes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := buildStatementsQuery("public", stmtCols(tt.cols), tt.info, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tt.contains {
				if !strings.Contains(q.sql, c) {
					t.Errorf("query lacks %s:\n%s", c, q.sql)
				}
			}
			for _, c := range tt.absent {
				if strings.Contains(q.sql, c) {
					t.Errorf("query has %s:\n%s", c, q.sql)
				}
			}
			if !strings.HasPrefix(q.sql, CollectorSQLMarker) || !strings.Contains(q.sql, `from "public"."pg_stat_statements" v, `) {
				t.Errorf("query does not read the entries with the marker:\n%s", q.sql)
			}
			// Another session's text is not read unless --all-statements.
			if !strings.Contains(q.sql, "case when (v.userid = me.userid and v.dbid = me.dbid) then left(v.query, 1000) end as query") {
				t.Errorf("query reads other sessions' texts:\n%s", q.sql)
			}
			all, err := buildStatementsQuery("public", stmtCols(tt.cols), tt.info, true)
			if err != nil || !strings.Contains(all.sql, "left(v.query, 1000) as query") {
				t.Errorf("--all-statements: %v\n%s", err, all.sql)
			}
			if q.toplevel != tt.toplevel || q.statsSince != tt.statsSince {
				t.Errorf("toplevel %v, stats_since %v; want %v, %v", q.toplevel, q.statsSince, tt.toplevel, tt.statsSince)
			}
			if !slices.Equal(q.missing, tt.missing) {
				t.Errorf("missing %q, want %q", q.missing, tt.missing)
			}
			for i, m := range stmtMetrics {
				if q.has[i] == slices.Contains(tt.missing, m.csv) {
					t.Errorf("%s: has = %v, missing list %q", m.csv, q.has[i], tt.missing)
				}
			}
		})
	}
	if _, err := buildStatementsQuery("public", stmtCols("userid dbid query calls"), true, false); err == nil || !strings.Contains(err.Error(), "queryid") {
		t.Errorf("without queryid: %v, want an error naming it", err)
	}
}

func TestBuildStatementsQueryRunsOnServer(t *testing.T) {
	// The 1.8 column set's query (blk_read_time, no toplevel, no info
	// view) runs on a server whose view still has those columns (1.8 to
	// 1.10, PostgreSQL 13 to 16); from 1.11 (PostgreSQL 17) the 1.11 set
	// (shared_blk_read_time) runs instead.
	t.Parallel()
	ctx := stmtTestCtx(t)
	_, conn := stmtTestDB(t, ctx)
	var old bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_attribute
		WHERE attrelid = 'pg_stat_statements'::regclass AND attname = 'blk_read_time' AND NOT attisdropped)`).Scan(&old); err != nil {
		t.Fatal(err)
	}
	cols := `userid dbid queryid query calls total_exec_time total_plan_time rows
		shared_blks_hit blk_read_time blk_write_time wal_bytes`
	if !old {
		cols = `userid dbid queryid query calls total_exec_time total_plan_time rows
		shared_blks_hit shared_blk_read_time shared_blk_write_time wal_bytes`
	}
	q, err := buildStatementsQuery("public", stmtCols(cols), false, false)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, q.sql)
	if err != nil {
		t.Fatalf("query on the server: %v\n%s", err, q.sql)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatalf("query on the server: %v\n%s", err, q.sql)
	}
}

func TestDiffSnapshots(t *testing.T) {
	t1 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Minute)
	entry := func(calls, execMs float64, since time.Time) *stmtEntry {
		e := &stmtEntry{since: since}
		e.v[mCalls], e.v[mExecMs] = calls, execMs
		return e
	}
	key := func(q int64) stmtKey { return stmtKey{userid: 10, queryid: q, toplevel: "true"} }
	before := &stmtSnapshot{hasInfo: true, dealloc: 3, statsReset: t1, entries: map[stmtKey]*stmtEntry{
		key(1): entry(10, 100, t1), // called 5 more times
		key(2): entry(5, 50, t1),   // evicted: left out
		key(3): entry(7, 70, t1),   // evicted and recreated (stats_since)
		key(5): entry(4, 40, t1),   // not called in between
		key(6): entry(9, 90, time.Time{}),
	}}
	after := &stmtSnapshot{hasInfo: true, dealloc: 3, statsReset: t1, entries: map[stmtKey]*stmtEntry{
		key(1): entry(15, 160, t1),
		key(3): entry(3, 30, t2),
		key(4): entry(4, 400, t2), // new: from zero
		key(5): entry(4, 40, t1),
		key(6): entry(2, 20, time.Time{}), // calls went down (1.8/1.10: no stats_since): recreated
	}}
	got := diffSnapshots(before, after)
	type short struct {
		q           int64
		calls, exec float64
	}
	var gs []short
	for _, d := range got {
		gs = append(gs, short{d.key.queryid, d.v[mCalls], d.v[mExecMs]})
	}
	want := []short{{4, 4, 400}, {1, 5, 60}, {3, 3, 30}, {6, 2, 20}}
	if !slices.Equal(gs, want) {
		t.Errorf("deltas %v, want %v (largest execution time first)", gs, want)
	}

	if n := evictionNote(before, after); n != "" {
		t.Errorf("no eviction, yet %q", n)
	}
	evicted := *after
	evicted.dealloc = 5
	if n := evictionNote(before, &evicted); !strings.Contains(n, "evicted entries 2 times") || !strings.Contains(n, "pg_stat_statements.max") {
		t.Errorf("dealloc grew by 2: %q", n)
	}
	reset := *after
	reset.statsReset = t2
	if n := evictionNote(before, &reset); !strings.Contains(n, "reset") {
		t.Errorf("stats_reset changed: %q", n)
	}
	if n := evictionNote(&stmtSnapshot{}, &stmtSnapshot{dealloc: 9}); n != "" {
		t.Errorf("1.8 (no info view): %q", n)
	}
}

func TestStatementsHeader(t *testing.T) {
	want := "time elapsed_s phase phase_start queryid userid dbid toplevel sessions calls rows total_exec_ms mean_exec_ms total_plan_ms shared_blks_hit shared_blks_read shared_blks_dirtied shared_blks_written temp_blks_read temp_blks_written wal_records wal_fpi wal_bytes shared_blk_read_ms shared_blk_write_ms query"
	if got := strings.Join(statementsHeader(), " "); got != want {
		t.Errorf("header\n got %s\nwant %s", got, want)
	}
}

// Issue 14, defect 5: a password another session sets while the run is
// collected never reaches statements.csv. The run's role in the run's
// database keeps its statements (their literals redacted); another role in
// the same database and the same superuser in another database are one
// "other sessions" row, without text; with AllStatements they have rows
// of their own, redacted.
func TestStatementsOtherSessionsKeepNoSecret(t *testing.T) {
	t.Parallel()
	ctx := stmtTestCtx(t)
	url, conn := stmtTestDB(t, ctx)
	suffix := strings.ToLower(strings.ReplaceAll(fmt.Sprintf("%d", time.Now().UnixNano()), "-", ""))
	target, other := "h4_target_"+suffix, "h4_other_"+suffix
	for _, sql := range []string{
		"create role " + target + " nologin",
		"create role " + other + " login superuser",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := pgtest.Connect(t, ctx, url)
		for _, sql := range []string{"drop owned by " + other, "drop role if exists " + other, "drop role if exists " + target} {
			if _, err := c.Exec(ctx, sql); err != nil {
				t.Logf("%s: %v", sql, err)
			}
		}
	})
	const prefix = "postgres://postgres@"
	if !strings.HasPrefix(url, prefix) {
		t.Fatalf("unexpected test URL %q", url)
	}
	otherRole := pgtest.Connect(t, ctx, "postgres://"+other+"@"+strings.TrimPrefix(url, prefix))
	otherDB := pgtest.Connect(t, ctx, pgtest.ConnString(t))
	var fdw bool
	if err := conn.QueryRow(ctx, "select exists (select from pg_available_extensions where name = 'postgres_fdw')").Scan(&fdw); err != nil {
		t.Fatal(err)
	}

	s, cfg, _ := stmtStart(t, ctx, url)
	allCfg := &Config{ConnString: url, Dir: t.TempDir(), RunStart: cfg.RunStart, AllStatements: true}
	all, err := newStatements(ctx, allCfg, (&testWarnings{}).warn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { all.close() })
	t0 := cfg.RunStart.Add(100 * time.Millisecond)
	for _, c := range []*statements{s, all} {
		if err := c.mark(ctx, results.PhaseMeasure, t0); err != nil {
			t.Fatal(err)
		}
	}

	exec := func(c *pgx.Conn, sqls ...string) {
		t.Helper()
		for _, sql := range sqls {
			if _, err := c.Exec(ctx, sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	stmtRun(t, ctx, conn, stmtTestSelect, 20)
	secrets := []string{"secret-own-1", "secret-role-2", "secret-db-3"}
	exec(conn, "alter role "+target+" password 'secret-own-1'")
	exec(otherRole, "alter role "+target+" with encrypted password 'secret-role-2'", "select count(*) from t")
	exec(otherDB, "create role "+target+"_x password 'secret-db-3'", "drop role "+target+"_x")
	if fdw {
		secrets = append(secrets, "secret-own-map-4", "secret-other-map-5")
		exec(conn, "create extension if not exists postgres_fdw",
			"create server h4_srv foreign data wrapper postgres_fdw options (host 'localhost', dbname 'x')",
			"create user mapping for "+target+" server h4_srv options (user 'u', password 'secret-own-map-4')")
		exec(otherDB, "create extension if not exists postgres_fdw",
			"create server h4_srv foreign data wrapper postgres_fdw options (host 'localhost', dbname 'x')",
			"create user mapping for "+target+" server h4_srv options (user 'u', password 'secret-other-map-5')",
			"drop user mapping for "+target+" server h4_srv")
		exec(conn, "drop user mapping for "+target+" server h4_srv")
	} else {
		t.Log("postgres_fdw is not available: CREATE USER MAPPING is not tried")
	}
	end := t0.Add(2 * time.Second)
	for _, c := range []*statements{s, all} {
		if err := c.finish(ctx, end); err != nil {
			t.Fatal(err)
		}
		if err := c.close(); err != nil {
			t.Fatal(err)
		}
	}

	for _, dir := range []string{cfg.Dir, allCfg.Dir} {
		data, err := os.ReadFile(filepath.Join(dir, results.StatementsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range secrets {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s holds %q:\n%s", dir, secret, data)
			}
		}
		if fi, err := os.Stat(filepath.Join(dir, results.StatementsFile)); err != nil || fi.Mode().Perm() != results.FileMode {
			t.Errorf("%s: mode %v (%v), want %v", results.StatementsFile, fi.Mode().Perm(), err, results.FileMode)
		}
	}

	rows, err := ReadStatements(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var others, ownAlter int
	for _, r := range rows {
		switch {
		case r.Sessions == results.SessionsOthers:
			others++
			// ALTER ROLE, CREATE ROLE, DROP ROLE, the select of the other
			// role (and whatever other tests ran on the cluster).
			if r.Calls < 4 || r.Query != "" || r.QueryID != 0 || r.UserID != 0 {
				t.Errorf("other sessions row: %+v", r)
			}
		case r.Sessions != results.SessionsRun:
			t.Errorf("a row of another session without --all-statements: %+v", r)
		case strings.HasPrefix(r.Query, "alter role "+target):
			ownAlter++
			if r.Query != "alter role "+target+" password "+results.Redacted {
				t.Errorf("the run's own ALTER ROLE: %q", r.Query)
			}
		}
	}
	if others != 1 || ownAlter != 1 {
		t.Errorf("%d other sessions rows, %d own ALTER ROLE rows; want 1, 1: %+v", others, ownAlter, rows)
	}

	allRows, err := ReadStatements(allCfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var otherAlter int
	for _, r := range allRows {
		if r.Sessions == results.SessionsOthers {
			t.Errorf("--all-statements wrote an other sessions row: %+v", r)
		}
		if r.Sessions == results.SessionsOther && strings.Contains(r.Query, "password "+results.Redacted) {
			otherAlter++
		}
	}
	if otherAlter < 2 {
		t.Errorf("--all-statements: %d redacted statements of other sessions, want the ALTER ROLE and the CREATE ROLE: %+v", otherAlter, allRows)
	}
}
