package collect

// The pg_stat_statements collector: a snapshot of the target database's
// statements at each phase mark and at the end of the run, and for each
// phase the delta per statement (statements.csv).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/results"
)

// CollectorSQLMarker starts the SQL text of the collectors' own queries.
// pg_stat_statements keeps the comment in the statement's text, so the
// statements collector can leave pgtrial's own queries out of
// statements.csv (they are not the workload's).
const CollectorSQLMarker = "/* " + ApplicationName + " */"

// stmtQueryChars is how much of a statement's text statements.csv keeps.
const stmtQueryChars = 1000

// Indexes of the cumulative figures of a pg_stat_statements entry, in the
// order of stmtMetrics.
const (
	mCalls = iota
	mRows
	mExecMs
	mPlanMs
	mSharedHit
	mSharedRead
	mSharedDirtied
	mSharedWritten
	mTempRead
	mTempWritten
	mWALRecords
	mWALFPI
	mWALBytes
	mReadMs
	mWriteMs
	numStmtMetrics
)

// stmtMetric is one cumulative figure of a pg_stat_statements entry: its
// statements.csv column and the view's columns that hold it, the current
// name first and older extension versions' names after it.
type stmtMetric struct {
	csv  string
	cols []string
	ms   bool // a time in ms (written with 3 decimals), else a count
}

// stmtMetrics is read-only: which view column feeds which CSV column.
// total_time became total_exec_time in 1.8 (kept for a 1.7 left behind by
// an upgrade), blk_read_time/blk_write_time became
// shared_blk_read_time/shared_blk_write_time in 1.11; the plan and WAL
// columns exist from 1.8 on.
var stmtMetrics = [numStmtMetrics]stmtMetric{
	mCalls:         {csv: "calls", cols: []string{"calls"}},
	mRows:          {csv: "rows", cols: []string{"rows"}},
	mExecMs:        {csv: "total_exec_ms", cols: []string{"total_exec_time", "total_time"}, ms: true},
	mPlanMs:        {csv: "total_plan_ms", cols: []string{"total_plan_time"}, ms: true},
	mSharedHit:     {csv: "shared_blks_hit", cols: []string{"shared_blks_hit"}},
	mSharedRead:    {csv: "shared_blks_read", cols: []string{"shared_blks_read"}},
	mSharedDirtied: {csv: "shared_blks_dirtied", cols: []string{"shared_blks_dirtied"}},
	mSharedWritten: {csv: "shared_blks_written", cols: []string{"shared_blks_written"}},
	mTempRead:      {csv: "temp_blks_read", cols: []string{"temp_blks_read"}},
	mTempWritten:   {csv: "temp_blks_written", cols: []string{"temp_blks_written"}},
	mWALRecords:    {csv: "wal_records", cols: []string{"wal_records"}},
	mWALFPI:        {csv: "wal_fpi", cols: []string{"wal_fpi"}},
	mWALBytes:      {csv: "wal_bytes", cols: []string{"wal_bytes"}},
	mReadMs:        {csv: "shared_blk_read_ms", cols: []string{"shared_blk_read_time", "blk_read_time"}, ms: true},
	mWriteMs:       {csv: "shared_blk_write_ms", cols: []string{"shared_blk_write_time", "blk_write_time"}, ms: true},
}

// stmtQuery is the snapshot query built for the installed extension's
// columns.
type stmtQuery struct {
	sql        string
	has        [numStmtMetrics]bool // the figure has a column (else it is empty in the CSV)
	toplevel   bool                 // 1.9+: entries are keyed by toplevel too
	statsSince bool                 // 1.11+: stats_since tells a recreated entry
	missing    []string             // CSV columns left empty
}

// buildStatementsQuery builds the snapshot query over schema's
// pg_stat_statements, whose columns are cols (from pg_attribute), and
// pg_stat_statements_info when hasInfo (1.9+). The query returns one row
// per entry of every role and database, each with the info's dealloc and
// stats_reset (one row with NULL entry columns when there are no entries):
//
//	dealloc, stats_reset, userid, dbid, own, queryid, toplevel, stats_since, query, m0 … m14
//
// where own says the entry is the run's (its userid is the session user's
// oid, its dbid the current database's: the collector connects as the
// run's clients do), query is NULL for an entry that is not own unless
// all (--all-statements: another session's text never leaves the server
// otherwise), and m_i is stmtMetrics[i] as float8 (NULL when the column is
// missing). Numbers are read as float8: wal_bytes is numeric, and a float8
// holds every count below 2^53 exactly.
func buildStatementsQuery(schema string, cols map[string]bool, hasInfo, all bool) (stmtQuery, error) {
	scope := textsOwn
	if all {
		scope = textsAll
	}
	return buildStatementsQueryTexts(schema, cols, hasInfo, scope)
}

// textScope says whose statement texts a snapshot query reads.
type textScope int

const (
	textsOwn      textScope = iota // the session's role in its database
	textsDatabase                  // every role's in the session's database (capture)
	textsAll                       // every role's in every database (--all-statements)
)

// buildStatementsQueryTexts is buildStatementsQuery with the texts of scope.
func buildStatementsQueryTexts(schema string, cols map[string]bool, hasInfo bool, scope textScope) (stmtQuery, error) {
	var q stmtQuery
	var need []string
	for _, c := range []string{"userid", "dbid", "queryid", "query"} {
		if !cols[c] {
			need = append(need, c)
		}
	}
	if len(need) > 0 {
		return q, fmt.Errorf("pg_stat_statements has no column %s: not a version pgtrial can read (want 1.8 to 1.12)", strings.Join(need, ", "))
	}
	view := pgx.Identifier{schema, "pg_stat_statements"}.Sanitize()
	const own = "(v.userid = me.userid and v.dbid = me.dbid)"
	sel := []string{"v.userid::int8 as userid", "v.dbid::int8 as dbid", own + " as own", "v.queryid"}
	if cols["toplevel"] {
		q.toplevel = true
		sel = append(sel, "v.toplevel")
	} else {
		sel = append(sel, "null::bool as toplevel")
	}
	if cols["stats_since"] {
		q.statsSince = true
		sel = append(sel, "v.stats_since")
	} else {
		sel = append(sel, "null::timestamptz as stats_since")
	}
	text := fmt.Sprintf("left(v.query, %d)", stmtQueryChars)
	switch scope {
	case textsOwn:
		text = "case when " + own + " then " + text + " end"
	case textsDatabase:
		text = "case when v.dbid = me.dbid then " + text + " end"
	}
	sel = append(sel, text+" as query")
	outer := []string{"i.dealloc", "i.stats_reset", "s.userid", "s.dbid", "s.own", "s.queryid", "s.toplevel", "s.stats_since", "s.query"}
	for i, m := range stmtMetrics {
		expr := "null::float8"
		for _, c := range m.cols {
			if cols[c] {
				expr = "v." + pgx.Identifier{c}.Sanitize() + "::float8"
				q.has[i] = true
				break
			}
		}
		if !q.has[i] {
			q.missing = append(q.missing, m.csv)
		}
		alias := "m" + strconv.Itoa(i)
		sel = append(sel, expr+" as "+alias)
		outer = append(outer, "s."+alias)
	}
	if !q.has[mCalls] {
		return q, errors.New("pg_stat_statements has no column calls: not a version pgtrial can read (want 1.8 to 1.12)")
	}
	info := "(select null::int8 as dealloc, null::timestamptz as stats_reset) i"
	if hasInfo {
		info = "(select dealloc, stats_reset from " + pgx.Identifier{schema, "pg_stat_statements_info"}.Sanitize() + ") i"
	}
	me := "(select (select oid from pg_catalog.pg_roles where rolname = session_user) as userid," +
		" (select oid from pg_catalog.pg_database where datname = current_database()) as dbid) me"
	q.sql = CollectorSQLMarker + " select " + strings.Join(outer, ", ") +
		" from " + info + " left join (select " + strings.Join(sel, ", ") +
		" from " + view + " v, " + me + ") s on true"
	return q, nil
}

// stmtKey identifies a pg_stat_statements entry: toplevel is "true" or
// "false" (1.9+) or "" (1.8, which has no toplevel).
type stmtKey struct {
	userid   int64
	dbid     int64
	queryid  int64
	toplevel string
}

// stmtEntry is an entry's cumulative figures at a snapshot.
type stmtEntry struct {
	own   bool      // the run's role and database
	query string    // "" for another session's (unless --all-statements)
	since time.Time // stats_since (1.11+), zero when unknown
	v     [numStmtMetrics]float64
}

// stmtSnapshot is pg_stat_statements at one time.
type stmtSnapshot struct {
	hasInfo    bool // dealloc and statsReset are known (1.9+)
	dealloc    int64
	statsReset time.Time
	entries    map[stmtKey]*stmtEntry
	hidden     int // entries of other roles whose queryid the collector's role may not see
}

// stmtDelta is one statement's work between two snapshots.
type stmtDelta struct {
	key   stmtKey
	own   bool
	query string
	v     [numStmtMetrics]float64
}

// diffSnapshots is each statement's work from before to after, for the
// statements called in between (Δcalls > 0), largest total execution time
// first. An entry only in after counts from zero (it was created in
// between); one only in before is left out (evicted: its work after before
// is unknown). An entry recreated in between (its stats_since changed, or
// its calls went down: evicted and created again, or a reset) counts from
// zero too: its whole value is work done after before.
func diffSnapshots(before, after *stmtSnapshot) []stmtDelta {
	var out []stmtDelta
	for k, a := range after.entries {
		d := stmtDelta{key: k, own: a.own, query: a.query, v: a.v}
		if b := before.entries[k]; b != nil && b.since.Equal(a.since) && a.v[mCalls] >= b.v[mCalls] {
			for i := range d.v {
				d.v[i] -= b.v[i]
			}
		}
		if d.v[mCalls] > 0 {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(x, y stmtDelta) int {
		if c := cmp.Compare(y.v[mExecMs], x.v[mExecMs]); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(x.key.queryid, y.key.queryid), cmp.Compare(x.key.userid, y.key.userid),
			cmp.Compare(x.key.dbid, y.key.dbid), strings.Compare(x.key.toplevel, y.key.toplevel))
	})
	return out
}

// evictionNote says why deltas from before to after may be incomplete ("" when
// nothing suggests it): entries evicted in between (pg_stat_statements_info.
// dealloc grew: the evicted statements' work is lost), or the statistics
// were reset (stats_reset changed).
func evictionNote(before, after *stmtSnapshot) string {
	if !before.hasInfo || !after.hasInfo {
		return ""
	}
	if !before.statsReset.Equal(after.statsReset) {
		return "pg_stat_statements was reset during the run (stats_reset changed): statements.csv deltas may be incomplete"
	}
	if n := after.dealloc - before.dealloc; n > 0 {
		return fmt.Sprintf("pg_stat_statements evicted entries %d times during the run (pg_stat_statements_info.dealloc): statements.csv deltas may be incomplete; raise pg_stat_statements.max", n)
	}
	return ""
}

// statements is the pg_stat_statements collector. It does not sample
// periodically (period 0): mark and finish take the snapshots, and each
// phase's deltas are written when the phase ends.
//
// Before the first mark: newStatements takes a snapshot when the collector
// starts, as phase "". The first mark takes a new snapshot and drops that
// one (what ran before the run's first phase is setup, not load). If
// finish comes without any mark, the construction snapshot is the start:
// statements.csv gets the deltas of the whole collection with phase "" and
// phase_start the collector's start time.
type statements struct {
	cfg  *Config
	warn warnFunc
	conn lazyConn
	q    stmtQuery
	out  *results.CSVWriter

	mu       sync.Mutex
	phase    string        // the open phase ("" before the first mark)
	start    time.Time     // when the open phase started
	base     *stmtSnapshot // the open phase's first snapshot; nil when it failed
	marked   bool          // a mark has been taken
	finished bool

	warnedEvict, warnedHidden bool
}

// newStatements detects pg_stat_statements in the target database (its
// version, schema and columns), takes the starting snapshot and creates
// statements.csv. An extension that is not installed, or whose library is
// not loaded, is an error that says what to do.
func newStatements(ctx context.Context, cfg *Config, warn warnFunc) (*statements, error) {
	s := &statements{cfg: cfg, warn: warn, conn: lazyConn{connString: cfg.ConnString}}
	ok := false
	defer func() {
		if !ok {
			s.conn.close()
		}
	}()
	conn, err := s.conn.get(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.CreateExtensions {
		if _, err := ensureExtension(ctx, conn, extStatements); err != nil {
			warn("statements: %v", err)
		}
	}
	var db, version string
	scope := textsOwn
	if cfg.AllStatements {
		scope = textsAll
	}
	s.q, db, version, err = detectStatements(ctx, conn, scope)
	if err != nil {
		return nil, err
	}
	if len(s.q.missing) > 0 {
		warn("pg_stat_statements %s has no column for %s: left empty in %s", version, strings.Join(s.q.missing, ", "), results.StatementsFile)
	}

	snap, err := s.snapshot(ctx)
	if err != nil {
		return nil, explainStatementsError(err, db)
	}
	s.out, err = results.CreateStatements(cfg.Dir)
	if err != nil {
		return nil, err
	}
	s.base, s.start = snap, time.Now()
	ok = true
	return s, nil
}

// detectStatements finds pg_stat_statements in conn's database (its version,
// schema and columns) and builds the snapshot query for them, reading the
// texts of scope. An extension
// that is not installed, or whose library is not loaded, is an error that
// says what to do. It returns the query, the database's name and the
// extension's version.
func detectStatements(ctx context.Context, conn *pgx.Conn, scope textScope) (q stmtQuery, db, version string, err error) {
	var ver, schema *string
	var preloaded bool
	err = conn.QueryRow(ctx, CollectorSQLMarker+` select current_database(), e.extversion, n.nspname::text,
		'pg_stat_statements' = ANY (string_to_array(replace(current_setting('shared_preload_libraries'), ' ', ''), ','))
		from (select 1) x
		left join (pg_extension e join pg_namespace n on n.oid = e.extnamespace) on e.extname = 'pg_stat_statements'`).Scan(&db, &ver, &schema, &preloaded)
	if err != nil {
		return q, "", "", fmt.Errorf("look for pg_stat_statements: %w", err)
	}
	if ver == nil || schema == nil {
		if preloaded {
			return q, "", "", fmt.Errorf("pg_stat_statements is not installed in database %q: it is in shared_preload_libraries, so CREATE EXTENSION pg_stat_statements in that database is all it needs", db)
		}
		return q, "", "", fmt.Errorf("pg_stat_statements is not installed in database %q: add pg_stat_statements to shared_preload_libraries (a restart is needed), then run CREATE EXTENSION pg_stat_statements in that database", db)
	}
	var attnames []string
	var hasInfo bool
	err = conn.QueryRow(ctx, CollectorSQLMarker+` select array(select attname::text from pg_attribute
			where attrelid = to_regclass($1) and attnum > 0 and not attisdropped order by attnum),
		to_regclass($2) is not null`,
		pgx.Identifier{*schema, "pg_stat_statements"}.Sanitize(),
		pgx.Identifier{*schema, "pg_stat_statements_info"}.Sanitize()).Scan(&attnames, &hasInfo)
	if err != nil {
		return q, "", "", fmt.Errorf("read pg_stat_statements columns: %w", err)
	}
	cols := make(map[string]bool, len(attnames))
	for _, a := range attnames {
		cols[a] = true
	}
	if len(cols) == 0 {
		return q, "", "", fmt.Errorf("pg_stat_statements %s is installed in database %q but its view %s.pg_stat_statements is missing", *ver, db, *schema)
	}
	q, err = buildStatementsQueryTexts(*schema, cols, hasInfo, scope)
	if err != nil {
		return q, "", "", fmt.Errorf("pg_stat_statements %s: %w", *ver, err)
	}
	return q, db, *ver, nil
}

// explainStatementsError turns the error pg_stat_statements raises when its
// library is not in shared_preload_libraries (SQLSTATE 55000) into one that
// says what to do; other errors are returned with context.
func explainStatementsError(err error, db string) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55000" && strings.Contains(pgErr.Message, "shared_preload_libraries") {
		return fmt.Errorf("pg_stat_statements is installed in database %q but its library is not loaded: add pg_stat_statements to shared_preload_libraries and restart the server (%s)", db, pgErr.Message)
	}
	return fmt.Errorf("read pg_stat_statements: %w", err)
}

// snapshot reads pg_stat_statements once (one autocommit query). A
// connection lost before or during the read is reopened and the read tried
// once more: a mark has no next tick to wait for.
func (s *statements) snapshot(ctx context.Context) (*stmtSnapshot, error) {
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var snap *stmtSnapshot
		snap, err = s.readSnapshot(ctx)
		if err == nil {
			return snap, nil
		}
		if ctx.Err() != nil || s.conn.conn == nil || !s.conn.conn.IsClosed() {
			break // not a lost connection
		}
	}
	return nil, err
}

func (s *statements) readSnapshot(ctx context.Context) (*stmtSnapshot, error) {
	conn, err := s.conn.get(ctx)
	if err != nil {
		return nil, err
	}
	return querySnapshot(ctx, conn, &s.q)
}

// querySnapshot reads pg_stat_statements once on conn with q (one
// autocommit query), leaving out pgtrial's own collectors' statements.
func querySnapshot(ctx context.Context, conn *pgx.Conn, q *stmtQuery) (*stmtSnapshot, error) {
	rows, err := conn.Query(ctx, q.sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	snap := &stmtSnapshot{entries: map[stmtKey]*stmtEntry{}}
	var (
		dealloc    *int64
		statsReset *time.Time
		userid     *int64
		dbid       *int64
		own        *bool
		queryid    *int64
		toplevel   *bool
		since      *time.Time
		query      *string
		vals       [numStmtMetrics]*float64
	)
	dest := []any{&dealloc, &statsReset, &userid, &dbid, &own, &queryid, &toplevel, &since, &query}
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	first := true
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read pg_stat_statements: %w", err)
		}
		if first {
			first = false
			snap.hasInfo = dealloc != nil
			if dealloc != nil {
				snap.dealloc = *dealloc
			}
			if statsReset != nil {
				snap.statsReset = *statsReset
			}
		}
		if userid == nil {
			continue // no entries: the info row alone
		}
		if queryid == nil {
			snap.hidden++ // another role's statement, "<insufficient privilege>"
			continue
		}
		if query != nil && strings.HasPrefix(strings.TrimSpace(*query), CollectorSQLMarker) {
			continue // pgtrial's own collectors
		}
		k := stmtKey{userid: *userid, queryid: *queryid}
		if dbid != nil {
			k.dbid = *dbid
		}
		if toplevel != nil {
			k.toplevel = strconv.FormatBool(*toplevel)
		}
		e := &stmtEntry{own: own != nil && *own}
		if query != nil {
			e.query = *query
		}
		if since != nil {
			e.since = *since
		}
		for i, v := range vals {
			if v != nil {
				e.v[i] = *v
			}
		}
		snap.entries[k] = e
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return snap, nil
}

// period is 0: pg_stat_statements is read at phase marks only.
func (s *statements) period() time.Duration { return 0 }

// sample does nothing (never called for period 0).
func (s *statements) sample(ctx context.Context, t time.Time) error { return nil }

// mark takes the snapshot that starts phase at t; the open phase (if a mark
// opened one) ends at t and its deltas are written. When the snapshot
// fails, the open phase's deltas are lost and the new phase has no start:
// finish writes nothing for it.
func (s *statements) mark(ctx context.Context, phase string, t time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return fmt.Errorf("phase %q: the statements collector has already finished", phase)
	}
	snap, err := s.snapshot(ctx)
	prev, prevBase, prevStart, wasMarked := s.phase, s.base, s.start, s.marked
	s.phase, s.start, s.base, s.marked = phase, t, snap, true
	if err != nil {
		if wasMarked && prevBase != nil {
			return fmt.Errorf("snapshot at the start of phase %q: %w (statements of phases %q and %q are not recorded)", phase, err, prev, phase)
		}
		return fmt.Errorf("snapshot at the start of phase %q: %w (its statements are not recorded)", phase, err)
	}
	if !wasMarked || prevBase == nil {
		return nil // the construction snapshot (or none) is replaced: no phase ended
	}
	return s.writePhase(prevBase, snap, prev, prevStart, t)
}

// finish takes the last snapshot at the end of the run and writes the open
// phase's deltas (ending at end). A second call does nothing.
func (s *statements) finish(ctx context.Context, end time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return nil
	}
	s.finished = true
	if s.base == nil {
		return fmt.Errorf("phase %q has no starting snapshot: its statements are not recorded", s.phase)
	}
	snap, err := s.snapshot(ctx)
	if err != nil {
		return fmt.Errorf("snapshot at the end of phase %q: %w (its statements are not recorded)", s.phase, err)
	}
	base := s.base
	s.base = nil
	return s.writePhase(base, snap, s.phase, s.start, end)
}

// writePhase appends the rows of phase (from start to end) and flushes.
func (s *statements) writePhase(before, after *stmtSnapshot, phase string, start, end time.Time) error {
	if s.out == nil {
		return fmt.Errorf("phase %q: %s is already closed", phase, results.StatementsFile)
	}
	if note := evictionNote(before, after); note != "" && !s.warnedEvict {
		s.warnedEvict = true
		s.warn("%s", note)
	}
	if after.hidden > 0 && !s.warnedHidden {
		s.warnedHidden = true
		s.warn("pg_stat_statements hides the queryid of %d statements of other roles from the collector's role: they are left out of %s's %q row (grant pg_read_all_stats to count them)", after.hidden, results.StatementsFile, results.SessionsOthers)
	}
	tm, elapsed := rowTime(s.cfg.RunStart, end)
	phaseStart := start.UTC().Format(timeFormat)
	// others sums the other sessions' top-level deltas (nested statements'
	// work is already in their callers').
	var others [numStmtMetrics]float64
	for _, d := range diffSnapshots(before, after) {
		sessions := results.SessionsRun
		if !d.own {
			if !s.cfg.AllStatements {
				if d.key.toplevel != "false" {
					for i := range others {
						others[i] += d.v[i]
					}
				}
				continue
			}
			sessions = results.SessionsOther
		}
		row := []string{tm, elapsed, phase, phaseStart,
			strconv.FormatInt(d.key.queryid, 10), strconv.FormatInt(d.key.userid, 10), strconv.FormatInt(d.key.dbid, 10),
			d.key.toplevel, sessions}
		row = s.appendFigures(row, &d.v)
		row = append(row, results.RedactSQL(d.query))
		if err := s.out.Write(row); err != nil {
			return err
		}
	}
	if others[mCalls] > 0 {
		row := []string{tm, elapsed, phase, phaseStart, "", "", "", "", results.SessionsOthers}
		row = s.appendFigures(row, &others)
		row = append(row, "")
		if err := s.out.Write(row); err != nil {
			return err
		}
	}
	return s.out.Flush()
}

// appendFigures appends v's figures in StatementsHeader's order
// (mean_exec_ms = total_exec_ms / calls after total_exec_ms).
func (s *statements) appendFigures(row []string, v *[numStmtMetrics]float64) []string {
	for i, m := range stmtMetrics {
		row = append(row, s.format(i, v[i], m.ms))
		if i == mExecMs {
			mean := ""
			if s.q.has[mExecMs] && v[mCalls] > 0 {
				mean = strconv.FormatFloat(v[mExecMs]/v[mCalls], 'f', 3, 64)
			}
			row = append(row, mean)
		}
	}
	return row
}

// format writes figure i: "" when the extension has no column for it, ms
// with 3 decimals, counts as integers.
func (s *statements) format(i int, v float64, ms bool) string {
	switch {
	case !s.q.has[i]:
		return ""
	case ms:
		return strconv.FormatFloat(v, 'f', 3, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

// close closes statements.csv and the connection (it does not take a
// snapshot: finish does).
func (s *statements) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn.close()
	if s.out == nil {
		return nil
	}
	err := s.out.Close()
	s.out = nil
	return err
}

// stmtEvidence is statementsEvidence's result.
type stmtEvidence struct {
	list        []results.StatementCost
	calls, rows int64                  // the run's top-level statements
	others      *results.StatementCost // the SessionsOthers rows summed; nil when none
}

// statementsEvidence is the top statements of phase in dir's
// statements.csv, by total execution time: rows summed per queryid (over
// roles and nesting levels), at most top of them (all when top <= 0).
// Share = the statement's total execution time / the total of all
// top-level statements listed (the run's, and with --all-statements the
// other sessions'; nested statements' time is already in their callers');
// the per-call figures are the phase's sums / its calls. Calls and rows
// count the run's top-level statements. The SessionsOthers row is summed
// apart into others (its Share is of that total plus its own time: the
// share of all statements' time that was other sessions'). Texts are redacted
// again: a file of an older pgtrial kept them as the server gave them.
func statementsEvidence(dir string, phase string, top int) (stmtEvidence, error) {
	var ev stmtEvidence
	rows, err := results.ReadStatements(dir)
	if err != nil {
		return ev, err
	}
	type sum struct {
		cost           results.StatementCost
		hit, read, wal int64
		queryMs        float64 // execution time of the row whose text is kept
	}
	add := func(s *sum, r *results.StatementRow) {
		s.cost.Calls += r.Calls
		s.cost.Rows += r.Rows
		s.cost.TotalMs += r.TotalExecMs
		s.hit += r.SharedBlksHit
		s.read += r.SharedBlksRead
		s.wal += r.WALBytes
	}
	perCall := func(s *sum, all float64) results.StatementCost {
		c := s.cost
		if c.Calls > 0 {
			n := float64(c.Calls)
			c.MeanMs = c.TotalMs / n
			c.SharedHitPerCall = float64(s.hit) / n
			c.SharedReadPerCall = float64(s.read) / n
			c.WALBytesPerCall = float64(s.wal) / n
		}
		if all > 0 {
			c.Share = c.TotalMs / all
		}
		return c
	}
	byID := map[int64]*sum{}
	var others *sum
	var all float64 // ms
	for i := range rows {
		r := &rows[i]
		if r.Phase != phase {
			continue
		}
		if r.Sessions == results.SessionsOthers {
			if others == nil {
				others = &sum{}
			}
			add(others, r)
			continue
		}
		if !r.Nested {
			all += r.TotalExecMs
			if r.Sessions == results.SessionsRun {
				ev.calls += r.Calls
				ev.rows += r.Rows
			}
		}
		s := byID[r.QueryID]
		if s == nil {
			s = &sum{cost: results.StatementCost{QueryID: r.QueryID}}
			byID[r.QueryID] = s
		}
		add(s, r)
		if s.cost.Query == "" || r.TotalExecMs > s.queryMs {
			s.cost.Query, s.queryMs = results.RedactSQL(r.Query), r.TotalExecMs
		}
	}
	out := make([]results.StatementCost, 0, len(byID))
	for _, s := range byID {
		out = append(out, perCall(s, all))
	}
	slices.SortFunc(out, func(x, y results.StatementCost) int {
		return cmp.Or(cmp.Compare(y.TotalMs, x.TotalMs), cmp.Compare(x.QueryID, y.QueryID))
	})
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	ev.list = out
	if others != nil {
		c := perCall(others, all+others.cost.TotalMs)
		ev.others = &c
	}
	return ev, nil
}
