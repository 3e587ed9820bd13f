package results

// Changes are the level shifts found in a run's per-interval series (tps,
// response p99, lag p99) over its measured window, and what happened near
// each. Owned by the change points' part of internal/explain
// (explain/changes.go). Times are seconds on the run's clock (zero: the
// bench start, as every CSV's elapsed_s); a change's time is the start of
// the first interval of its new level.
type Changes struct {
	// Method is the detector and its penalty in words: "PELT on tps and on
	// ln p99, ln lag, β = 3·ln n × long-run variance σ²(1+ρ)/(1−ρ)".
	Method string `json:"method"`
	// Penalty is the factor of ln n in β (explain.Config.Penalty).
	Penalty float64 `json:"penalty"`
	// MatchS is how far (s, either side) an occurrence's start or end may
	// be from a change and still be matched to it.
	MatchS float64 `json:"match_s"`
	// WindowFromS, WindowToS are the measured window on the run's clock.
	WindowFromS float64 `json:"window_from_s"`
	WindowToS   float64 `json:"window_to_s"`
	IntervalS   float64 `json:"interval_s"` // the timeline's interval

	Series  []ChangeSeries `json:"series"`            // every series looked at, with or without a change
	Changes []Change       `json:"changes,omitempty"` // in time order
	// Quiet are the occurrences in or near the window with no change
	// matched to them, with the context around their start.
	Quiet []QuietOccurrence `json:"quiet,omitempty"`
	// Missing says which context could not be computed and why
	// ("waits.csv: not collected (…)"), so an absent wait shift is not
	// read as "the waits did not move".
	Missing []string `json:"missing,omitempty"`
}

// Names of the series Changes looks at.
const (
	SeriesTPS = "tps"
	SeriesP99 = "p99"     // response time p99 of the interval's committed transactions
	SeriesLag = "lag p99" // schedule lag p99 (open model only)
)

// OccurErrorBurst is an Occurrence kind Changes adds to results.Occurrences:
// consecutive intervals of timeline.csv whose failed count jumps
// (explain/changes.go says by how much).
const OccurErrorBurst = "error_burst"

// ChangeSeries is one series as the detector saw it: what "no change"
// rests on.
type ChangeSeries struct {
	Name string `json:"name"` // SeriesTPS, SeriesP99, SeriesLag
	Unit string `json:"unit"` // "tx/s", "ms"
	N    int    `json:"n"`    // intervals with a value (p99 and lag: with a committed transaction)
	// Scale is "log" when the detector saw ln(value) (latencies: Sigma is
	// then of the logarithm, a relative spread), "" for the values.
	Scale string  `json:"scale,omitempty"`
	Sigma float64 `json:"sigma"`
	Rho   float64 `json:"rho"`  // lag-1 autocorrelation of the noise
	Beta  float64 `json:"beta"` // β = Penalty·ln n, in units of σ²(1+ρ)/(1−ρ)
	Found int     `json:"found"`
	// Missing is why the series was not analysed ("closed model", "fewer
	// than 6 intervals"); "" when it was.
	Missing string `json:"missing,omitempty"`
}

// Change is one level shift of one series.
type Change struct {
	Series string  `json:"series"`
	Unit   string  `json:"unit"`
	AtS    float64 `json:"at_s"`    // start of the first interval of the new level
	SinceS float64 `json:"since_s"` // AtS − the measured window's start
	Before float64 `json:"before"`  // mean level of the segment before
	After  float64 `json:"after"`   // mean level of the segment from AtS
	// Relative is After/Before − 1; nil when Before is 0.
	Relative *float64 `json:"relative,omitempty"`
	// The segments compared: [FromS, AtS) and [AtS, ToS), bounded by the
	// series' neighbouring changes and the window.
	FromS float64 `json:"from_s"`
	ToS   float64 `json:"to_s"`

	Matched []ChangeMatch `json:"matched,omitempty"` // nearest first
	// Unexplained is true when nothing happened within MatchS of it.
	Unexplained bool `json:"unexplained,omitempty"`

	Waits []WaitShift `json:"waits,omitempty"` // the wait events whose share moved most
	FPI   *ShareShift `json:"fpi,omitempty"`   // WAL full-page images' share of records
}

// ChangeMatch is an occurrence whose start or end lies near a change.
type ChangeMatch struct {
	Kind  string `json:"kind"` // an Occurrence kind, or OccurErrorBurst
	Label string `json:"label"`
	// Edge is which part of the occurrence is near: "start", "end", or
	// "at" (an instant).
	Edge    string  `json:"edge"`
	AtS     float64 `json:"at_s"`     // the edge's time (a checkpoint's start: the latest it can be)
	OffsetS float64 `json:"offset_s"` // the edge's distance from the change, 0 when the change lies in its range
}

// QuietOccurrence is an occurrence with no change within MatchS of its
// start or end, and the context around its start.
type QuietOccurrence struct {
	Kind   string   `json:"kind"`
	Label  string   `json:"label"`
	StartS *float64 `json:"start_s,omitempty"` // nil: before the records
	EndS   *float64 `json:"end_s,omitempty"`   // nil: an instant, or unknown
	// The stretches compared: [FromS, StartS) and [StartS, ToS).
	FromS float64     `json:"from_s"`
	ToS   float64     `json:"to_s"`
	Waits []WaitShift `json:"waits,omitempty"`
	FPI   *ShareShift `json:"fpi,omitempty"`
}

// WaitShift is one wait event's share of the client sessions' active
// samples (CPU included) before and after, with its average active
// sessions.
type WaitShift struct {
	Type           string  `json:"type"`
	Event          string  `json:"event"`
	Before         float64 `json:"before"` // share, 0–1
	After          float64 `json:"after"`
	SessionsBefore float64 `json:"sessions_before"`
	SessionsAfter  float64 `json:"sessions_after"`
	// ActiveBefore, ActiveAfter are the active samples of each stretch
	// (all events): what the shares rest on.
	ActiveBefore int64 `json:"active_before"`
	ActiveAfter  int64 `json:"active_after"`
}

// ShareShift is a share (0–1) before and after; Moved says whether it moved
// by enough to be named (explain/changes.go says how much).
type ShareShift struct {
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Moved  bool    `json:"moved"`
}
