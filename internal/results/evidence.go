package results

import (
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/pgtrial/pgtrial/internal/report/format"
)

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
	EventCheckpoint = "checkpoint" // a checkpoint completed (Data: redo_lsn, checkpoint_lsn, checkpoint_time = its start, write_ms, sync_ms, …)
	// A checkpoint started: its counter (num_timed/num_requested,
	// checkpoints_timed/req before 17) moved, which it does when the
	// checkpoint starts. It started in (Data "from", Time]; Data: kind
	// (timed, requested), checkpoints (how many started, usually 1).
	EventCheckpointStart = "checkpoint_start"
	EventAutovacuum      = "autovacuum" // an autovacuum or autoanalyze ran on a table (Data: table, vacuums, analyzes)
	EventCollector       = "collector"  // a collector degraded (Message: why)
	EventInjection       = "injection"  // an injected stall ended (Data: kind, table, planned, acquired, error; Time: its start)
)

// Evidence groups, for Evidence.Missing: one per collector (the values of
// --collect).
const (
	EvidenceWaits      = "waits"
	EvidenceStatements = "statements"
	EvidenceServer     = "server"
	EvidenceOS         = "os"
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
	// and the counters' deltas (which move when a checkpoint starts).
	// CheckpointSpans are the checkpoints that overlap the window: started
	// or completed in it, or running through it.
	Checkpoints          int              `json:"checkpoints"`
	CheckpointSpans      []CheckpointSpan `json:"checkpoint_spans,omitempty"`
	CheckpointsTimed     int64            `json:"checkpoints_timed"`
	CheckpointsRequested int64            `json:"checkpoints_requested"`
	CheckpointWriteMs    float64          `json:"checkpoint_write_ms"`
	CheckpointSyncMs     float64          `json:"checkpoint_sync_ms"`

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
	// Calls and Rows are the window's top-level statements of the run's
	// role in its database in pg_stat_statements (pg_expecto's "operational speed" is their rate,
	// kept as two series).
	Calls      int64           `json:"calls,omitempty"`
	Rows       int64           `json:"rows,omitempty"`
	Statements []StatementCost `json:"statements,omitempty"` // by total execution time, largest first
	Autovacuum []TableVacuum   `json:"autovacuum,omitempty"` // tables autovacuumed or autoanalysed in the window

	// OtherSessions is the work of the other roles' and databases'
	// top-level statements in the window, summed (statements.csv's
	// SessionsOthers row: no text, no queryid; Share = its time / (its
	// time + the listed statements' time)); nil when none ran, or when
	// --all-statements listed them.
	OtherSessions *StatementCost `json:"other_sessions,omitempty"`

	CPU         *CPUShare  `json:"cpu,omitempty"` // the server's machine
	BusiestDisk *DiskStats `json:"busiest_disk,omitempty"`
	// ClientCPU is pgtrial's own CPU use (user+system) as a share of one CPU
	// (1.0 = one CPU busy): a load generator near its CPUs' limit measures itself.
	ClientCPU float64 `json:"client_cpu"`

	Warnings []string `json:"warnings,omitempty"` // what could not be collected

	// Missing is the evidence that was not collected and why: group
	// (EvidenceWaits, …, or "server.<column>" for one counter of
	// server.csv that had no value in the window) → reason (the collector's warning, e.g.
	// "pg_stat_statements is not installed in database \"bench\": …"). A
	// missing group's figures are absent, not zero: show "—" and the reason.
	Missing map[string]string `json:"missing,omitempty"`
}

// MissingReason is why the evidence group was not collected; ok is false
// when it was (or ev is nil: nothing is known).
func (ev *Evidence) MissingReason(group string) (reason string, ok bool) {
	if ev == nil {
		return "", false
	}
	reason, ok = ev.Missing[group]
	return reason, ok
}

// SetMissing records that group was not collected, for reason (the first
// reason given stays).
func (ev *Evidence) SetMissing(group, reason string) {
	if ev.Missing == nil {
		ev.Missing = map[string]string{}
	}
	if _, ok := ev.Missing[group]; !ok {
		ev.Missing[group] = reason
	}
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

// CheckpointSpan is one checkpoint from events.jsonl: when it started and
// when it completed, as far as the events tell.
type CheckpointSpan struct {
	// Start is when it started: the completion's checkpoint_time (1 s
	// resolution) or, without one, the end of the interval its start event
	// covers (the start lies in (StartFrom, Start]). Zero: unknown (it
	// started before the collector's first read).
	Start     time.Time `json:"start,omitzero"`
	StartFrom time.Time `json:"start_from,omitzero"`
	// End is its completion; zero when it had not completed by the last
	// read (the run ended first).
	End  time.Time `json:"end,omitzero"`
	Kind string    `json:"kind,omitempty"` // timed, requested, unknown
}

// Overlaps says whether the checkpoint ran during the window (from, to]:
// it started or completed in it, or started before and completed after it
// (or not at all). A span with neither time known overlaps nothing.
func (c CheckpointSpan) Overlaps(from, to time.Time) bool {
	start, end := c.Start, c.End
	if start.IsZero() && end.IsZero() {
		return false
	}
	if start.IsZero() {
		start = end // started before the records: only its completion places it
	}
	if start.After(to) {
		return false
	}
	return end.IsZero() || end.After(from)
}

// checkpointSlack is the resolution of checkpoint_time and of the control
// file's modification time (whole seconds), the tolerance of matching a
// completion to its start.
const checkpointSlack = time.Second

// CheckpointSpans pairs the checkpoint start and completion events of
// events (EventCheckpointStart, EventCheckpoint) into spans, in time order.
// The checkpointer runs one checkpoint at a time, so the checkpoint that
// completes is the one that started last: a completion takes the latest
// start not yet taken that may precede it (the start's interval begins
// before the completion, with 1 s of slack for the control file's
// resolution) and that its checkpoint_time, when it has one, falls in
// (±1 s).
// A completion without a start began before the collector's first read.
// Only the last start can still be running at the end; an earlier start
// that no completion took was skipped (num_timed counts the timed
// checkpoints an idle server skips) or completed unseen before the next
// one started, and is left out.
func CheckpointSpans(events []Event) []CheckpointSpan {
	type start struct {
		from, at time.Time
		kind     string
		taken    bool
	}
	var starts []*start
	var ends []Event
	for _, e := range events {
		switch e.Kind {
		case EventCheckpointStart:
			from, _ := time.Parse(time.RFC3339Nano, dataString(e.Data["from"]))
			kind := dataString(e.Data["kind"])
			for range min(max(dataCount(e.Data["checkpoints"]), 1), 1000) {
				starts = append(starts, &start{from: from, at: e.Time, kind: kind})
			}
		case EventCheckpoint:
			// A "counters" completion may stand for several.
			for range min(max(dataCount(e.Data["checkpoints"]), 1), 1000) {
				ends = append(ends, e)
			}
		}
	}
	slices.SortStableFunc(starts, func(a, b *start) int { return a.at.Compare(b.at) })
	slices.SortStableFunc(ends, func(a, b Event) int { return a.Time.Compare(b.Time) })
	var out []CheckpointSpan
	for _, e := range ends {
		sp := CheckpointSpan{End: e.Time, Kind: dataString(e.Data["kind"])}
		began, err := time.Parse(time.RFC3339Nano, dataString(e.Data["checkpoint_time"]))
		hasBegan := err == nil
		var match *start
		for _, s := range starts {
			// The start lies in (from, at]: it can precede the completion
			// only when from does (at is the sample's time, up to a period
			// after the start, and may follow the completion in the same
			// interval).
			earliest := s.from
			if earliest.IsZero() {
				earliest = s.at
			}
			if !earliest.Before(e.Time.Add(checkpointSlack)) {
				break // later starts belong to later checkpoints
			}
			if s.taken {
				continue
			}
			if hasBegan && (began.Before(s.from.Add(-checkpointSlack)) || began.After(s.at.Add(checkpointSlack))) {
				continue
			}
			match = s // the latest that fits
		}
		if match != nil {
			match.taken = true
			sp.StartFrom, sp.Start = match.from, match.at
			if sp.Kind == "" || sp.Kind == "unknown" {
				sp.Kind = match.kind
			}
		}
		if hasBegan {
			sp.Start = began // the server's own record of the start
		}
		out = append(out, sp)
	}
	if n := len(starts); n > 0 && !starts[n-1].taken {
		s := starts[n-1]
		out = append(out, CheckpointSpan{Start: s.at, StartFrom: s.from, Kind: s.kind})
	}
	slices.SortStableFunc(out, func(a, b CheckpointSpan) int { return spanTime(a).Compare(spanTime(b)) })
	return out
}

func spanTime(c CheckpointSpan) time.Time {
	if !c.Start.IsZero() {
		return c.Start
	}
	return c.End
}

// UnfinishedCheckpoints are the spans that ran during the window (from,
// to] (Overlaps) without completing in it: started in it and completed
// after it or not at all, or running through all of it. A window that holds
// one of them holds a checkpoint's I/O although no completion falls in it.
func UnfinishedCheckpoints(spans []CheckpointSpan, from, to time.Time) []CheckpointSpan {
	in := Window{From: from, To: to}
	var out []CheckpointSpan
	for _, sp := range spans {
		if sp.Overlaps(from, to) && (sp.End.IsZero() || !in.Holds(sp.End, 0)) {
			out = append(out, sp)
		}
	}
	return out
}

// DescribeCheckpoint says when the checkpoint ran relative to the window
// (from, to], in seconds from from: "started at 29 s, completed after the
// window", "started before the window, completed at 3.5 s".
func DescribeCheckpoint(c CheckpointSpan, from, to time.Time) string {
	at := func(t time.Time) string { return format.Seconds(t.Sub(from).Seconds()) }
	var start, end string
	switch {
	case c.Start.IsZero():
		start = "started before the records"
	case !c.Start.After(from):
		start = "started before the window"
	case c.Start.After(to):
		start = "started after the window"
	default:
		start = "started at " + at(c.Start)
	}
	switch {
	case c.End.IsZero():
		end = "not completed by the end of the run"
	case c.End.After(to):
		end = "completed after the window"
	case !c.End.After(from):
		end = "completed before the window"
	default:
		end = "completed at " + at(c.End)
	}
	return start + ", " + end
}

func dataString(v any) string {
	s, _ := v.(string)
	return s
}

// DataInt reads a count from an event's Data (JSON numbers decode as
// float64; a fraction is rounded; in memory they may be integers); 0 for
// anything else, NaN and infinities included.
func DataInt(v any) int64 {
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return 0
		}
		return int64(math.Round(n))
	case int64:
		return n
	case int:
		return int64(n)
	case int32:
		return int64(n)
	case json.Number:
		i, _ := n.Int64()
		return i
	}
	return 0
}

// dataCount is DataInt for a repeat count: a decoded number outside 0 <
// n < 2^31 is 0.
func dataCount(v any) int {
	if f, ok := v.(float64); ok && !(f > 0 && f < math.MaxInt32) {
		return 0
	}
	return int(DataInt(v))
}
