package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// srvRecorder collects the events and warnings a server source emits.
type srvRecorder struct {
	mu       sync.Mutex
	events   []results.Event
	warnings []string
}

func (r *srvRecorder) Event(e results.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	return nil
}

func (r *srvRecorder) warn(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

func (r *srvRecorder) ofKind(kind string) []results.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []results.Event
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func (r *srvRecorder) warned(sub string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.warnings, func(w string) bool { return strings.Contains(w, sub) })
}

// srvTest is a server source on a fresh database with its recorder.
type srvTest struct {
	url string
	cfg *Config
	rec *srvRecorder
	src *server
}

func srvCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// srvStart creates the database (setup runs before the baseline read) and
// the source.
func srvStart(t *testing.T, ctx context.Context, url string, setup ...string) *srvTest {
	t.Helper()
	if len(setup) > 0 {
		pgtest.Exec(t, url, setup...)
	}
	rec := &srvRecorder{}
	cfg := &Config{ConnString: url, Dir: t.TempDir(), RunStart: time.Now(), Interval: time.Second, Events: rec}
	src, err := newServer(ctx, cfg, rec.warn)
	if err != nil {
		t.Fatalf("newServer: %v", err)
	}
	t.Cleanup(func() { src.close() })
	return &srvTest{url: url, cfg: cfg, rec: rec, src: src}
}

// waitCounter polls the source's query until cond holds for the deltas
// since the baseline (the statistics of a backend that just exited reach
// the views a little later), at most 10 s.
func (st *srvTest) waitCounter(t *testing.T, ctx context.Context, what string, cond func(d func(col string) float64) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		cur, err := st.src.read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		d := func(col string) float64 {
			for _, c := range st.src.plan.counters {
				if c.column == col {
					v, _ := srvCounterDelta(c, st.src.prev, cur)
					return v.v
				}
			}
			return 0
		}
		if cond(d) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen in the statistics within 10 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sampleRow samples at the next grid point and returns the row written.
func (st *srvTest) sampleRow(t *testing.T, ctx context.Context, k int) map[string]string {
	t.Helper()
	at := st.cfg.RunStart.Add(time.Duration(k) * st.cfg.Interval)
	if err := st.src.sample(ctx, at); err != nil {
		t.Fatalf("sample: %v", err)
	}
	tab, err := readCSV(st.cfg.Dir, results.ServerFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.rows) == 0 {
		t.Fatal("server.csv has no rows")
	}
	last := tab.rows[len(tab.rows)-1]
	row := map[string]string{}
	for name, i := range tab.cols {
		row[name] = last[i]
	}
	if want := at.UTC().Format(timeFormat); row["time"] != want {
		t.Errorf("time = %q, want %q", row["time"], want)
	}
	return row
}

func srvNum(t *testing.T, row map[string]string, col string) float64 {
	t.Helper()
	v, ok := srvParse(row[col], srvCount)
	if !ok {
		t.Fatalf("column %s = %q, want a number (row %v)", col, row[col], row)
	}
	return v
}

// srvSettle waits out the statistics lag of PostgreSQL 13/14 (the stats
// collector publishes every 500 ms) so that work done before the baseline
// (CREATE DATABASE) does not show up after it.
func srvSettle(t *testing.T) {
	if pgtest.Cluster(t).Major() < 15 {
		time.Sleep(700 * time.Millisecond)
	}
}

// TestServerCheckpoint: a CHECKPOINT between two samples is one requested
// checkpoint in that row, with its write and sync time, and one checkpoint
// event with the control file's LSNs.
func TestServerCheckpoint(t *testing.T) {
	ctx := srvCtx(t)
	url := pgtest.ConnString(t)
	srvSettle(t)
	st := srvStart(t, ctx, url, "CREATE TABLE c (id int)", "INSERT INTO c SELECT generate_series(1, 1000)")
	before := time.Now()
	pgtest.Exec(t, url, "CHECKPOINT")
	after := time.Now()
	st.waitCounter(t, ctx, "the CHECKPOINT", func(d func(string) float64) bool { return d("checkpoints_requested") >= 1 })
	row := st.sampleRow(t, ctx, 1)

	if got := srvNum(t, row, "checkpoints_requested"); got != 1 {
		t.Errorf("checkpoints_requested = %v, want 1", got)
	}
	srvNum(t, row, "checkpoint_write_ms")
	srvNum(t, row, "checkpoint_sync_ms")
	if st.src.plan.version >= 180000 {
		if got := srvNum(t, row, "checkpoints_done"); got != 1 {
			t.Errorf("checkpoints_done = %v, want 1", got)
		}
	} else if row["checkpoints_done"] != "" {
		t.Errorf("checkpoints_done = %q before PostgreSQL 18, want empty", row["checkpoints_done"])
	}
	if starts := st.rec.ofKind(results.EventCheckpointStart); len(starts) != 1 || starts[0].Data["kind"] != "requested" {
		t.Errorf("checkpoint start events = %+v, want 1 requested", starts)
	}
	evs := st.rec.ofKind(results.EventCheckpoint)
	if len(evs) != 1 {
		t.Fatalf("checkpoint events = %+v, want 1", evs)
	}
	if spans := results.CheckpointSpans(st.rec.events); len(spans) != 1 || spans[0].Start.IsZero() || spans[0].End.IsZero() || spans[0].Kind != "requested" {
		t.Errorf("checkpoint spans = %+v, want one with its start and completion", spans)
	}
	e := evs[0]
	if e.Data["kind"] != "requested" {
		t.Errorf("kind = %v, want requested", e.Data["kind"])
	}
	for _, k := range []string{"checkpoint_lsn", "redo_lsn", "checkpoint_time", "write_ms", "sync_ms"} {
		if _, ok := e.Data[k]; !ok {
			t.Errorf("event data has no %s: %v", k, e.Data)
		}
	}
	if lsn, _ := e.Data["checkpoint_lsn"].(string); !strings.Contains(lsn, "/") {
		t.Errorf("checkpoint_lsn = %v, want an LSN", e.Data["checkpoint_lsn"])
	}
	// The completion time from pg_control_system() (1 s resolution).
	if e.Time.Before(before.Add(-time.Second)) || e.Time.After(after.Add(time.Second)) {
		t.Errorf("event time %v, want within [%v, %v] ± 1 s", e.Time, before, after)
	}

	// The next interval has no checkpoint and no event.
	row = st.sampleRow(t, ctx, 2)
	if got := srvNum(t, row, "checkpoints_requested"); got != 0 {
		t.Errorf("next interval: checkpoints_requested = %v, want 0", got)
	}
	if n := len(st.rec.ofKind(results.EventCheckpoint)); n != 1 {
		t.Errorf("checkpoint events after an idle interval = %d, want still 1", n)
	}
}

// TestServerWALAndIdle: inserts show as WAL records, bytes and LSN bytes and
// commits in their interval; an idle interval is close to zero (our own read
// is a read-only transaction: one commit and some buffer hits).
func TestServerWALAndIdle(t *testing.T) {
	ctx := srvCtx(t)
	url := pgtest.ConnString(t)
	srvSettle(t)
	st := srvStart(t, ctx, url, "CREATE TABLE w (id int, pad text)")
	const n = 5000
	pgtest.Exec(t, url, "INSERT INTO w SELECT i, repeat('x', 100) FROM generate_series(1, 5000) i")
	st.waitCounter(t, ctx, "the insert", func(d func(string) float64) bool {
		return d("wal_lsn_bytes") > n*100 && d("xact_commit") >= 1 && (st.src.plan.version < 140000 || d("wal_records") >= n)
	})
	var heard map[string]float64
	st.cfg.OnSample = func(kind string, v map[string]float64) {
		if kind == KindServer {
			heard = v
		}
	}
	row := st.sampleRow(t, ctx, 1)
	if st.src.plan.version >= 140000 {
		if heard["wal_bytes"] != srvNum(t, row, "wal_bytes") {
			t.Errorf("OnSample heard wal_bytes %v, the row has %v", heard["wal_bytes"], row["wal_bytes"])
		}
		if got := srvNum(t, row, "wal_records"); got < n {
			t.Errorf("wal_records = %v, want ≥ %d", got, n)
		}
		if got := srvNum(t, row, "wal_bytes"); got < n*100 {
			t.Errorf("wal_bytes = %v, want ≥ %d", got, n*100)
		}
		srvNum(t, row, "wal_fpi")
	} else {
		for _, c := range []string{"wal_records", "wal_bytes", "wal_fpi"} {
			if row[c] != "" {
				t.Errorf("%s = %q on PostgreSQL 13, want empty", c, row[c])
			}
		}
	}
	lsnBytes := srvNum(t, row, "wal_lsn_bytes")
	if lsnBytes < n*100 {
		t.Errorf("wal_lsn_bytes = %v, want ≥ %d", lsnBytes, n*100)
	}
	// The LSN counts page headers too, so it moves at least as far as
	// pg_stat_wal's bytes — over the same span. The counters reach the view
	// when a backend flushes its statistics, the LSN is read as it is: a
	// row's two figures may cover slightly different spans (on 18, 1 % less
	// LSN than counted bytes was seen), hence the 10 % margin.
	if st.src.plan.version >= 140000 && lsnBytes < 0.9*srvNum(t, row, "wal_bytes") {
		t.Errorf("wal_lsn_bytes %v < 0.9 × wal_bytes %v: the LSN counts page headers too", lsnBytes, row["wal_bytes"])
	}
	if got := srvNum(t, row, "xact_commit"); got < 1 {
		t.Errorf("xact_commit = %v, want ≥ 1", got)
	}
	srvNum(t, row, "blks_hit")
	srvNum(t, row, "backend_writes")
	if got := srvNum(t, row, "autovacuum_workers"); got != 0 {
		t.Errorf("autovacuum_workers = %v with autovacuum off, want 0", got)
	}

	// What one read costs (a cached prepared statement, one round trip).
	began := time.Now()
	for range 5 {
		if _, err := st.src.read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("one read: %v", time.Since(began)/5)

	// Idle: our own reads are the only activity. A backend flushes its
	// statistics at the end of a transaction at most once a second, so
	// each row shows the previous reads' commits; the polls above arrive in
	// the next rows, then every row has the one commit of the read before.
	for k := 2; k <= 4; k++ {
		time.Sleep(time.Second)
		row = st.sampleRow(t, ctx, k)
		t.Logf("idle row %d (our own reads only): xact_commit=%s blks_hit=%s blks_read=%s wal_records=%s wal_bytes=%s wal_lsn_bytes=%s",
			k, row["xact_commit"], row["blks_hit"], row["blks_read"], row["wal_records"], row["wal_bytes"], row["wal_lsn_bytes"])
	}
	if got := srvNum(t, row, "xact_commit"); got > 3 {
		t.Errorf("idle xact_commit = %v, want ≤ 3 (our own reads)", got)
	}
	if got := srvNum(t, row, "wal_lsn_bytes"); got > 8192 {
		t.Errorf("idle wal_lsn_bytes = %v, want ≤ 8192", got)
	}
	if st.src.plan.version >= 140000 {
		if got := srvNum(t, row, "wal_records"); got > 5 {
			t.Errorf("idle wal_records = %v, want ≤ 5", got)
		}
	}
	for _, c := range []string{"checkpoints_requested", "xact_rollback", "temp_bytes", "deadlocks"} {
		if got := srvNum(t, row, c); got != 0 {
			t.Errorf("idle %s = %v, want 0", c, got)
		}
	}
}

// srvSet changes cluster settings and restores their current values when
// the test ends.
func srvSet(t *testing.T, ctx context.Context, url string, settings map[string]string) {
	t.Helper()
	c := pgtest.Cluster(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	var set, restore []localpg.Setting
	for name, v := range settings {
		var old string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&old); err != nil {
			t.Fatal(err)
		}
		set = append(set, localpg.Setting{Name: name, Value: v})
		restore = append(restore, localpg.Setting{Name: name, Value: old})
	}
	conn.Close(ctx)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := c.Set(ctx, restore); err != nil {
			t.Errorf("restore settings: %v", err)
		}
	})
	if _, err := c.Set(ctx, set); err != nil {
		t.Fatalf("set %v: %v", settings, err)
	}
}

// TestServerFPI: with full_page_writes on (the test cluster has it off),
// the first change of each page after a checkpoint writes a full-page image.
func TestServerFPI(t *testing.T) {
	ctx := srvCtx(t)
	url := pgtest.ConnString(t)
	if pgtest.Cluster(t).Major() < 14 {
		t.Skip("wal_fpi needs pg_stat_wal (PostgreSQL 14+)")
	}
	srvSet(t, ctx, url, map[string]string{"full_page_writes": "on"})
	pgtest.Exec(t, url, "CREATE TABLE f (id int, pad text)",
		"INSERT INTO f SELECT i, repeat('x', 100) FROM generate_series(1, 2000) i", "CHECKPOINT")
	srvSettle(t)
	st := srvStart(t, ctx, url)
	var fpw bool
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT full_page_writes FROM pg_control_checkpoint()").Scan(&fpw); err != nil || !fpw {
		t.Fatalf("the checkpoint did not record full_page_writes on (%v, %v)", fpw, err)
	}
	conn.Close(ctx)
	pgtest.Exec(t, url, "UPDATE f SET id = id + 1")
	st.waitCounter(t, ctx, "the update", func(d func(string) float64) bool { return d("wal_fpi") > 0 && d("wal_records") >= 2000 })
	row := st.sampleRow(t, ctx, 1)
	fpi, records := srvNum(t, row, "wal_fpi"), srvNum(t, row, "wal_records")
	// 2000 rows of ~130 bytes fill some 35 pages: one image each.
	if fpi < 20 || fpi > records {
		t.Errorf("wal_fpi = %v (records %v), want ≥ 20 and ≤ records", fpi, records)
	}
}

// TestServerAutovacuum: autovacuum on with a 1 s naptime and low thresholds
// for one table: its run is an autovacuum event with the counts.
func TestServerAutovacuum(t *testing.T) {
	ctx := srvCtx(t)
	url := pgtest.ConnString(t)
	srvSettle(t)
	st := srvStart(t, ctx, url,
		`CREATE TABLE av (id int) WITH (autovacuum_enabled = false,
			autovacuum_vacuum_threshold = 10, autovacuum_vacuum_scale_factor = 0,
			autovacuum_analyze_threshold = 10, autovacuum_analyze_scale_factor = 0)`,
		"INSERT INTO av SELECT generate_series(1, 500)", "DELETE FROM av WHERE id > 100")
	srvSet(t, ctx, url, map[string]string{"autovacuum": "on", "autovacuum_naptime": "1s"})
	pgtest.Exec(t, url, "ALTER TABLE av SET (autovacuum_enabled = true)")

	deadline := time.Now().Add(30 * time.Second)
	var vacuums, analyzes int64
	for k := 1; vacuums == 0; k++ {
		if time.Now().After(deadline) {
			t.Fatalf("no autovacuum event for av within 30 s; events %+v", st.rec.events)
		}
		time.Sleep(300 * time.Millisecond)
		row := st.sampleRow(t, ctx, k)
		srvNum(t, row, "autovacuum_workers")
		for _, e := range st.rec.ofKind(results.EventAutovacuum) {
			if e.Data["table"] == "av" {
				vacuums += results.DataInt(e.Data["vacuums"])
				analyzes += results.DataInt(e.Data["analyzes"])
			}
		}
		st.rec.mu.Lock()
		st.rec.events = nil
		st.rec.mu.Unlock()
	}
	if vacuums != 1 {
		t.Errorf("vacuums = %d, want 1", vacuums)
	}
	t.Logf("autovacuum of av: %d vacuums, %d analyzes", vacuums, analyzes)
}

// TestServerReconnect: a terminated collector session fails one sample and
// is reopened on the next; the row after it covers both intervals.
func TestServerReconnect(t *testing.T) {
	ctx := srvCtx(t)
	url := pgtest.ConnString(t)
	st := srvStart(t, ctx, url)
	st.sampleRow(t, ctx, 1)
	pgtest.Exec(t, url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"+ApplicationName+"'")
	time.Sleep(100 * time.Millisecond)
	if err := st.src.sample(ctx, st.cfg.RunStart.Add(2*time.Second)); err == nil {
		t.Log("the sample after the termination succeeded (the connection was noticed closed)")
	}
	row := st.sampleRow(t, ctx, 3)
	srvNum(t, row, "xact_commit")
	var mode string
	if err := st.src.conn.conn.QueryRow(ctx, "SELECT current_setting('stats_fetch_consistency', true)").Scan(&mode); err == nil &&
		st.src.plan.snapshot && mode != "snapshot" {
		t.Errorf("stats_fetch_consistency = %q on the new connection, want snapshot", mode)
	}
}

// srvPlanCatalog is a catalog with the columns of the reference (§1) for a
// major version.
func srvPlanCatalog(major int) serverCatalog {
	cols := map[string]string{
		"pg_stat_database":         "datname xact_commit xact_rollback blks_read blks_hit temp_bytes deadlocks stats_reset",
		"pg_stat_activity":         "pid backend_type",
		"pg_stat_progress_vacuum":  "pid datname relid phase",
		"pg_stat_progress_analyze": "pid datname relid phase",
		"pg_stat_user_tables":      "relid schemaname relname autovacuum_count autoanalyze_count",
	}
	switch {
	case major <= 16:
		cols["pg_stat_bgwriter"] = "checkpoints_timed checkpoints_req checkpoint_write_time checkpoint_sync_time buffers_backend stats_reset"
	default:
		cols["pg_stat_bgwriter"] = "buffers_clean stats_reset"
		cols["pg_stat_checkpointer"] = "num_timed num_requested write_time sync_time stats_reset"
		if major >= 18 {
			cols["pg_stat_checkpointer"] += " num_done"
		}
	}
	if major >= 14 {
		cols["pg_stat_wal"] = "wal_records wal_fpi wal_bytes stats_reset"
	}
	if major >= 16 {
		cols["pg_stat_io"] = "backend_type object context writes stats_reset"
		if major >= 18 {
			cols["pg_stat_io"] += " write_bytes"
		}
	}
	cat := serverCatalog{version: major * 10000, cols: map[string]map[string]bool{}, control: true, controlTime: true, snapshot: major >= 15}
	for v, cs := range cols {
		cat.cols[v] = map[string]bool{}
		for _, c := range strings.Fields(cs) {
			cat.cols[v][c] = true
		}
	}
	return cat
}

// TestPlanServerVersions: the counters come from the view each version
// has, and what is missing is warned once.
func TestPlanServerVersions(t *testing.T) {
	for _, tc := range []struct {
		major   int
		exprs   map[string]string // column → view.expr ("" view: none)
		missing string            // warned as missing ("" = no warning)
	}{
		{13, map[string]string{"checkpoints_timed": "pg_stat_bgwriter.checkpoints_timed", "backend_writes": "pg_stat_bgwriter.buffers_backend",
			"wal_bytes": "pg_stat_wal.", "checkpoints_done": "pg_stat_bgwriter."}, "wal_bytes, wal_records, wal_fpi"},
		{15, map[string]string{"checkpoints_requested": "pg_stat_bgwriter.checkpoints_req", "wal_fpi": "pg_stat_wal.wal_fpi",
			"backend_writes": "pg_stat_bgwriter.buffers_backend"}, ""},
		{16, map[string]string{"backend_writes": "pg_stat_io.sum(writes)", "checkpoint_sync_ms": "pg_stat_bgwriter.checkpoint_sync_time"}, ""},
		{17, map[string]string{"checkpoints_timed": "pg_stat_checkpointer.num_timed", "checkpoint_write_ms": "pg_stat_checkpointer.write_time",
			"checkpoints_done": "pg_stat_checkpointer.", "backend_writes": "pg_stat_io.sum(writes)"}, ""},
		{18, map[string]string{"checkpoints_done": "pg_stat_checkpointer.num_done",
			"backend_writes": "pg_stat_io.round(sum(write_bytes) / current_setting('block_size')::numeric)"}, ""},
	} {
		rec := &srvRecorder{}
		p := planServer(srvPlanCatalog(tc.major), rec.warn)
		got := map[string]string{}
		var cols []string
		for _, c := range p.counters {
			got[c.column] = c.view + "." + c.expr
			cols = append(cols, c.column)
		}
		if want := serverHeader[2 : len(serverHeader)-2]; !slices.Equal(cols, want) {
			t.Errorf("PG%d: counters %v, want %v", tc.major, cols, want)
		}
		for col, want := range tc.exprs {
			if got[col] != want {
				t.Errorf("PG%d: %s from %q, want %q", tc.major, col, got[col], want)
			}
		}
		if tc.missing != "" && !rec.warned("left empty in server.csv: "+tc.missing) {
			t.Errorf("PG%d: warnings %q, want one about %s", tc.major, rec.warnings, tc.missing)
		}
		if tc.missing == "" && len(rec.warnings) > 0 {
			t.Errorf("PG%d: unexpected warnings %q", tc.major, rec.warnings)
		}
		if !strings.HasPrefix(p.sql, CollectorSQLMarker) || len(p.aliases) == 0 {
			t.Errorf("PG%d: query %q", tc.major, p.sql)
		}
	}

	// Without pg_control_checkpoint(): a warning, and no control columns.
	cat := srvPlanCatalog(15)
	cat.control = false
	rec := &srvRecorder{}
	p := planServer(cat, rec.warn)
	if !rec.warned("pg_control_checkpoint() is not executable") || slices.Contains(p.aliases, srvAliasCkptLSN) {
		t.Errorf("without pg_control_checkpoint: warnings %q, aliases %v", rec.warnings, p.aliases)
	}
}

// srvSnap is a synthetic read.
func srvSnap(at time.Time, vals map[string]string, tables ...serverTableCounts) *serverSnapshot {
	s := &serverSnapshot{at: at, vals: vals, tables: map[uint32]serverTableCounts{}}
	for _, tc := range tables {
		s.tables[tc.Relid] = tc
	}
	return s
}

// TestServerRowDeltas: deltas, empty cells for what the server lacks and
// for resets (stats_reset changed, a counter went backwards), with a
// warning naming the reset.
func TestServerRowDeltas(t *testing.T) {
	rec := &srvRecorder{}
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	s := &server{cfg: &Config{RunStart: start, Interval: time.Second, Events: rec}, warn: rec.warn,
		plan: planServer(srvPlanCatalog(15), func(string, ...any) {})}
	base := map[string]string{
		"checkpoints_timed": "5", "checkpoints_requested": "2", "checkpoint_write_ms": "100.5", "checkpoint_sync_ms": "7",
		"reset_pg_stat_bgwriter": "1700000000", "backend_writes": "40",
		"wal_bytes": "1000000", "wal_records": "5000", "wal_fpi": "100", "reset_pg_stat_wal": "1700000000",
		"wal_lsn_bytes": "1/FFFFFF00",
		"blks_hit":      "900", "blks_read": "100", "xact_commit": "50", "xact_rollback": "1", "temp_bytes": "0", "deadlocks": "0",
		"reset_pg_stat_database": "",
		"autovacuum_workers":     "0",
	}
	next := func(m map[string]string, changes map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for k, v := range changes {
			out[k] = v
		}
		return out
	}
	v1 := next(base, map[string]string{"checkpoints_timed": "6", "checkpoint_write_ms": "350.75", "wal_bytes": "1500000",
		"wal_records": "5600", "wal_fpi": "160", "wal_lsn_bytes": "2/00000100", "xact_commit": "80",
		"reset_pg_stat_database": "1700000050", // NULL → a time: the entry appeared (13/14), not a reset
		"autovacuum_workers":     "1", "autovacuum_tables": "pgbench_accounts (scanning heap)"})
	p0, p1 := srvSnap(start, base), srvSnap(start.Add(time.Second), v1)
	row, d := s.row(p0, p1, start.Add(time.Second))
	want := []string{"2025-03-01T12:00:01.000Z", "1.000", "1", "0", "", "250.250", "0.000", "500000", "600", "60", "512",
		"0", "0", "0", "30", "0", "0", "0", "1", "pgbench_accounts (scanning heap)"}
	if !slices.Equal(row, want) {
		t.Errorf("row\n got %q\nwant %q", row, want)
	}
	if !d["wal_fpi"].ok || d["wal_fpi"].v != 60 || d["checkpoints_done"].ok {
		t.Errorf("deltas %+v", d)
	}
	if len(rec.warnings) > 0 {
		t.Errorf("warnings %q, want none", rec.warnings)
	}

	// pg_stat_wal reset (stats_reset moved) and xact_commit went backwards.
	v2 := next(v1, map[string]string{"reset_pg_stat_wal": "1700000100", "wal_bytes": "2000", "wal_records": "10", "wal_fpi": "1",
		"xact_commit": "3", "blks_hit": "950"})
	row, _ = s.row(p1, srvSnap(start.Add(2*time.Second), v2), start.Add(2*time.Second))
	cell := func(col string) string { return row[slices.Index(serverHeader, col)] }
	for _, c := range []string{"wal_bytes", "wal_records", "wal_fpi", "xact_commit"} {
		if cell(c) != "" {
			t.Errorf("after a reset %s = %q, want empty", c, cell(c))
		}
	}
	if cell("blks_hit") != "50" || cell("wal_lsn_bytes") != "0" {
		t.Errorf("unaffected cells: blks_hit %q, wal_lsn_bytes %q", cell("blks_hit"), cell("wal_lsn_bytes"))
	}
	if !rec.warned("statistics of pg_stat_wal were reset at 2023-11-14T22:15:00.000Z") ||
		!rec.warned("statistics of pg_stat_database were reset (xact_commit went backwards)") || len(rec.warnings) != 2 {
		t.Errorf("warnings %q, want one per view", rec.warnings)
	}
}

// TestServerEvidence: the window's rows are summed, the window's events
// counted, WAL falls back to the LSN where pg_stat_wal has no value.
func TestServerEvidence(t *testing.T) {
	dir := t.TempDir()
	from := time.Date(2025, 3, 1, 12, 0, 10, 0, time.UTC)
	to := from.Add(3 * time.Second)
	ts := func(d time.Duration) string { return from.Add(d).Format(timeFormat) }
	csv := strings.Join(serverHeader, ",") + "\n" +
		// Before the window (warm-up): left out.
		ts(0) + ",10.000,9,9,,999,999,99999,999,99,99999,99,99,99,99,9,9,9,1,x (scanning heap)\n" +
		ts(time.Second) + ",11.000,1,0,,100.5,10.25,1000,10,5,1100,3,90,10,20,1,0,0,0,\n" +
		// A pg_stat_wal reset: this row's WAL bytes come from the LSN.
		ts(2*time.Second) + ",12.000,0,1,,20,1,,,,2000,0,50,50,30,0,4096,1,1,\"a (vacuuming indexes), b (analyze: acquiring sample rows)\"\n" +
		ts(3*time.Second) + ",13.000,0,0,,0,0,500,5,0,600,1,60,0,10,0,0,0,0,\n" +
		// After the window: left out.
		ts(5*time.Second) + ",15.000,7,7,,7,7,7,7,7,7,7,7,7,7,7,7,7,0,\n" +
		// Cut short by a crash: ignored.
		ts(6*time.Second) + ",16.000,1,1"
	if err := os.WriteFile(filepath.Join(dir, results.ServerFile), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	var ev0 results.Evidence
	if err := serverEvidence(dir, from, to, time.Second, 100, &ev0); err != nil {
		t.Fatalf("without events.jsonl: %v", err)
	}
	if ev0.Checkpoints != 0 || ev0.Autovacuum != nil || ev0.WALBytes != 3500 {
		t.Errorf("without events: %+v", ev0)
	}
	if len(ev0.Missing) != 0 {
		t.Errorf("missing %v: every counter has a value in some row of the window", ev0.Missing)
	}

	var lines []string
	for _, e := range []results.Event{
		{Time: from.Add(-time.Second), Kind: results.EventCheckpoint},
		{Time: from.Add(1500 * time.Millisecond), Kind: results.EventCheckpoint},
		{Time: to, Kind: results.EventCheckpoint},
		{Time: to.Add(time.Millisecond), Kind: results.EventCheckpoint},
		{Time: from.Add(time.Second), Kind: results.EventAutovacuum, Data: map[string]any{"table": "b", "vacuums": 1, "analyzes": 0}},
		{Time: from.Add(2 * time.Second), Kind: results.EventAutovacuum, Data: map[string]any{"table": "a", "vacuums": 0, "analyzes": 1}},
		{Time: from.Add(2500 * time.Millisecond), Kind: results.EventAutovacuum, Data: map[string]any{"table": "a", "vacuums": 1, "analyzes": 1}},
		{Time: from, Kind: results.EventAutovacuum, Data: map[string]any{"table": "a", "vacuums": 9, "analyzes": 9}},
		{Time: from.Add(time.Second), Kind: results.EventPhase, Phase: results.PhaseMeasure},
	} {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(filepath.Join(dir, results.EventsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ev results.Evidence
	if err := serverEvidence(dir, from, to, time.Second, 100, &ev); err != nil {
		t.Fatal(err)
	}
	want := results.Evidence{
		Checkpoints: 2, CheckpointsTimed: 1, CheckpointsRequested: 1, CheckpointWriteMs: 120.5, CheckpointSyncMs: 11.25,
		WALBytes: 3500, WALRecords: 15, WALFPI: 5, WALBytesPerTx: 35, FPIShare: 5.0 / 15,
		BlocksHit: 200, BlocksRead: 60, HitRatio: 200.0 / 260, BackendWrites: 4, TempBytes: 4096, Deadlocks: 1,
		Autovacuum: []results.TableVacuum{{Table: "a", Vacuums: 1, Analyzes: 2}, {Table: "b", Vacuums: 1}},
	}
	// The completions in the window, their starts unknown (no start events).
	want.CheckpointSpans = []results.CheckpointSpan{{End: from.Add(1500 * time.Millisecond)}, {End: to}}
	gotJSON, _ := json.Marshal(ev)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("evidence\n got %s\nwant %s", gotJSON, wantJSON)
	}

	rows, err := ReadServer(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || rows[2].WALBytes != nil || *rows[2].WALLSNBytes != 2000 || rows[2].CheckpointsDone != nil ||
		*rows[2].CheckpointSyncMs != 1 || rows[2].AutovacuumTables != "a (vacuuming indexes), b (analyze: acquiring sample rows)" ||
		rows[2].ElapsedS != 12 || !rows[2].Time.Equal(from.Add(2*time.Second)) {
		t.Errorf("ReadServer: %d rows, row 2 %+v", len(rows), rows[2])
	}
}

// TestReadServerInfo: the key settings, the pgbench tables largest first
// (or the tables named), the extensions.
func TestReadServerInfo(t *testing.T) {
	ctx := srvCtx(t)
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url,
		"CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, abalance int, filler char(84))",
		"INSERT INTO pgbench_accounts SELECT i, 0, '' FROM generate_series(1, 10000) i",
		"CREATE TABLE pgbench_branches (bid int, bbalance int)",
		"INSERT INTO pgbench_branches VALUES (1, 0)",
		"CREATE TABLE pgbenchXother (id int)",
		"CREATE SCHEMA s", "CREATE TABLE s.other (id int)",
		"ANALYZE")
	conn, err := connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	info, err := readServerInfo(ctx, conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.VersionNum < 130000 || !strings.HasPrefix(info.Version, "PostgreSQL ") || info.DatabaseBytes <= 0 {
		t.Errorf("version %q %d, database %d bytes", info.Version, info.VersionNum, info.DatabaseBytes)
	}
	for _, k := range keySettings {
		newIn14 := k == "track_wal_io_timing" || k == "compute_query_id"
		if _, ok := info.Settings[k]; !ok && k != "pg_stat_statements.track_planning" && (!newIn14 || info.VersionNum >= 140000) {
			t.Errorf("setting %s missing", k)
		}
	}
	// The test cluster's own values, with their unit as SHOW prints them.
	for k, want := range map[string]string{"shared_buffers": "128MB", "fsync": "off", "full_page_writes": "off", "autovacuum": "off"} {
		if info.Settings[k] != want {
			t.Errorf("%s = %q, want %q", k, info.Settings[k], want)
		}
	}
	for k := range info.Settings {
		if strings.Contains(strings.ToLower(k), "password") {
			t.Errorf("setting %s recorded", k)
		}
	}
	if len(info.Tables) != 2 || info.Tables[0].Name != "pgbench_accounts" || info.Tables[1].Name != "pgbench_branches" {
		t.Fatalf("tables %+v, want pgbench_accounts then pgbench_branches", info.Tables)
	}
	acc := info.Tables[0]
	if acc.HeapBytes < 8192*10 || acc.TotalBytes <= acc.HeapBytes || acc.Rows != 10000 {
		t.Errorf("pgbench_accounts %+v: want heap > 80 kB, total with the index more, 10000 rows", acc)
	}
	if _, ok := info.Extensions["plpgsql"]; !ok {
		t.Errorf("extensions %v, want plpgsql", info.Extensions)
	}

	info, err = readServerInfo(ctx, conn, []string{"s.other", "pgbench_branches", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Tables) != 2 || info.Tables[0].Name != "pgbench_branches" || info.Tables[1].Name != "s.other" {
		t.Errorf("named tables %+v, want pgbench_branches and s.other", info.Tables)
	}
}

// TestServerThroughCollector: started by Start, the source writes a row per
// grid point from the first period on, Stop takes the one at or after the
// end, and the server information is read.
func TestServerThroughCollector(t *testing.T) {
	ctx := srvCtx(t)
	url := pgtest.ConnString(t)
	dir := t.TempDir()
	start := time.Now()
	c, err := Start(ctx, Config{ConnString: url, Dir: dir, RunStart: start, Interval: 200 * time.Millisecond, Kinds: []string{KindServer}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(start.Add(1100 * time.Millisecond)))
	warnings := c.Stop(ctx, time.Now())
	for _, w := range warnings {
		if strings.Contains(w, "server") && !strings.Contains(w, "not available on this server") { // 13 has no pg_stat_wal
			t.Errorf("warning %q", w)
		}
	}
	if info := c.Server(); info == nil || info.Settings["shared_buffers"] == "" {
		t.Errorf("server information %+v", info)
	}
	rows, err := ReadServer(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Grid points 0.2 … 1.0 s, and the last one at or after Stop's end:
	// 1.2 s (a late timer may skip one point on a slow machine).
	if len(rows) < 5 || len(rows) > 6 {
		t.Fatalf("%d rows in 1.1 s at 200 ms and one after the end, want 6 (5 on a slow machine)", len(rows))
	}
	if last := rows[len(rows)-1].ElapsedS; last < 1.1 {
		t.Errorf("last row at %.3f s, want the sample at or after the end (1.1 s)", last)
	}
	for i, r := range rows {
		k := r.ElapsedS / 0.2
		if k < 0.999 || math.Abs(k-math.Round(k)) > 1e-6 || r.XactCommit == nil || r.WALLSNBytes == nil {
			t.Errorf("row %d: elapsed %v (want a multiple of 0.2 from 0.2 on), commits %v, LSN bytes %v", i, r.ElapsedS, r.XactCommit, r.WALLSNBytes)
		}
	}
}

// TestServerEvidenceMissingCounters: a counter empty in every row of the
// window (PostgreSQL 13 has no pg_stat_wal) is missing, not 0.
func TestServerEvidenceMissingCounters(t *testing.T) {
	dir := t.TempDir()
	from := time.Date(2025, 3, 1, 12, 0, 10, 0, time.UTC)
	ts := func(d time.Duration) string { return from.Add(d).Format(timeFormat) }
	csv := strings.Join(serverHeader, ",") + "\n" +
		ts(time.Second) + ",11.000,1,0,,100.5,10.25,,,,1100,3,90,10,20,1,0,0,0,\n" +
		ts(2*time.Second) + ",12.000,0,1,,20,1,,,,2000,0,50,50,30,0,4096,1,1,\n"
	if err := os.WriteFile(filepath.Join(dir, results.ServerFile), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	var ev results.Evidence
	if err := serverEvidence(dir, from, from.Add(2*time.Second), time.Second, 10, &ev); err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"wal_records", "wal_fpi"} {
		if r, ok := ev.MissingReason(results.EvidenceServer + "." + col); !ok || !strings.Contains(r, "not available on this server") {
			t.Errorf("%s: missing %q %v", col, r, ok)
		}
	}
	if _, ok := ev.MissingReason(results.EvidenceServer + ".backend_writes"); ok || len(ev.Missing) != 2 {
		t.Errorf("missing %v, want only wal_records and wal_fpi", ev.Missing)
	}
	if ev.WALBytes != 3100 {
		t.Errorf("WAL bytes %d, want the LSN's 3100", ev.WALBytes)
	}
}
