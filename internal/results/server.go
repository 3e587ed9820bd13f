package results

import (
	"math"
	"strconv"
	"time"
)

// server.csv: the server's cumulative counters as deltas over each interval
// (internal/collect writes it; its package comment says where each column
// comes from). An empty cell is a counter not available on that server, or
// one whose statistics were reset in the interval.

// ServerHeader is server.csv's header.
func ServerHeader() []string {
	return []string{
		"time", "elapsed_s",
		"checkpoints_timed", "checkpoints_requested", "checkpoints_done",
		"checkpoint_write_ms", "checkpoint_sync_ms",
		"wal_bytes", "wal_records", "wal_fpi", "wal_lsn_bytes",
		"backend_writes", "blks_hit", "blks_read", "xact_commit", "xact_rollback",
		"temp_bytes", "deadlocks",
		"autovacuum_workers", "autovacuum_tables",
	}
}

// ServerRow is one row of server.csv. A nil counter is an empty cell: not
// available on that server, or statistics reset in the interval.
type ServerRow struct {
	Time     time.Time // end of the interval
	ElapsedS float64   // seconds from the run's clock zero

	CheckpointsTimed     *int64
	CheckpointsRequested *int64
	CheckpointsDone      *int64 // 18+
	CheckpointWriteMs    *float64
	CheckpointSyncMs     *float64

	WALBytes    *int64 // pg_stat_wal (14+)
	WALRecords  *int64
	WALFPI      *int64
	WALLSNBytes *int64 // from the WAL insert position, every version

	BackendWrites *int64
	BlocksHit     *int64
	BlocksRead    *int64
	XactCommit    *int64
	XactRollback  *int64
	TempBytes     *int64
	Deadlocks     *int64

	AutovacuumWorkers *int64 // at the end of the interval, not a delta
	AutovacuumTables  string // "table (phase)" joined by ", "
}

// CreateServer creates server.csv in the run directory dir with its header.
// The collector writes each row in ServerHeader's order.
func CreateServer(dir string) (*CSVWriter, error) { return CreateCSV(dir, ServerFile, ServerHeader()) }

// ReadServer reads server.csv of the run directory dir.
func ReadServer(dir string) ([]ServerRow, error) {
	return readRows(dir, ServerFile, func(t *Table, r []string) ServerRow {
		return ServerRow{
			Time:                 t.Time(r),
			ElapsedS:             t.Float(r, "elapsed_s"),
			CheckpointsTimed:     serverInt(t, r, "checkpoints_timed"),
			CheckpointsRequested: serverInt(t, r, "checkpoints_requested"),
			CheckpointsDone:      serverInt(t, r, "checkpoints_done"),
			CheckpointWriteMs:    serverFloat(t, r, "checkpoint_write_ms"),
			CheckpointSyncMs:     serverFloat(t, r, "checkpoint_sync_ms"),
			WALBytes:             serverInt(t, r, "wal_bytes"),
			WALRecords:           serverInt(t, r, "wal_records"),
			WALFPI:               serverInt(t, r, "wal_fpi"),
			WALLSNBytes:          serverInt(t, r, "wal_lsn_bytes"),
			BackendWrites:        serverInt(t, r, "backend_writes"),
			BlocksHit:            serverInt(t, r, "blks_hit"),
			BlocksRead:           serverInt(t, r, "blks_read"),
			XactCommit:           serverInt(t, r, "xact_commit"),
			XactRollback:         serverInt(t, r, "xact_rollback"),
			TempBytes:            serverInt(t, r, "temp_bytes"),
			Deadlocks:            serverInt(t, r, "deadlocks"),
			AutovacuumWorkers:    serverInt(t, r, "autovacuum_workers"),
			AutovacuumTables:     t.Str(r, "autovacuum_tables"),
		}
	})
}

// serverInt is row's integer in column col of server.csv (a float is
// rounded), nil when empty or not a number: a figure the server lacks.
func serverInt(t *Table, row []string, col string) *int64 {
	s := t.Str(row, col)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil
		}
		n = int64(math.Round(v))
	}
	return &n
}

// serverFloat is row's number in column col of server.csv, nil when empty
// or not a number.
func serverFloat(t *Table, row []string, col string) *float64 {
	v, err := strconv.ParseFloat(t.Str(row, col), 64)
	if err != nil {
		return nil
	}
	return &v
}
