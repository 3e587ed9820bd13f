package results

import (
	"cmp"
	"time"
)

// statements.csv: pg_stat_statements deltas per phase, one row per
// statement (queryid, userid, dbid, toplevel) and phase (internal/collect
// writes it). A figure the server's extension version lacks is an empty
// cell; mean_exec_ms = Δtotal_exec_ms / Δcalls.
//
// sessions says whose statement a row is: SessionsRun, the run's role in
// the run's database; SessionsOther, another role's or database's, kept
// only with --all-statements; SessionsOthers, the one row per phase that
// sums every other role's and database's top-level statements otherwise,
// with no queryid, userid, dbid, toplevel or text. Query texts are
// redacted (RedactSQL). A file of an older pgtrial has no sessions column:
// its rows read as SessionsRun (they were the database's, every role's).

// Values of statements.csv's sessions column.
const (
	SessionsRun    = "run"
	SessionsOther  = "other"
	SessionsOthers = "other sessions"
)

// StatementsHeader is statements.csv's header: the row's time, the phase,
// the statement's key, then the deltas, then the text.
func StatementsHeader() []string {
	return []string{"time", "elapsed_s", "phase", "phase_start", "queryid", "userid", "dbid", "toplevel", "sessions",
		"calls", "rows", "total_exec_ms", "mean_exec_ms", "total_plan_ms",
		"shared_blks_hit", "shared_blks_read", "shared_blks_dirtied", "shared_blks_written",
		"temp_blks_read", "temp_blks_written", "wal_records", "wal_fpi", "wal_bytes",
		"shared_blk_read_ms", "shared_blk_write_ms", "query"}
}

// StatementRow is one row of statements.csv: one statement's work during
// one phase (deltas of pg_stat_statements). A figure the server's
// extension version lacks reads as 0.
type StatementRow struct {
	Time       time.Time // the end of the phase
	Elapsed    float64   // seconds from the run's clock zero to Time
	Phase      string    // PhaseWarmup, PhaseMeasure, or "" (no phase was marked)
	PhaseStart time.Time
	QueryID    int64
	UserID     int64
	DBID       int64
	// Sessions is SessionsRun, SessionsOther or SessionsOthers (the sum of
	// the other roles' and databases' statements).
	Sessions string
	// Nested is true for a statement run inside a function or procedure
	// (toplevel = false, with pg_stat_statements.track = all; 1.9+).
	Nested bool

	Calls             int64
	Rows              int64
	TotalExecMs       float64
	MeanExecMs        float64
	TotalPlanMs       float64 // needs pg_stat_statements.track_planning
	SharedBlksHit     int64
	SharedBlksRead    int64
	SharedBlksDirtied int64
	SharedBlksWritten int64
	TempBlksRead      int64
	TempBlksWritten   int64
	WALRecords        int64
	WALFPI            int64
	WALBytes          int64
	SharedBlkReadMs   float64 // needs track_io_timing
	SharedBlkWriteMs  float64 // needs track_io_timing
	Query             string  // normalised text, at most 1000 characters, redacted (RedactSQL)
}

// CreateStatements creates statements.csv in the run directory dir with its
// header. The collector writes each row in StatementsHeader's order.
func CreateStatements(dir string) (*CSVWriter, error) {
	return CreateCSV(dir, StatementsFile, StatementsHeader())
}

// ReadStatements reads statements.csv of the run directory dir.
func ReadStatements(dir string) ([]StatementRow, error) {
	return readRows(dir, StatementsFile, func(t *Table, r []string) StatementRow {
		start, _ := time.Parse(time.RFC3339Nano, t.Str(r, "phase_start"))
		return StatementRow{
			Time:              t.Time(r),
			Elapsed:           t.Float(r, "elapsed_s"),
			Phase:             t.Str(r, "phase"),
			PhaseStart:        start,
			QueryID:           t.Int(r, "queryid"),
			UserID:            t.Int(r, "userid"),
			DBID:              t.Int(r, "dbid"),
			Sessions:          cmp.Or(t.Str(r, "sessions"), SessionsRun),
			Nested:            t.Str(r, "toplevel") == "false",
			Calls:             t.Int(r, "calls"),
			Rows:              t.Int(r, "rows"),
			TotalExecMs:       t.Float(r, "total_exec_ms"),
			MeanExecMs:        t.Float(r, "mean_exec_ms"),
			TotalPlanMs:       t.Float(r, "total_plan_ms"),
			SharedBlksHit:     t.Int(r, "shared_blks_hit"),
			SharedBlksRead:    t.Int(r, "shared_blks_read"),
			SharedBlksDirtied: t.Int(r, "shared_blks_dirtied"),
			SharedBlksWritten: t.Int(r, "shared_blks_written"),
			TempBlksRead:      t.Int(r, "temp_blks_read"),
			TempBlksWritten:   t.Int(r, "temp_blks_written"),
			WALRecords:        t.Int(r, "wal_records"),
			WALFPI:            t.Int(r, "wal_fpi"),
			WALBytes:          t.Int(r, "wal_bytes"),
			SharedBlkReadMs:   t.Float(r, "shared_blk_read_ms"),
			SharedBlkWriteMs:  t.Float(r, "shared_blk_write_ms"),
			Query:             t.Str(r, "query"),
		}
	})
}
