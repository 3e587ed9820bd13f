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
	t, err := ReadTable(dir, ServerFile)
	if err != nil {
		return nil, err
	}
	integer := func(row []string, col string) *int64 {
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
	float := func(row []string, col string) *float64 {
		v, err := strconv.ParseFloat(t.Str(row, col), 64)
		if err != nil {
			return nil
		}
		return &v
	}
	rows := make([]ServerRow, 0, len(t.Rows))
	for _, r := range t.Rows {
		rows = append(rows, ServerRow{
			Time:                 t.Time(r),
			ElapsedS:             t.Float(r, "elapsed_s"),
			CheckpointsTimed:     integer(r, "checkpoints_timed"),
			CheckpointsRequested: integer(r, "checkpoints_requested"),
			CheckpointsDone:      integer(r, "checkpoints_done"),
			CheckpointWriteMs:    float(r, "checkpoint_write_ms"),
			CheckpointSyncMs:     float(r, "checkpoint_sync_ms"),
			WALBytes:             integer(r, "wal_bytes"),
			WALRecords:           integer(r, "wal_records"),
			WALFPI:               integer(r, "wal_fpi"),
			WALLSNBytes:          integer(r, "wal_lsn_bytes"),
			BackendWrites:        integer(r, "backend_writes"),
			BlocksHit:            integer(r, "blks_hit"),
			BlocksRead:           integer(r, "blks_read"),
			XactCommit:           integer(r, "xact_commit"),
			XactRollback:         integer(r, "xact_rollback"),
			TempBytes:            integer(r, "temp_bytes"),
			Deadlocks:            integer(r, "deadlocks"),
			AutovacuumWorkers:    integer(r, "autovacuum_workers"),
			AutovacuumTables:     t.Str(r, "autovacuum_tables"),
		})
	}
	return rows, nil
}
