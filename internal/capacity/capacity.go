package capacity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Prober runs measurements. Implementations run real load; tests use fakes.
//
// n numbers the runs of one search 1, 2, 3 … in the order they are made
// (closed runs first, then open ones), so an implementation can name run
// directories from it. A Prober should return promptly with ctx.Err() when
// ctx is cancelled.
type Prober interface {
	// Closed runs the closed model once and returns its throughput
	// (committed tx/s) and outcome.
	Closed(ctx context.Context, n int) (Probe, error)
	// Open runs the open model at rate tx/s once.
	Open(ctx context.Context, rate float64, n int) (Probe, error)
}

// Probe kinds.
const (
	KindClosed = "closed"
	KindOpen   = "open"
)

// Probe is one run's outcome as the search needs it. Search sets Kind and
// Rate to what it asked for (Rate 0 for closed runs).
type Probe struct {
	Kind     string        `json:"kind"`     // KindClosed or KindOpen
	Rate     float64       `json:"rate"`     // target rate, tx/s (open); 0 for closed
	Achieved float64       `json:"achieved"` // committed tx/s over the measured window
	Quantile time.Duration `json:"quantile"` // the SLO's quantile of response time (from the intended start)
	// LagGrowing: the schedule lag (actual − intended start) rises over the
	// window: the server does not keep up with the rate.
	LagGrowing bool `json:"lag_growing"`
	// SkippedShare and FailedShare are fractions (0–1) of the transactions
	// scheduled in the measured window that were skipped or dropped (never
	// started), and that failed.
	SkippedShare float64 `json:"skipped_share"`
	FailedShare  float64 `json:"failed_share"`
	Dir          string  `json:"dir,omitempty"` // run directory, for the report
	// WindowS is the measured window in seconds (0: unknown). With it the
	// achieved-rate rule (stats.RateAchieved) knows E = Rate·WindowS, the
	// arrivals the window expects, and allows their Poisson noise.
	WindowS float64 `json:"window_s,omitempty"`
	// Started is the number of transactions started in the window
	// (committed + failed + in flight at its end), the count the checklist's
	// rate_achieved item judges; 0: unknown, and Achieved·WindowS is used.
	Started float64 `json:"started,omitempty"`
	// Uniform: the arrivals were uniform (deterministic), not Poisson; the
	// achieved-rate rule then allows 1 % of E only.
	Uniform bool `json:"uniform,omitempty"`
}

// Phases of a Step.
const (
	PhaseCeiling  = "ceiling"  // closed-model runs for the ceiling
	PhaseFraction = "fraction" // open-model runs at Config.Fractions of the ceiling, and at 1.0
	PhaseHalve    = "halve"    // below the lowest fraction when it fails: rate halved
	PhaseBisect   = "bisect"   // between the highest pass and the lowest failure
	PhaseRepeat   = "repeat"   // one more run at an end of the interval (Config.BracketRepeats)
)

// Why a search ended (Result.Stopped).
const (
	StopPrecision   = "precision reached"                         // (high − low)/low ≤ Precision
	StopMaxSteps    = "max steps"                                 // MaxSteps halving and bisection runs made
	StopAtCeiling   = "meets the SLO at the closed-model ceiling" // nothing above it is tried
	StopLowestFails = "the lowest step fails the SLO"             // no run passed; Rate is 0
	StopNoCeiling   = "no ceiling"                                // the closed runs committed nothing
	StopCanceled    = "interrupted"                               // the context was cancelled
	StopError       = "prober error"                              // a run failed to run
)

// Config is the SLO and the search's parameters. A zero field means its
// default; for MaxSteps, Precision and MaxFailedShare a negative value
// means zero (no bisection; bisect until MaxSteps; no failures allowed).
type Config struct {
	Quantile       float64       `json:"quantile"`        // the SLO's quantile in (0, 1), e.g. 0.99 (for messages only); default 0.99
	Limit          time.Duration `json:"limit"`           // SLO limit on that quantile of response time; required
	Fractions      []float64     `json:"fractions"`       // of the ceiling, increasing, in (0, 1]; default {0.3, 0.6, 0.9}
	CeilingRepeats int           `json:"ceiling_repeats"` // closed-model runs; default 3
	// BracketRepeats is the number of runs at each end of the interval:
	// Low must meet the SLO in all of them, High miss it in all of them.
	// Default 3; 1 is the old single-run search. Negative is an error.
	BracketRepeats int        `json:"bracket_repeats"`
	Precision      float64    `json:"precision"`        // bisect while (high − low)/low > Precision; default 0.05
	MaxSteps       int        `json:"max_steps"`        // halving plus bisection runs at most (repeats not counted); default 8
	MinRate        float64    `json:"min_rate"`         // tx/s; halving stops below it; default 1
	MaxFailedShare float64    `json:"max_failed_share"` // skipped + failed share above it fails a run; default 0.01
	OnProbe        func(Step) `json:"-"`                // optional: called after every run, in order
}

// Defaults.
const (
	DefaultQuantile       = 0.99
	DefaultCeilingRepeats = 3
	DefaultBracketRepeats = 3
	DefaultPrecision      = 0.05
	DefaultMaxSteps       = 8
	DefaultMinRate        = 1.0
	DefaultMaxFailedShare = 0.01
)

// DefaultFractions returns the default open-model steps, as fractions of the
// closed-model ceiling.
func DefaultFractions() []float64 { return []float64{0.3, 0.6, 0.9} }

// Step is one run of the search.
type Step struct {
	N        int     `json:"n"`        // the run's number, as passed to the Prober
	Phase    string  `json:"phase"`    // PhaseCeiling, PhaseFraction, PhaseHalve or PhaseBisect
	Fraction float64 `json:"fraction"` // target rate / ceiling; 0 for ceiling runs
	Repeat   int     `json:"repeat"`   // the run's place among the runs at its rate, 1-based; 0 for ceiling runs
	Probe    Probe   `json:"probe"`
	Pass     bool    `json:"pass"` // Config.Judge(Probe); false for ceiling runs, which are not judged
	// Why is Judge's reason: for a failure what missed ("p99 73 ms > 50 ms;
	// lag grows"), for a pass the quantile against the limit
	// ("p99 41 ms ≤ 50 ms").
	Why string `json:"why"`
}

// Result is what a search found: the capacity as an interval [Low, High)
// of target rates (see the package comment for what it means).
type Result struct {
	Config      Config  `json:"config"`       // as used, defaults filled in
	Ceiling     float64 `json:"ceiling"`      // median committed tx/s of the closed runs (of those made, if interrupted)
	CeilingRuns []Probe `json:"ceiling_runs"` // in the order run
	Steps       []Step  `json:"steps"`        // every open-model run, in the order run
	// Rates is every open-model target rate tried, increasing, with its
	// runs and its verdict.
	Rates []RateRuns `json:"rates"`
	// Low is the interval's low end: the highest rate whose runs all met
	// the SLO, tx/s; 0 when there is none.
	Low float64 `json:"low"`
	// High is the interval's high end: the lowest rate whose runs all
	// missed the SLO, above Low, tx/s; 0 when there is none (the search
	// ended at the ceiling, or before any miss).
	High float64 `json:"high"`
	// RunsPerRate is Config.BracketRepeats: the runs the search makes at
	// Low and at High (fewer when it ended early; Rates has the counts).
	RunsPerRate int `json:"runs_per_rate"`
	// Rate is Low, the highest rate shown to hold (kept for readers of
	// older records).
	Rate float64 `json:"rate"`
	// Pass is the first passing run at Low; nil when no rate holds.
	Pass *Step `json:"pass,omitempty"`
	// Fail is the first failing run at High; nil when no rate misses. When
	// Pass is nil it is a run at the lowest rate tried.
	Fail    *Step  `json:"fail,omitempty"`
	Stopped string `json:"stopped"` // one of the Stop… constants
}

// RateRuns is one target rate of a search and its runs.
type RateRuns struct {
	Rate    float64 `json:"rate"`    // target, tx/s
	Runs    []int   `json:"runs"`    // the runs' numbers (Step.N), in the order run
	Passed  int     `json:"passed"`  // how many met the SLO
	Verdict string  `json:"verdict"` // VerdictHolds, VerdictMisses or VerdictMixed
}

// Verdicts of a rate (RateRuns.Verdict), from its runs.
const (
	VerdictHolds  = "holds"  // every run met the SLO
	VerdictMisses = "misses" // no run met it
	VerdictMixed  = "mixed"  // some did: the rate is within the noise of the capacity
)

// Normalized is c with its defaults filled in and negative values mapped to
// zero (see Config). It does not check anything.
func (c Config) Normalized() Config {
	if c.Quantile == 0 {
		c.Quantile = DefaultQuantile
	}
	if len(c.Fractions) == 0 {
		c.Fractions = DefaultFractions()
	} else {
		c.Fractions = append([]float64(nil), c.Fractions...)
	}
	if c.CeilingRepeats == 0 {
		c.CeilingRepeats = DefaultCeilingRepeats
	}
	if c.BracketRepeats == 0 {
		c.BracketRepeats = DefaultBracketRepeats
	}
	if c.MinRate == 0 {
		c.MinRate = DefaultMinRate
	}
	c.Precision = orDefault(c.Precision, DefaultPrecision)
	c.MaxFailedShare = orDefault(c.MaxFailedShare, DefaultMaxFailedShare)
	switch {
	case c.MaxSteps == 0:
		c.MaxSteps = DefaultMaxSteps
	case c.MaxSteps < 0:
		c.MaxSteps = 0
	}
	return c
}

// orDefault is def for 0, 0 for a negative v, v otherwise.
func orDefault(v, def float64) float64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// validate checks a normalized Config.
func (c Config) validate() error {
	var errs []error
	if c.Limit <= 0 {
		errs = append(errs, fmt.Errorf("limit %v: the SLO needs a positive latency limit", c.Limit))
	}
	if !(c.Quantile > 0 && c.Quantile < 1) {
		errs = append(errs, fmt.Errorf("quantile %v: want a value in (0, 1), e.g. 0.99", c.Quantile))
	}
	for i, f := range c.Fractions {
		if !(f > 0 && f <= 1) {
			errs = append(errs, fmt.Errorf("fractions[%d] = %v: want a fraction of the ceiling in (0, 1]", i, f))
		} else if i > 0 && !(f > c.Fractions[i-1]) {
			errs = append(errs, fmt.Errorf("fractions[%d] = %v: want fractions in increasing order (after %v)", i, f, c.Fractions[i-1]))
		}
	}
	if c.CeilingRepeats < 0 {
		errs = append(errs, fmt.Errorf("ceiling repeats %d: want at least 1 closed-model run", c.CeilingRepeats))
	}
	if c.BracketRepeats < 0 {
		errs = append(errs, fmt.Errorf("bracket repeats %d: want at least 1 run at each end of the interval", c.BracketRepeats))
	}
	if !(c.MinRate > 0) || math.IsInf(c.MinRate, 0) {
		errs = append(errs, fmt.Errorf("min rate %v: want a positive rate in tx/s", c.MinRate))
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"precision", c.Precision}, {"max failed share", c.MaxFailedShare}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			errs = append(errs, fmt.Errorf("%s %v: want a finite number", v.name, v.x))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("capacity search: %w", err)
	}
	return nil
}

// Judge decides one probe against the SLO (the rules are in the package
// comment). Zero fields of c take their defaults; c.Limit must be set. For a
// failure the reason lists every rule missed, joined by "; "
// ("p99 73 ms > 50 ms; lag grows; achieved 912 of 1000 tx/s"); for a pass it
// is the quantile against the limit ("p99 41 ms ≤ 50 ms").
func (c Config) Judge(pr Probe) (bool, string) {
	c = c.Normalized()
	if pr.Kind == KindClosed {
		return false, "closed model: not judged against the SLO (its latency counts from the actual start)"
	}
	var why []string
	if pr.Quantile > c.Limit {
		why = append(why, c.quantileVsLimit(pr.Quantile))
	}
	if pr.LagGrowing {
		why = append(why, "lag grows")
	}
	if !rateAchieved(pr) {
		why = append(why, fmt.Sprintf("achieved %s of %s tx/s", format.Sig3(pr.Achieved), format.Sig3(pr.Rate)))
	}
	// Negated comparison, so that NaN fails.
	if lost := pr.SkippedShare + pr.FailedShare; !(lost <= c.MaxFailedShare) {
		why = append(why, fmt.Sprintf("skipped %s + failed %s > %s", format.Pct(pr.SkippedShare), format.Pct(pr.FailedShare), format.Pct(c.MaxFailedShare)))
	}
	if len(why) > 0 {
		return false, strings.Join(why, "; ")
	}
	return true, c.quantileVsLimit(pr.Quantile)
}

// rateAchieved is the checklist's rule (stats.RateAchieved) for a probe:
// E = Rate·WindowS arrivals expected, Started (else Achieved·WindowS)
// started. Without a window E is unknown and the rule's 1 % floor is used:
// Achieved ≥ 0.99·Rate.
func rateAchieved(pr Probe) bool {
	e := pr.Rate * pr.WindowS
	if !(e > 0) || math.IsInf(e, 0) {
		return pr.Achieved >= (1-stats.RateShortfall)*pr.Rate // NaN fails
	}
	started := pr.Started
	if !(started > 0) {
		started = pr.Achieved * pr.WindowS
	}
	return stats.RateAchieved(e, started, !pr.Uniform)
}

// quantileVsLimit is "p99 41 ms ≤ 50 ms" or "p99 73 ms > 50 ms"; when both
// round to the same text, Go's exact durations are printed instead.
func (c Config) quantileVsLimit(q time.Duration) string {
	op := "≤"
	if q > c.Limit {
		op = ">"
	}
	a, b := format.Duration(q), format.Duration(c.Limit)
	if a == b && q != c.Limit {
		a, b = q.String(), c.Limit.String()
	}
	return fmt.Sprintf("%s %s %s %s", QuantileName(c.Quantile), a, op, b)
}

// QuantileName is "p99" for 0.99, "p99.9" for 0.999, "p50" for 0.5: the
// per cent with up to four decimals, without trailing zeros.
func QuantileName(q float64) string {
	return "p" + strconv.FormatFloat(math.Round(100*q*1e4)/1e4, 'f', -1, 64)
}

// Conclusion is the search's answer in one line: the interval, its runs
// per rate, and at each end how many runs met the SLO with one run's
// figures, e.g. "capacity: between 788 and 825 tx/s at p99 ≤ 50 ms (3 runs
// each): 788 tx/s meets it in 3 of 3 runs (p99 43.3 ms ≤ 50 ms, run DIR);
// 825 tx/s in 0 of 3 (p99 52.6 ms > 50 ms, run DIR)". Rates have three
// significant digits (format.Sig3).
func Conclusion(r *Result) string {
	r = r.WithRates()
	c := r.Config.Normalized()
	slo := fmt.Sprintf("%s ≤ %s", QuantileName(c.Quantile), format.Duration(c.Limit))
	lo, hi := r.at(r.Low), r.at(r.High)
	var b strings.Builder
	b.WriteString("capacity")
	if r.Stopped == StopCanceled || r.Stopped == StopError {
		fmt.Fprintf(&b, " so far (search ended early: %s)", r.Stopped)
	}
	b.WriteString(": ")
	switch {
	case r.Pass != nil && r.Fail != nil && lo != nil && hi != nil:
		fmt.Fprintf(&b, "between %s and %s tx/s at %s (%s): %s tx/s meets it in %s (%s, %s); %s tx/s in %d of %d (%s, %s)",
			format.Sig3(r.Low), format.Sig3(r.High), slo, runsEach(len(lo.Runs), len(hi.Runs)),
			format.Sig3(r.Low), ofRuns(lo), c.quantileVsLimit(r.Pass.Probe.Quantile), runRef(r.Pass),
			format.Sig3(r.High), hi.Passed, len(hi.Runs), r.Fail.Why, runRef(r.Fail))
	case r.Pass != nil && lo != nil:
		what := format.Sig3(r.Low) + " tx/s"
		if r.Stopped == StopAtCeiling && r.Low == r.Ceiling {
			what += ", the closed-model ceiling,"
		}
		fmt.Fprintf(&b, "at least %s tx/s at %s: %s meets it in %s (%s, %s)",
			format.Sig3(r.Low), slo, what, ofRuns(lo), c.quantileVsLimit(r.Pass.Probe.Quantile), runRef(r.Pass))
		if r.Stopped == StopAtCeiling {
			b.WriteString("; no rate above the ceiling is tried (more needs more clients)")
		} else {
			b.WriteString("; no rate above it was shown to miss")
		}
	case r.Fail != nil && hi != nil:
		fmt.Fprintf(&b, "none found: the lowest rate tried, %s tx/s, misses %s in %d of %s: %s (%s)",
			format.Sig3(r.High), slo, len(hi.Runs)-hi.Passed, format.Plural(len(hi.Runs), "1 run", strconv.Itoa(len(hi.Runs))+" runs"), r.Fail.Why, runRef(r.Fail))
	default:
		b.WriteString("none found: no open-model run was made")
	}
	return b.String()
}

// WithRates is r, or for a record written before the interval (an
// experiment.json without "rates") a copy with Rates, Low, High and
// RunsPerRate derived from its Steps, Rate and Fail: one run per rate.
func (r *Result) WithRates() *Result {
	if r == nil || r.Rates != nil || len(r.Steps) == 0 {
		return r
	}
	out := *r
	by := map[float64]*RateRuns{}
	for _, st := range r.Steps {
		rr := by[st.Probe.Rate]
		if rr == nil {
			rr = &RateRuns{Rate: st.Probe.Rate}
			by[st.Probe.Rate] = rr
		}
		rr.Runs = append(rr.Runs, st.N)
		if st.Pass {
			rr.Passed++
		}
	}
	for _, rr := range by {
		rr.Verdict = VerdictMixed
		switch rr.Passed {
		case len(rr.Runs):
			rr.Verdict = VerdictHolds
		case 0:
			rr.Verdict = VerdictMisses
		}
		out.Rates = append(out.Rates, *rr)
	}
	slices.SortFunc(out.Rates, func(a, b RateRuns) int { return cmp.Compare(a.Rate, b.Rate) })
	out.Low = r.Rate
	if r.Fail != nil {
		out.High = r.Fail.Probe.Rate
	}
	if out.RunsPerRate == 0 {
		out.RunsPerRate = 1
	}
	if out.Config.BracketRepeats == 0 {
		out.Config.BracketRepeats = 1 // the search had no repeats then
	}
	return &out
}

// at is the rate's RateRuns; nil for 0 or a rate not tried.
func (r *Result) at(rate float64) *RateRuns {
	if rate == 0 {
		return nil
	}
	for i := range r.Rates {
		if r.Rates[i].Rate == rate {
			return &r.Rates[i]
		}
	}
	return nil
}

// runsEach is "3 runs each", "1 run", or "3 and 2 runs" when the ends'
// counts differ (a search that ended early).
func runsEach(n ...int) string {
	if len(n) == 2 && n[0] != n[1] {
		return fmt.Sprintf("%d and %d runs", n[0], n[1])
	}
	s := format.Plural(n[0], "1 run", strconv.Itoa(n[0])+" runs")
	if len(n) == 2 {
		s += " each"
	}
	return s
}

// ofRuns is "3 of 3 runs", "1 of 1 run".
func ofRuns(rr *RateRuns) string {
	return fmt.Sprintf("%d of %s", rr.Passed, format.Plural(len(rr.Runs), "1 run", strconv.Itoa(len(rr.Runs))+" runs"))
}

// runRef names a step's run: "run DIR", or "run #N" without a directory.
func runRef(st *Step) string {
	if st.Probe.Dir != "" {
		return "run " + st.Probe.Dir
	}
	return "run #" + strconv.Itoa(st.N)
}
