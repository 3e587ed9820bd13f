package results

import "github.com/pgtrial/pgtrial/internal/stats"

// Alarms are the OS alarms of a run (free memory, iowait, blocked and
// runnable tasks against the CPUs, swapping, steal, disk utilisation), each
// as the share of the measured time its condition held. Owned by
// explain/alarms.go.
//
// Every alarm is listed, those that never held with share 0, so that "no
// alarm" is said, not left out; an alarm whose figure was not measured has
// Missing set instead of a share.
type Alarms struct {
	Intervals int     `json:"intervals"`           // os.csv's intervals in the measured window
	IntervalS float64 `json:"interval_s"`          // their length, s (the median gap)
	CPUs      int     `json:"cpus,omitempty"`      // the host's logical CPUs (run.json's host)
	MemoryKB  float64 `json:"memory_kb,omitempty"` // the host's RAM, kB
	Items     []Alarm `json:"items"`
}

// Alarm is one OS condition over the measured intervals.
type Alarm struct {
	Name string `json:"name"` // "free memory", "iowait", "blocked", "runnable", "swap", "steal", "disk util"
	// Setting is the explain setting of its threshold (--explain alarm.wa=…).
	Setting string `json:"setting"`
	// Condition is the rule in words with its threshold ("MemAvailable < 5 % of RAM").
	Condition string `json:"condition"`
	// Threshold is in Unit: a share (0.1 = 10 %) for free, wa, st and
	// util, tasks for b and r (the setting × the CPUs), kB/s for swap.
	Threshold float64 `json:"threshold"`
	Unit      string  `json:"unit"`     // "share", "tasks", "kB/s"
	Measured  int     `json:"measured"` // intervals with the figure
	Held      int     `json:"held"`     // of them, those in which the condition held
	Share     float64 `json:"share"`    // Held / Measured
	// Worst is the worst value over the measured intervals, in Unit (the
	// lowest free share, the highest of the others); WorstAt its
	// interval's end, s of the run's clock; WorstOf what it is of (the
	// disk's name; "free" when MemAvailable was missing).
	Worst   float64 `json:"worst"`
	WorstAt float64 `json:"worst_at_s"`
	WorstOf string  `json:"worst_of,omitempty"`
	// Missing is why the alarm could not be evaluated ("" it was).
	Missing string `json:"missing,omitempty"`
}

// Associations are each wait type's and event's correlation with speed
// and latency across the run's intervals, with p-values that allow for
// autocorrelation; associations, not causes. Owned by
// explain/associations.go.
type Associations struct {
	Intervals int     `json:"intervals"`  // measured intervals with both waits and timeline rows
	IntervalS float64 `json:"interval_s"` // their length, s
	Class     string  `json:"class"`      // waits.csv's class used: "client" (or "all")
	Model     string  `json:"model"`      // the run's load model: which series is "slowdown"
	// Method names the correlation (Spearman's ρ with the effective n of
	// stats.Spearman) and the series correlated.
	Method string `json:"method"`
	// Slowdown says which association the ranking uses (p99, or −speed in
	// the closed model); Formula is the ranking's formula in words.
	Slowdown   string `json:"slowdown"`
	Formula    string `json:"formula"`
	MinSamples int64  `json:"min_samples"` // a wait with fewer samples is left out
	// Waits are ranked by Score, highest first (ties by Share).
	Waits []WaitAssociation `json:"waits,omitempty"`
	// Left are the waits left out for too few samples or intervals.
	Left int `json:"left_out,omitempty"`
}

// WaitAssociation is one wait type (Event "") or event against the run's
// speed and latency across intervals.
type WaitAssociation struct {
	Type        string  `json:"type"`            // wait_event_type or "CPU"
	Event       string  `json:"event,omitempty"` // "" for the whole type
	Samples     int64   `json:"samples"`
	Share       float64 `json:"share"`        // of all active samples in the window
	AvgSessions float64 `json:"avg_sessions"` // samples / ticks over the window
	// Speed and Latency are the correlations of the wait's per-interval
	// share of active samples with tps and with the response p99.
	Speed   stats.CorrResult `json:"speed"`
	Latency stats.CorrResult `json:"latency"`
	// Slow is the association with slowdown the ranking uses (Latency, or
	// Speed with its sign turned in the closed model); Score = Share ×
	// max(0, Slow.R); Holm is Slow.P adjusted over the ranked waits.
	Slow  stats.CorrResult `json:"slow"`
	Score float64          `json:"score"`
	Holm  float64          `json:"holm_p"`
}

// Pareto is the few wait events and statements (by time, by blocks) that
// make up 80 % of the run's total. Owned by explain/pareto.go.
type Pareto struct {
	Share float64 `json:"share"` // the cut: the lists cover this share of their total
	// Waits are the wait events by samples of active client backends
	// (waits.csv over the measured window); WaitsTotal all their samples.
	Waits      []stats.Item `json:"waits,omitempty"`
	WaitsTotal float64      `json:"waits_total"`
	WaitsOf    int          `json:"waits_of"` // distinct wait events in the total
	// ByTime and ByBlocks are the statements (statements.csv, measured
	// phase, the run's sessions) by total execution time (ms) and by shared
	// blocks hit + read; Name is the redacted text, Queries the queryids in
	// the same order.
	ByTime       []stats.Item `json:"by_time,omitempty"`
	ByTimeIDs    []int64      `json:"by_time_queryids,omitempty"`
	TimeTotal    float64      `json:"time_total_ms"`
	ByBlocks     []stats.Item `json:"by_blocks,omitempty"`
	ByBlocksIDs  []int64      `json:"by_blocks_queryids,omitempty"`
	BlocksTotal  float64      `json:"blocks_total"`
	StatementsOf int          `json:"statements_of"` // statements in the totals
	WaitsMissing string       `json:"waits_missing,omitempty"`
	StmtsMissing string       `json:"statements_missing,omitempty"`
}
