package collect

// The server-counters collector (server.csv, checkpoint and autovacuum
// events): once per period, one query reads the server's cumulative
// counters (checkpoints, WAL, backend writes, the target database's
// pg_stat_database row, autovacuum) and a row of deltas since the previous
// read is written.
//
// # server.csv
//
// Every row covers the interval between two reads and carries "time" (the
// grid time t it was due at) and "elapsed_s". The first read, made when the
// collector starts, is only the baseline: it writes no row, so the first row
// (at RunStart + period) covers the time from the collector's start. The
// counters are deltas over the interval; a sample that failed (lost
// connection) leaves its row out and the next row covers both intervals, so
// sums over rows stay exact. Columns:
//
//	checkpoints_timed      Δ checkpoints_timed (≤16) / num_timed (17+): started
//	                       because checkpoint_timeout elapsed; counts skipped
//	                       (idle-server) checkpoints too
//	checkpoints_requested  Δ checkpoints_req / num_requested: started on request
//	                       (CHECKPOINT, max_wal_size reached, …)
//	checkpoints_done       Δ num_done (18+): completed; empty before 18
//	checkpoint_write_ms    Δ checkpoint_write_time / write_time (ms, added when a
//	checkpoint_sync_ms     checkpoint ends) and sync_time (ms)
//	wal_bytes              Δ pg_stat_wal.wal_bytes (14+; empty on 13)
//	wal_records, wal_fpi   Δ pg_stat_wal.wal_records, wal_fpi (14+; empty on 13);
//	                       FPI share = wal_fpi / wal_records
//	wal_lsn_bytes          WAL written by the interval's inserts: Δ
//	                       pg_current_wal_insert_lsn() (pg_last_wal_replay_lsn()
//	                       on a standby), every version; slightly more than
//	                       wal_bytes (page headers, segment-switch padding)
//	backend_writes         buffers written by client backends themselves:
//	                       Σ pg_stat_io.writes of backend_type 'client backend',
//	                       object 'relation' (16+; 18+: write_bytes/block_size,
//	                       as writes count operations there), else
//	                       pg_stat_bgwriter.buffers_backend (13–15, which also
//	                       counts autovacuum workers and extends)
//	blks_hit … deadlocks   Δ pg_stat_database of the target database: blks_hit,
//	                       blks_read, xact_commit, xact_rollback, temp_bytes,
//	                       deadlocks (the collector's own read-only
//	                       transaction adds 1 commit and ~14 hits per read)
//	autovacuum_workers     at the read, not a delta: pg_stat_activity rows with
//	                       backend_type 'autovacuum worker' (whole cluster)
//	autovacuum_tables      at the read: what those workers are doing, from
//	                       pg_stat_progress_vacuum and pg_stat_progress_analyze,
//	                       "table (phase)" joined by ", " ("db.oid (phase)" for
//	                       another database; "table (analyze: phase)")
//
// A cell is empty when its counter does not exist on this server (warned
// once at the start) or when the statistics were reset in the interval: the
// view's stats_reset changed or the counter went backwards (warned, naming
// the reset time); the next interval has a delta again.
//
// Events (checkpoint starts and completions, autovacuum runs) are in
// server_events.go.
//
// # Consistency and lag
//
// The read is one autocommit SELECT: on 15+ the session runs with
// stats_fetch_consistency = snapshot, so every view of the read comes from
// one snapshot; on 13/14 the stats collector's file is read once per
// transaction. Counters are as fresh as the server's statistics: on 15+
// backends flush them at most once a second (so a row can hold a part of
// the previous second's work), on 13/14 the collector publishes its file at
// most every 500 ms and may drop messages under load. This is documented,
// not corrected.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgtrial/pgtrial/internal/results"
)

// How a counter's text is read.
const (
	srvCount = iota // an integer count (bigint or numeric)
	srvMs           // milliseconds, double precision
	srvLSN          // a pg_lsn, "X/Y"
)

// serverCounter is one cumulative counter of server.csv: its column, the
// view (or function) it comes from, whose stats_reset guards it ("" when
// none), the SQL expression inside that view's part of the query ("" when
// the server lacks it: the cell stays empty) and how to read it.
type serverCounter struct {
	column string
	view   string
	expr   string
	kind   int
}

// serverPart is one FROM item of the sample query: a subquery over one view
// that returns exactly one row (aggregates or a single-row view), joined to
// the others with LEFT JOIN … ON true.
type serverPart struct {
	from string      // FROM clause of the subquery, e.g. "pg_catalog.pg_stat_wal"
	cols [][2]string // alias, expression
}

// serverPlan is what was detected on the server and the query built from it.
type serverPlan struct {
	version  int
	counters []serverCounter
	parts    []serverPart
	sql      string
	aliases  []string // the query's columns in order
	// control: pg_control_checkpoint() is executable; controlTime:
	// pg_control_system() too (the completion time of a checkpoint).
	control, controlTime bool
	// snapshot: stats_fetch_consistency exists (15+) and is set to snapshot
	// on each new connection.
	snapshot bool
	// tables: pg_stat_user_tables has the autovacuum counters.
	tables bool
}

// serverCatalog is what newServer reads to plan the query: the server
// version, the columns of the statistics views (view → column → true) and
// which functions the role may execute.
type serverCatalog struct {
	version     int
	cols        map[string]map[string]bool
	control     bool
	controlTime bool
	snapshot    bool
}

// serverViews are the views whose columns are detected.
var serverViews = []string{
	"pg_stat_bgwriter", "pg_stat_checkpointer", "pg_stat_wal", "pg_stat_io",
	"pg_stat_database", "pg_stat_activity", "pg_stat_progress_vacuum",
	"pg_stat_progress_analyze", "pg_stat_user_tables",
}

// Aliases of the query's non-counter columns.
const (
	srvAliasWorkers      = "autovacuum_workers"
	srvAliasTables       = "autovacuum_tables"
	srvAliasTableCounts  = "table_counts"
	srvAliasCkptLSN      = "control_checkpoint_lsn"
	srvAliasRedoLSN      = "control_redo_lsn"
	srvAliasCkptTime     = "control_checkpoint_time"
	srvAliasControlMtime = "control_last_modified"
)

// srvResetAlias is the alias of a view's stats_reset (as epoch seconds).
func srvResetAlias(view string) string { return "reset_" + view }

// planServer builds the sample query for what cat says the server has.
// Missing views and columns are reported with warn (once, here) and leave
// their cells empty.
func planServer(cat serverCatalog, warn warnFunc) serverPlan {
	p := serverPlan{version: cat.version, control: cat.control, controlTime: cat.control && cat.controlTime, snapshot: cat.snapshot}
	has := func(view, col string) bool { return cat.cols[view][col] }
	hasView := func(view string) bool { return len(cat.cols[view]) > 0 }
	var missing []string
	counter := func(column, view, expr string, kind int) {
		if expr == "" {
			missing = append(missing, column)
		}
		p.counters = append(p.counters, serverCounter{column: column, view: view, expr: expr, kind: kind})
	}
	// pick is view.col when it exists, else "".
	pick := func(view, col string) string {
		if has(view, col) {
			return col
		}
		return ""
	}

	// Checkpoints: pg_stat_checkpointer from 17, pg_stat_bgwriter before.
	ckptView := "pg_stat_checkpointer"
	if hasView(ckptView) {
		counter("checkpoints_timed", ckptView, pick(ckptView, "num_timed"), srvCount)
		counter("checkpoints_requested", ckptView, pick(ckptView, "num_requested"), srvCount)
		// num_done is 18+; before, completions are the checkpoint events.
		p.counters = append(p.counters, serverCounter{column: "checkpoints_done", view: ckptView, expr: pick(ckptView, "num_done"), kind: srvCount})
		counter("checkpoint_write_ms", ckptView, pick(ckptView, "write_time"), srvMs)
		counter("checkpoint_sync_ms", ckptView, pick(ckptView, "sync_time"), srvMs)
	} else {
		ckptView = "pg_stat_bgwriter"
		counter("checkpoints_timed", ckptView, pick(ckptView, "checkpoints_timed"), srvCount)
		counter("checkpoints_requested", ckptView, pick(ckptView, "checkpoints_req"), srvCount)
		p.counters = append(p.counters, serverCounter{column: "checkpoints_done", view: ckptView})
		counter("checkpoint_write_ms", ckptView, pick(ckptView, "checkpoint_write_time"), srvMs)
		counter("checkpoint_sync_ms", ckptView, pick(ckptView, "checkpoint_sync_time"), srvMs)
	}

	// WAL: pg_stat_wal from 14; the LSN everywhere.
	counter("wal_bytes", "pg_stat_wal", pick("pg_stat_wal", "wal_bytes"), srvCount)
	counter("wal_records", "pg_stat_wal", pick("pg_stat_wal", "wal_records"), srvCount)
	counter("wal_fpi", "pg_stat_wal", pick("pg_stat_wal", "wal_fpi"), srvCount)
	counter("wal_lsn_bytes", "", "CASE WHEN pg_catalog.pg_is_in_recovery() THEN pg_catalog.pg_last_wal_replay_lsn() "+
		"ELSE pg_catalog.pg_current_wal_insert_lsn() END", srvLSN)

	// Backend writes: pg_stat_io from 16, buffers_backend before.
	ioWhere := " WHERE backend_type = 'client backend' AND object = 'relation'"
	switch {
	case has("pg_stat_io", "write_bytes") && has("pg_stat_io", "backend_type") && has("pg_stat_io", "object"):
		// 18+: writes count I/O operations, which may cover several blocks.
		counter("backend_writes", "pg_stat_io", "round(sum(write_bytes) / current_setting('block_size')::numeric)", srvCount)
	case has("pg_stat_io", "writes") && has("pg_stat_io", "backend_type") && has("pg_stat_io", "object"):
		counter("backend_writes", "pg_stat_io", "sum(writes)", srvCount)
	default:
		counter("backend_writes", "pg_stat_bgwriter", pick("pg_stat_bgwriter", "buffers_backend"), srvCount)
	}

	const db = "pg_stat_database"
	for _, c := range []string{"blks_hit", "blks_read", "xact_commit", "xact_rollback", "temp_bytes", "deadlocks"} {
		counter(c, db, pick(db, c), srvCount)
	}

	// The parts of the query, one per view, each with its stats_reset.
	byView := map[string]*serverPart{}
	var order []string
	for _, c := range p.counters {
		if c.expr == "" {
			continue
		}
		view := c.view
		if view == "" {
			view = "-"
		}
		part := byView[view]
		if part == nil {
			part = &serverPart{}
			switch view {
			case "-":
				part.from = ""
			case "pg_stat_io":
				part.from = "pg_catalog.pg_stat_io" + ioWhere
			case db:
				part.from = "pg_catalog.pg_stat_database WHERE datname = current_database()"
			default:
				part.from = "pg_catalog." + view
			}
			if view != "-" && has(view, "stats_reset") {
				reset := "extract(epoch FROM stats_reset)"
				if view == "pg_stat_io" {
					reset = "extract(epoch FROM max(stats_reset))"
				}
				part.cols = append(part.cols, [2]string{srvResetAlias(view), reset})
			}
			byView[view] = part
			order = append(order, view)
		}
		part.cols = append(part.cols, [2]string{c.column, c.expr})
	}
	for _, v := range order {
		p.parts = append(p.parts, *byView[v])
	}

	// Autovacuum now: workers (pg_stat_activity) and what they do (progress).
	if has("pg_stat_activity", "backend_type") {
		p.parts = append(p.parts, serverPart{
			from: "pg_catalog.pg_stat_activity WHERE backend_type = 'autovacuum worker'",
			cols: [][2]string{{srvAliasWorkers, "count(*)"}},
		})
		var progress []string
		for _, v := range []struct{ view, label string }{
			{"pg_stat_progress_vacuum", ""},
			{"pg_stat_progress_analyze", "analyze: "},
		} {
			if !has(v.view, "relid") || !has(v.view, "phase") || !has(v.view, "datname") {
				continue
			}
			progress = append(progress, "SELECT CASE WHEN p.datname = current_database() THEN p.relid::regclass::text "+
				"ELSE p.datname || '.' || p.relid::text END AS rel, '"+v.label+"' || p.phase AS phase "+
				"FROM pg_catalog."+v.view+" p JOIN pg_catalog.pg_stat_activity a ON a.pid = p.pid "+
				"WHERE a.backend_type = 'autovacuum worker'")
		}
		if len(progress) > 0 {
			p.parts = append(p.parts, serverPart{
				from: "(" + strings.Join(progress, " UNION ALL ") + ") w",
				cols: [][2]string{{srvAliasTables, "string_agg(w.rel || ' (' || w.phase || ')', ', ' ORDER BY w.rel, w.phase)"}},
			})
		} else {
			warn("server collector: pg_stat_progress_vacuum is not readable: autovacuum_tables stays empty")
		}
	} else {
		warn("server collector: pg_stat_activity has no backend_type: autovacuum_workers and autovacuum_tables stay empty")
	}

	// Per-table autovacuum counters (user tables only).
	const ut = "pg_stat_user_tables"
	if has(ut, "autovacuum_count") && has(ut, "autoanalyze_count") && has(ut, "relid") {
		p.tables = true
		p.parts = append(p.parts, serverPart{
			from: "pg_catalog.pg_stat_user_tables WHERE autovacuum_count > 0 OR autoanalyze_count > 0",
			cols: [][2]string{{srvAliasTableCounts, "json_agg(json_build_object(" +
				"'relid', relid::bigint, " +
				"'name', CASE WHEN schemaname = 'public' THEN relname::text ELSE schemaname || '.' || relname END, " +
				"'vacuums', autovacuum_count, 'analyzes', autoanalyze_count, " +
				"'last_vacuum', extract(epoch FROM last_autovacuum), " +
				"'last_analyze', extract(epoch FROM last_autoanalyze)))"}},
		})
	} else {
		warn("server collector: pg_stat_user_tables has no autovacuum_count/autoanalyze_count: no autovacuum events")
	}

	// Checkpoint completions.
	if p.control {
		p.parts = append(p.parts, serverPart{
			from: "pg_catalog.pg_control_checkpoint()",
			cols: [][2]string{
				{srvAliasCkptLSN, "checkpoint_lsn"},
				{srvAliasRedoLSN, "redo_lsn"},
				{srvAliasCkptTime, "extract(epoch FROM checkpoint_time)"},
			},
		})
		if p.controlTime {
			p.parts = append(p.parts, serverPart{
				from: "pg_catalog.pg_control_system()",
				cols: [][2]string{{srvAliasControlMtime, "extract(epoch FROM pg_control_last_modified)"}},
			})
		}
	} else {
		warn("server collector: pg_control_checkpoint() is not executable by this role: " +
			"checkpoint events come from the counters (starts, not completions; time = the sample's)")
	}

	if len(missing) > 0 {
		warn("server collector: not available on this server (PostgreSQL %d), left empty in server.csv: %s",
			cat.version/10000, strings.Join(missing, ", "))
	}

	// SELECT p0.a::text AS a, … FROM (SELECT 1) base LEFT JOIN (SELECT … FROM …) p0 ON true …
	var sel, from []string
	for i, part := range p.parts {
		name := "p" + strconv.Itoa(i)
		var inner []string
		for _, c := range part.cols {
			inner = append(inner, c[1]+" AS "+c[0])
			sel = append(sel, name+"."+c[0]+"::text AS "+c[0])
			p.aliases = append(p.aliases, c[0])
		}
		sub := "SELECT " + strings.Join(inner, ", ")
		if part.from != "" {
			sub += " FROM " + part.from
		}
		from = append(from, " LEFT JOIN ("+sub+") "+name+" ON true")
	}
	p.sql = CollectorSQLMarker + " SELECT " + strings.Join(sel, ", ") + " FROM (SELECT 1) base" + strings.Join(from, "")
	return p
}

// serverTableCounts are a user table's autovacuum counters at a read.
type serverTableCounts struct {
	Relid       uint32   `json:"relid"`
	Name        string   `json:"name"`
	Vacuums     int64    `json:"vacuums"`
	Analyzes    int64    `json:"analyzes"`
	LastVacuum  *float64 `json:"last_vacuum"`  // epoch seconds
	LastAnalyze *float64 `json:"last_analyze"` // epoch seconds
}

// serverSnapshot is one read: every column of the query as text (absent:
// NULL), and the per-table counters keyed by relid.
type serverSnapshot struct {
	at     time.Time // the collector's clock just after the read
	vals   map[string]string
	tables map[uint32]serverTableCounts
}

// server is the server-counters source.
type server struct {
	cfg  *Config
	warn warnFunc
	conn lazyConn
	// setUp is the connection stats_fetch_consistency was set on (a new
	// connection after a loss needs it again).
	setUp *pgx.Conn
	plan  serverPlan
	out   *results.CSVWriter
	prev  *serverSnapshot
	// Counter moves since the last checkpoint completion, to tell a timed
	// checkpoint from a requested one (the counters move at the start).
	sinceTimed, sinceRequested int64
}

// serverReadTimeout bounds one read (a server that hangs must not stop the
// collector for good: the connection is dropped and reopened next tick).
const serverReadTimeout = 10 * time.Second

func newServer(ctx context.Context, cfg *Config, warn warnFunc) (*server, error) {
	s := &server{cfg: cfg, warn: warn, conn: lazyConn{connString: cfg.ConnString}}
	conn, err := s.conn.get(ctx)
	if err != nil {
		return nil, err
	}
	cat, err := readServerCatalog(ctx, conn)
	if err != nil {
		s.conn.close()
		return nil, err
	}
	s.plan = planServer(cat, warn)
	s.prev, err = s.read(ctx)
	if err != nil {
		s.conn.close()
		return nil, fmt.Errorf("first read of the server counters: %w", err)
	}
	s.out, err = results.CreateServer(cfg.Dir)
	if err != nil {
		s.conn.close()
		return nil, err
	}
	return s, nil
}

// readServerCatalog reads the server version, the columns of the statistics
// views and the privileges the collector needs.
func readServerCatalog(ctx context.Context, conn *pgx.Conn) (serverCatalog, error) {
	cat := serverCatalog{cols: map[string]map[string]bool{}}
	err := conn.QueryRow(ctx, CollectorSQLMarker+` SELECT current_setting('server_version_num')::int,
		has_function_privilege('pg_catalog.pg_control_checkpoint()', 'EXECUTE'),
		has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE'),
		EXISTS (SELECT 1 FROM pg_catalog.pg_settings WHERE name = 'stats_fetch_consistency')`).
		Scan(&cat.version, &cat.control, &cat.controlTime, &cat.snapshot)
	if err != nil {
		return cat, fmt.Errorf("read the server version: %w", err)
	}
	rows, err := conn.Query(ctx, CollectorSQLMarker+` SELECT c.relname::text, a.attname::text
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
		WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relname = ANY($1)
		AND a.attnum > 0 AND NOT a.attisdropped`, serverViews)
	if err != nil {
		return cat, fmt.Errorf("read the statistics views' columns: %w", err)
	}
	var view, col string
	_, err = pgx.ForEachRow(rows, []any{&view, &col}, func() error {
		if cat.cols[view] == nil {
			cat.cols[view] = map[string]bool{}
		}
		cat.cols[view][col] = true
		return nil
	})
	if err != nil {
		return cat, fmt.Errorf("read the statistics views' columns: %w", err)
	}
	return cat, nil
}

func (s *server) period() time.Duration { return s.cfg.Interval }

// read runs the sample query (one round trip) and returns its values.
func (s *server) read(ctx context.Context) (*serverSnapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, max(serverReadTimeout, 2*s.cfg.Interval))
	defer cancel()
	conn, err := s.conn.get(ctx)
	if err != nil {
		return nil, err
	}
	if conn != s.setUp {
		if s.plan.snapshot {
			// Every view of a read from one snapshot of the statistics.
			if _, err := conn.Exec(ctx, CollectorSQLMarker+" SET stats_fetch_consistency = snapshot"); err != nil {
				return nil, fmt.Errorf("set stats_fetch_consistency: %w", err)
			}
		}
		s.setUp = conn
	}
	vals := make([]pgtype.Text, len(s.plan.aliases))
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := conn.QueryRow(ctx, s.plan.sql).Scan(dest...); err != nil {
		return nil, fmt.Errorf("read server counters: %w", err)
	}
	snap := &serverSnapshot{at: time.Now(), vals: make(map[string]string, len(vals)), tables: map[uint32]serverTableCounts{}}
	for i, v := range vals {
		if v.Valid {
			snap.vals[s.plan.aliases[i]] = v.String
		}
	}
	if js, ok := snap.vals[srvAliasTableCounts]; ok {
		var list []serverTableCounts
		if err := json.Unmarshal([]byte(js), &list); err != nil {
			return nil, fmt.Errorf("read autovacuum counters: %w", err)
		}
		for _, tc := range list {
			snap.tables[tc.Relid] = tc
		}
	}
	return snap, nil
}

func (s *server) sample(ctx context.Context, t time.Time) error {
	cur, err := s.read(ctx)
	if err != nil {
		return err
	}
	prev := s.prev
	s.prev = cur
	row, d := s.row(prev, cur, t)
	if err := s.out.Write(row); err != nil {
		return err
	}
	if err := s.out.Flush(); err != nil {
		return err
	}
	if s.cfg.OnSample != nil {
		values := make(map[string]float64, len(d))
		for col, v := range d {
			if v.ok {
				values[col] = v.v
			}
		}
		s.cfg.OnSample(KindServer, values)
	}
	if s.cfg.Events == nil {
		return nil
	}
	var errs []error
	for _, e := range s.events(prev, cur, d, t) {
		if err := s.cfg.Events.Event(e); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *server) close() error {
	s.conn.close()
	if s.out == nil {
		return nil
	}
	return s.out.Close()
}

// serverDelta is one counter's change over an interval (ok false: unknown,
// the cell is empty).
type serverDelta struct {
	v  float64
	ok bool
}

// row is server.csv's row for the interval (prev, cur] ending at grid time
// t, and the deltas by column.
func (s *server) row(prev, cur *serverSnapshot, t time.Time) ([]string, map[string]serverDelta) {
	ts, elapsed := rowTime(s.cfg.RunStart, t)
	row := []string{ts, elapsed}
	deltas := make(map[string]serverDelta, len(s.plan.counters))
	warned := map[string]bool{}
	for _, c := range s.plan.counters {
		d, why := srvCounterDelta(c, prev, cur)
		deltas[c.column] = d
		switch {
		case !d.ok:
			row = append(row, "")
		case c.kind == srvMs:
			row = append(row, strconv.FormatFloat(d.v, 'f', 3, 64))
		default:
			row = append(row, strconv.FormatFloat(d.v, 'f', -1, 64))
		}
		if why != "" && !warned[c.view] {
			warned[c.view] = true
			s.warn("server collector: %s: the server.csv row at %s has no deltas for them (empty cells)", why, t.UTC().Format(timeFormat))
		}
	}
	row = append(row, cur.vals[srvAliasWorkers], cur.vals[srvAliasTables])
	return row, deltas
}

// srvCounterDelta is c's change from prev to cur. why explains a reset
// (empty otherwise): the view's stats_reset changed or the counter went
// backwards.
func srvCounterDelta(c serverCounter, prev, cur *serverSnapshot) (d serverDelta, why string) {
	if c.expr == "" {
		return d, ""
	}
	a, okA := srvParse(prev.vals[c.column], c.kind)
	b, okB := srvParse(cur.vals[c.column], c.kind)
	if !okA || !okB {
		return d, ""
	}
	where := c.view
	if where == "" {
		where = "the WAL position"
	}
	if c.view != "" {
		// NULL → a time is not a reset by itself: on 13/14 a database's
		// entry appears (with its creation time) after its first activity.
		r0, r1 := prev.vals[srvResetAlias(c.view)], cur.vals[srvResetAlias(c.view)]
		if r0 != "" && r0 != r1 {
			return d, fmt.Sprintf("statistics of %s were reset at %s", where, srvEpochText(r1))
		}
	}
	if b < a {
		return d, fmt.Sprintf("statistics of %s were reset (%s went backwards) at about %s", where, c.column,
			cur.at.UTC().Format(timeFormat))
	}
	return serverDelta{v: b - a, ok: true}, ""
}

// srvParse reads a counter's text.
func srvParse(s string, kind int) (float64, bool) {
	if s == "" {
		return 0, false
	}
	if kind == srvLSN {
		hi, lo, ok := strings.Cut(s, "/")
		if !ok {
			return 0, false
		}
		h, err1 := strconv.ParseUint(hi, 16, 32)
		l, err2 := strconv.ParseUint(lo, 16, 32)
		if err1 != nil || err2 != nil {
			return 0, false
		}
		return float64(h<<32 | l), true
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// serverEvidence fills ev's server figures for the window (from, to] from
// server.csv (the rows inWindow, summed; an empty cell counts 0) and
// events.jsonl (checkpoint completions and autovacuum events whose time is
// in the window; the checkpoints that overlap it, from their start and
// completion events). A counter of checkpoint_write_ms, checkpoint_sync_ms,
// wal_records, wal_fpi and backend_writes that is empty in every row of the
// window is Evidence.Missing "server.<column>" (PostgreSQL 13 has no
// pg_stat_wal), not 0. WAL bytes are pg_stat_wal's, or a row's LSN bytes where it has
// none (PostgreSQL 13, a reset interval). WALBytesPerTx = WAL bytes /
// committed (0 when committed is 0); FPIShare = FPI / records; HitRatio =
// hit / (hit + read).
func serverEvidence(dir string, from, to time.Time, interval time.Duration, committed int64, ev *results.Evidence) error {
	rows, err := results.ReadServer(dir)
	if err != nil {
		return err
	}
	i64 := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	f64 := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}
	// Counters with no value in any row of the window (not on this server,
	// or reset) are missing, not 0.
	inWin := 0
	valued := map[string]bool{}
	for _, r := range rows {
		if !inWindow(r.Time, from, to, interval) {
			continue
		}
		inWin++
		for col, has := range map[string]bool{
			"checkpoint_write_ms": r.CheckpointWriteMs != nil, "checkpoint_sync_ms": r.CheckpointSyncMs != nil,
			"wal_records": r.WALRecords != nil, "wal_fpi": r.WALFPI != nil, "backend_writes": r.BackendWrites != nil,
		} {
			valued[col] = valued[col] || has
		}
		ev.CheckpointsTimed += i64(r.CheckpointsTimed)
		ev.CheckpointsRequested += i64(r.CheckpointsRequested)
		ev.CheckpointWriteMs += f64(r.CheckpointWriteMs)
		ev.CheckpointSyncMs += f64(r.CheckpointSyncMs)
		if r.WALBytes != nil {
			ev.WALBytes += *r.WALBytes
		} else {
			ev.WALBytes += i64(r.WALLSNBytes)
		}
		ev.WALRecords += i64(r.WALRecords)
		ev.WALFPI += i64(r.WALFPI)
		ev.BackendWrites += i64(r.BackendWrites)
		ev.BlocksHit += i64(r.BlocksHit)
		ev.BlocksRead += i64(r.BlocksRead)
		ev.TempBytes += i64(r.TempBytes)
		ev.Deadlocks += i64(r.Deadlocks)
	}
	if inWin > 0 {
		for _, col := range []string{"checkpoint_write_ms", "checkpoint_sync_ms", "wal_records", "wal_fpi", "backend_writes"} {
			if !valued[col] {
				ev.SetMissing(results.EvidenceServer+"."+col, "empty in "+results.ServerFile+" throughout the window: "+
					"not available on this server or its statistics were reset (see the collector's warnings)")
			}
		}
	}
	if committed > 0 {
		ev.WALBytesPerTx = float64(ev.WALBytes) / float64(committed)
	}
	if ev.WALRecords > 0 {
		ev.FPIShare = float64(ev.WALFPI) / float64(ev.WALRecords)
	}
	if n := ev.BlocksHit + ev.BlocksRead; n > 0 {
		ev.HitRatio = float64(ev.BlocksHit) / float64(n)
	}

	events, err := results.ReadEvents(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no events file: no checkpoints or autovacuum runs seen
	}
	if err != nil {
		return err
	}
	for _, sp := range results.CheckpointSpans(events) {
		if sp.Overlaps(from, to) {
			ev.CheckpointSpans = append(ev.CheckpointSpans, sp)
		}
	}
	vac := map[string]*results.TableVacuum{}
	for _, e := range events {
		if !e.Time.After(from) || e.Time.After(to) {
			continue
		}
		switch e.Kind {
		case results.EventCheckpoint:
			ev.Checkpoints++
		case results.EventAutovacuum:
			name, _ := e.Data["table"].(string)
			tv := vac[name]
			if tv == nil {
				tv = &results.TableVacuum{Table: name}
				vac[name] = tv
			}
			tv.Vacuums += results.DataInt(e.Data["vacuums"])
			tv.Analyzes += results.DataInt(e.Data["analyzes"])
		}
	}
	ev.Autovacuum = nil
	for _, tv := range vac {
		ev.Autovacuum = append(ev.Autovacuum, *tv)
	}
	slices.SortFunc(ev.Autovacuum, func(a, b results.TableVacuum) int { return cmp.Compare(a.Table, b.Table) })
	return nil
}
