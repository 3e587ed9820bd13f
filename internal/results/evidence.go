package results

import "time"

// Files the collectors (internal/collect) write into a run directory. Each is
// a CSV file with a header row; every row carries "time" (the end of the
// sampling interval, RFC 3339 UTC with ms, as timeline.csv) and "elapsed_s"
// (seconds from Run.StartedAt), so rows of every file join by time.
const (
	WaitsFile      = "waits.csv"
	StatementsFile = "statements.csv"
	ServerFile     = "server.csv"
	OSFile         = "os.csv"
)

// Event kinds the collectors write into events.jsonl.
const (
	EventCheckpoint = "checkpoint" // a checkpoint completed (Data: redo_lsn, checkpoint_lsn, write_ms, sync_ms, …)
	EventAutovacuum = "autovacuum" // an autovacuum or autoanalyze ran on a table (Data: table, vacuums, analyzes)
	EventCollector  = "collector"  // a collector degraded (Message: why)
	EventInjection  = "injection"  // an injected stall ended (Data: kind, table, planned, acquired, error; Time: its start)
)

// Host is the machine the server runs on, as far as pgtrial can tell (the
// local machine when the server is on loopback or a unix socket, else what
// a node_exporter reported).
type Host struct {
	Local       bool   `json:"local"`                  // the server runs on this machine
	Hostname    string `json:"hostname,omitempty"`     // this machine's name, when Local
	CPUs        int    `json:"cpus,omitempty"`         // logical CPUs
	MemoryBytes int64  `json:"memory_bytes,omitempty"` // MemTotal
	Kernel      string `json:"kernel,omitempty"`
}

// ServerInfo is what the server was at the start of the run.
type ServerInfo struct {
	Version       string            `json:"version,omitempty"`     // version()
	VersionNum    int               `json:"version_num,omitempty"` // server_version_num
	Settings      map[string]string `json:"settings,omitempty"`    // key settings and every non-default one: name → setting with unit (as SHOW prints it)
	DatabaseBytes int64             `json:"database_bytes,omitempty"`
	Tables        []TableSize       `json:"tables,omitempty"`     // the workload's tables (pgbench_* or the workload's), largest first
	Extensions    map[string]string `json:"extensions,omitempty"` // installed extension → version (in the target database)
}

// TableSize is a table's size at the start of the run.
type TableSize struct {
	Name       string `json:"name"`          // schema-qualified when not in public
	TotalBytes int64  `json:"total_bytes"`   // pg_total_relation_size: heap, indexes, TOAST
	HeapBytes  int64  `json:"heap_bytes"`    // pg_relation_size
	Rows       int64  `json:"rows_estimate"` // reltuples (−1 when never analysed: 0 here)
}

// Evidence is what the server and the machine did during the measured
// window, summarised for the "Evidence" section of the run summary (every
// figure is a delta over the window, never a cumulative total).
type Evidence struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`

	// Checkpoints: completed in the window (from the checkpoint events),
	// and the counters' deltas.
	Checkpoints          int     `json:"checkpoints"`
	CheckpointsTimed     int64   `json:"checkpoints_timed"`
	CheckpointsRequested int64   `json:"checkpoints_requested"`
	CheckpointWriteMs    float64 `json:"checkpoint_write_ms"`
	CheckpointSyncMs     float64 `json:"checkpoint_sync_ms"`

	// WAL over the window; per transaction uses the committed count of the
	// measured phase. FPIShare = full-page images / WAL records.
	WALBytes      int64   `json:"wal_bytes"`
	WALRecords    int64   `json:"wal_records"`
	WALFPI        int64   `json:"wal_fpi"`
	WALBytesPerTx float64 `json:"wal_bytes_per_tx"`
	FPIShare      float64 `json:"fpi_share"`

	// Buffers of the target database: hit ratio = hit / (hit + read).
	BlocksHit  int64   `json:"blocks_hit"`
	BlocksRead int64   `json:"blocks_read"`
	HitRatio   float64 `json:"hit_ratio"`
	// Buffers written by backends themselves (not the checkpointer or the
	// background writer): a sign that shared_buffers or the bgwriter lag.
	BackendWrites int64 `json:"backend_writes"`
	TempBytes     int64 `json:"temp_bytes"`
	Deadlocks     int64 `json:"deadlocks"`

	Waits []WaitShare `json:"waits,omitempty"` // client backends, most sampled first
	// WaitTypes is every sample's share by wait_event_type ("CPU": active
	// without a wait), not only the top events of Waits.
	WaitTypes map[string]float64 `json:"wait_types,omitempty"`
	// Calls and Rows are the window's top-level statements in
	// pg_stat_statements (pg_expecto's "operational speed" is their rate,
	// kept as two series).
	Calls      int64           `json:"calls,omitempty"`
	Rows       int64           `json:"rows,omitempty"`
	Statements []StatementCost `json:"statements,omitempty"` // by total execution time, largest first
	Autovacuum []TableVacuum   `json:"autovacuum,omitempty"` // tables autovacuumed or autoanalysed in the window

	CPU         *CPUShare  `json:"cpu,omitempty"` // the server's machine
	BusiestDisk *DiskStats `json:"busiest_disk,omitempty"`
	// ClientCPU is pgtrial's own CPU use (user+system) as a share of one CPU
	// (1.0 = one CPU busy): a load generator near its CPUs' limit measures itself.
	ClientCPU float64 `json:"client_cpu"`

	Warnings []string `json:"warnings,omitempty"` // what could not be collected
}

// WaitShare is one wait event's share of the samples of active client
// backends ("CPU" when active without a wait event).
type WaitShare struct {
	Type    string  `json:"type"`  // wait_event_type, or "CPU"
	Event   string  `json:"event"` // wait_event, or "CPU"
	Samples int64   `json:"samples"`
	Share   float64 `json:"share"` // of all samples of active client backends, 0..1
	// AvgSessions = samples / sampling ticks: the average number of sessions
	// in this state (pg_wait_sampling: samples / its profile ticks).
	AvgSessions float64 `json:"avg_sessions"`
}

// StatementCost is one statement's work over the window (pg_stat_statements
// deltas).
type StatementCost struct {
	QueryID           int64   `json:"queryid"`
	Query             string  `json:"query"`
	Calls             int64   `json:"calls"`
	Rows              int64   `json:"rows"`
	TotalMs           float64 `json:"total_exec_ms"`
	MeanMs            float64 `json:"mean_exec_ms"`
	Share             float64 `json:"share"` // of the total execution time of all statements in the window
	SharedHitPerCall  float64 `json:"shared_hit_per_call"`
	SharedReadPerCall float64 `json:"shared_read_per_call"`
	WALBytesPerCall   float64 `json:"wal_bytes_per_call"`
}

// TableVacuum counts autovacuum and autoanalyze runs on a table in the window.
type TableVacuum struct {
	Table    string `json:"table"`
	Vacuums  int64  `json:"vacuums"`
	Analyzes int64  `json:"analyzes"`
}

// CPUShare is the machine's CPU time by state over the window, 0..1 of all
// CPUs (vmstat's us sy id wa st divided by 100).
type CPUShare struct {
	User   float64 `json:"user"`   // user + nice
	System float64 `json:"system"` // system + irq + softirq
	Idle   float64 `json:"idle"`
	IOWait float64 `json:"iowait"`
	Steal  float64 `json:"steal"`
}

// DiskStats is one block device over the window (iostat -x's columns).
type DiskStats struct {
	Name        string  `json:"name"`
	ReadsPerS   float64 `json:"reads_per_s"`
	WritesPerS  float64 `json:"writes_per_s"`
	ReadKBPerS  float64 `json:"read_kb_per_s"`
	WriteKBPerS float64 `json:"write_kb_per_s"`
	AwaitMs     float64 `json:"await_ms"`
	QueueSize   float64 `json:"aqu_sz"`
	Util        float64 `json:"util"` // 0..1
}
