package results

// Tail is why the slowest transactions were slow: slow.csv joined to the
// backends' samples (activity.csv) and to the run's occurrences. Owned by
// the tail part of internal/explain (explain/tail.go).
//
// The transactions are slow.csv's rows that ended in the measured window
// with a response time above the run's p99 (Summary.Total.Response.P99).
// Each is joined to the samples of its backend's pid taken between its
// actual start and its end (its service time: during its lag no backend
// worked for it) — in the open model, when its lag is the larger part of
// its response time, to those between its intended and actual start (what
// its connection's backend was busy with until it could start) — and to
// the occurrences that overlapped [intended start, end]. Its wait is the type:event of most of those samples (with the
// relation of a Lock wait); "not sampled" when no sample fell in it,
// "idle" when samples fell in it but its backend was in none of them (it
// was idle between statements: the time was spent in the client, the
// network or pgtrial), "pid unknown" when slow.csv has no pid for it.
type Tail struct {
	P99Ms float64 `json:"p99_ms"` // the threshold: the measured window's p99 of response time
	// Above is how many transactions of the window lie above the p99's
	// rank (Percentiles.Beyond(0.99)): what slow.csv would hold above it
	// without its cap.
	Above int64 `json:"above"`
	Kept  int   `json:"kept"` // slow.csv's rows above the p99 in the window: the transactions explained
	// PerInterval is slow.csv's cap (SlowPerInterval); CappedIntervals are
	// the intervals of the window that kept that many rows, all above the
	// p99, so transactions above it may have been left out there.
	PerInterval     int `json:"per_interval"`
	CappedIntervals int `json:"capped_intervals"`

	SamplePeriodMs float64 `json:"sample_period_ms"` // activity.csv's sampling period (0: unknown)
	Open           bool    `json:"open"`             // the open model: response = lag + service

	// Sums over the Kept transactions, ms: Response = Lag + Service.
	ResponseMs float64 `json:"response_ms"`
	ServiceMs  float64 `json:"service_ms"`
	LagMs      float64 `json:"lag_ms"`

	// Groups are the transactions by (wait, occurrence), most first.
	Groups []TailGroup `json:"groups"`
	// Occurrences are the occurrences that overlapped some of them, each
	// with how many it overlapped (a transaction may overlap several).
	Occurrences []TailOccurrence `json:"occurrences,omitempty"`

	// Unexplained: no occurrence overlapped it and its backend was sampled
	// in no wait event (CPU, idle, not sampled or pid unknown).
	Unexplained int `json:"unexplained"`
	NotSampled  int `json:"not_sampled"` // no sample of any backend fell in the span of its part
	// ShorterThanPeriod are the not-sampled ones whose part's span was
	// shorter than the sampling period (a sample could well miss them).
	ShorterThanPeriod int `json:"shorter_than_period"`

	// Slowest are the slowest of them (at most TailSlowest), each with its
	// attribution.
	Slowest []TailTx `json:"slowest,omitempty"`

	// Summary is the finding in one paragraph, as the reports print it.
	Summary []string `json:"summary"`
}

// TailSlowest is how many of the slowest transactions Tail.Slowest lists.
const TailSlowest = 10

// Parts of a slow transaction's response time its wait is of: its service
// time (its backend's samples from its start to its end), or in the open
// model its lag when that is the larger part (the samples of its
// connection's backend from its intended to its actual start: what kept
// the connection busy until it could start).
const (
	TailService = "service"
	TailLag     = "lag"
)

// Waits of a slow transaction that are no wait event of the server.
const (
	TailNotSampled = "not sampled" // no sample fell in its service time
	TailIdle       = "idle"        // samples fell in it, its backend was in none
	TailNoPID      = "pid unknown" // slow.csv has no pid for it
)

// TailGroup is the slow transactions of one (wait, occurrence).
type TailGroup struct {
	Wait       string  `json:"wait"`                 // "Lock:relation", "CPU", "idle in transaction", TailNotSampled, TailIdle, TailNoPID
	Relation   string  `json:"relation,omitempty"`   // of a Lock wait: the relation waited for
	Part       string  `json:"part"`                 // TailService or TailLag: the span the wait is of
	Occurrence string  `json:"occurrence,omitempty"` // the label of the occurrence it overlapped ("" none), with its span
	Count      int     `json:"count"`
	Share      float64 `json:"share"` // of Kept
	// Sums over the group, ms.
	ResponseMs float64 `json:"response_ms"`
	ServiceMs  float64 `json:"service_ms"`
	LagMs      float64 `json:"lag_ms"`
	MaxMs      float64 `json:"max_ms"` // its slowest response time
}

// TailOccurrence is one occurrence and how many slow transactions
// overlapped it.
type TailOccurrence struct {
	Kind  string  `json:"kind"`
	Label string  `json:"label"` // with its span on the run's clock: "injected lock on pgbench_accounts, 3 s at 10.0–13.0 s"
	FromS float64 `json:"from_s"`
	ToS   float64 `json:"to_s"`
	Count int     `json:"count"`
}

// TailTx is one slow transaction and its attribution.
type TailTx struct {
	Script     string  `json:"script"`
	Outcome    string  `json:"outcome"`
	Client     int     `json:"client"`
	PID        uint32  `json:"pid"`
	IntendedS  float64 `json:"intended_s"`
	EndS       float64 `json:"end_s"`
	ResponseMs float64 `json:"response_ms"`
	ServiceMs  float64 `json:"service_ms"`
	LagMs      float64 `json:"lag_ms"`
	Wait       string  `json:"wait"`
	Relation   string  `json:"relation,omitempty"`
	Part       string  `json:"part"`       // TailService or TailLag
	Samples    int     `json:"samples"`    // of its pid in its part's span
	WaitShare  float64 `json:"wait_share"` // Wait's share of those samples
	Occurrence string  `json:"occurrence,omitempty"`
}
