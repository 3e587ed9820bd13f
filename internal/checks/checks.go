// Package checks is the honesty checklist (DESIGN.md §8): items with a
// status (pass, warn, fail), the value the status was decided on and a
// message that gives the number and what to do. Run reads a run directory
// (the only input; DESIGN.md §3); RunChecks works on what a caller has in
// memory. An experiment adds its own items (Repeats, Interleaving) with
// Replace, and summarises its runs' checklists with Combine.
//
// The items of a run, their values and rules (thresholds are the constants
// below; "window" is the measured phase):
//
//	warmup                a warm-up phase ran and was left out of the summary,
//	                      and the window is steady: in the per-interval tps
//	                      (closed model) and response p50, MSER-5 (§4.7) finds
//	                      no head that differs from the rest by more than
//	                      steadyTolerance, and the least-squares trend has no
//	                      drift |s| = |b|·T/ȳ above driftTolerance with
//	                      p < trendAlpha, p judged on the drift's own
//	                      standard error: t on n_eff − 2 df, n_eff =
//	                      n·(1−ρ)/(1+ρ) from the residuals' lag-1
//	                      autocorrelation ρ (stats.SeriesFit; the message
//	                      names the test and n_eff). Warn otherwise, or with
//	                      no warm-up.
//	                      Value: the largest departure found (fraction) when
//	                      the timeline had ≥ minSteadyIntervals full
//	                      intervals, else the warm-up's seconds.
//	checkpoint_in_window  pass with ≥ 1 checkpoint event in the window
//	                      (observed), or a window of ≥ 2 × checkpoint_timeout;
//	                      warn otherwise. Value: checkpoints seen.
//	repeats               one run cannot show its noise: warn (Value 1); an
//	                      experiment replaces it with Repeats.
//	open_model_latency    pass for an open-model run; warn for a closed one,
//	                      whose mean latency is clients/tps (Little's law).
//	                      Value: clients/tps in ms (closed), the rate (open).
//	skipped_dropped_shown share x = (skipped + dropped) / (committed + failed +
//	                      skipped + dropped), what the latency figures leave
//	                      out: pass x ≤ 1 %, warn ≤ 10 %, fail above. Value: x.
//	failed_share          share f = failed / (committed + skipped + failed),
//	                      the summary's failed_share: transactions that
//	                      ended in an error (--continue-on-error, retries
//	                      exhausted) and are left out of every figure: pass
//	                      f ≤ 1 %, warn ≤ 50 %, fail above or when nothing
//	                      committed. Value: f (1 with nothing taken).
//	data_vs_memory        pass with the case (fits in shared_buffers, in RAM,
//	                      larger than RAM); warn when the data size or
//	                      shared_buffers is unknown, or RAM is and the data
//	                      exceeds shared_buffers. Value: the data size in
//	                      bytes (database size, else the workload's tables).
//	scale_vs_clients      tpcb-like only: warn when scale < clients (every
//	                      transaction updates one of `scale` branch rows).
//	                      Value: the scale.
//	client_cpu            pgtrial's CPU (CPUs, over the window): warn above
//	                      0.8 × threads (each thread is one OS thread polling
//	                      its clients) or, when the server shares the machine,
//	                      above 0.5 × its CPUs; fail above 0.95 × threads or
//	                      0.9 × the machine's CPUs; warn when it was not
//	                      measured or neither limit is known. Value: CPUs
//	                      used (run.json's evidence, else os.csv's mean).
//	rate_achieved         open model: pass when the started transactions N
//	                      fall short of E = rate × window by no more than
//	                      max(1 % of E, 3√E) (3√E: a Poisson count's noise;
//	                      1 % alone with uniform arrivals: stats.RateAchieved,
//	                      the capacity search's rule too), and the lag p99
//	                      is not growing (growing: a one-sided slope
//	                      p < trendAlpha, a fitted rise b·T > lagRiseMs and
//	                      the last quarter's median > the first quarter's +
//	                      lagRiseMs); fail otherwise. Value: N/E.
//	autovacuum_in_window  warn naming the tables when autovacuum or
//	                      autoanalyze ran in the window; pass when none did
//	                      and the server collector was watching. Value: runs.
//
// The item "stall calibration" of §8 belongs to experiments with an
// injected stall: StallVisible (experiment.go). The item fresh_data belongs to
// experiments that loaded or aged their tables: FreshData (data.go).
package checks

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Statuses.
const (
	Pass = "pass"
	Warn = "warn"
	Fail = "fail"
)

// Item names (results.Check.Name).
const (
	ItemWarmup         = "warmup"
	ItemCheckpoint     = "checkpoint_in_window"
	ItemRepeats        = "repeats"
	ItemInterleaved    = "interleaved" // experiments only (Interleaving)
	ItemOpenModel      = "open_model_latency"
	ItemSkippedDropped = "skipped_dropped_shown"
	ItemFailed         = "failed_share"
	ItemDataVsMemory   = "data_vs_memory"
	ItemScaleVsClients = "scale_vs_clients"
	ItemClientCPU      = "client_cpu"
	ItemRateAchieved   = "rate_achieved"
	ItemAutovacuum     = "autovacuum_in_window"
	ItemStallVisible   = "stall_visible" // experiments with an injected lock only (StallVisible)
)

// Thresholds of the rules (see the package comment).
const (
	steadyTolerance    = 0.10 // MSER-5 head vs rest, relative to the rest
	driftTolerance     = 0.05 // |s| = |b|·T/ȳ, the fitted change across the window
	trendAlpha         = 0.01 // p-value of a slope, paired with a magnitude (§4.8)
	minSteadyIntervals = 20   // MSER-5 needs ≥ 4 batches of 5

	minRepeats        = 3 // runs per variant (DESIGN §8)
	minCompareRepeats = 4 // runs per variant when variants are compared: 2/C(8, 4) = 0.029 < 0.05

	excludedWarn = 0.01 // skipped + dropped share of the scheduled transactions
	excludedFail = 0.10

	failedWarn = 0.01 // failed share of the transactions taken (and any run with nothing committed fails)
	failedFail = 0.50

	lagRiseMs = 10.0 // below this a lag "trend" is timer noise (rate_achieved's shortfall rule is stats.RateAchieved)

	cpuThreadWarn = 0.80 // of the load generator's threads
	cpuThreadFail = 0.95
	cpuHostWarn   = 0.50 // of the CPUs of a machine shared with the server
	cpuHostFail   = 0.90
)

// Collector kinds as run.json's "collectors" lists them (collect.KindServer
// and collect.KindOS).
const (
	collectorServer = "server"
	collectorOS     = "os"
)

// Run reads the run directory dir (run.json, timeline.csv, events.jsonl and,
// when run.json has no evidence, the client_cpu column of os.csv) and
// returns its checklist. Missing timeline, events or os files make the
// items that need them say what is unknown, as does a damaged os.csv (the
// evidence of one item); an unreadable run.json, timeline or events file
// is an error.
func Run(dir string) ([]results.Check, error) {
	run, err := results.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("checks: %w", err)
	}
	timeline, err := results.ReadTimeline(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checks: %w", err)
	}
	events, err := results.ReadEvents(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checks: %w", err)
	}
	in := newInput(run, timeline, events)
	if run.Evidence == nil && in.win.known {
		cpu, ok, err := readClientCPU(dir, in.win.span(), in.win.rowLength())
		switch {
		case err != nil:
			in.osErr = err // one item's evidence: that item says so
		case ok:
			in.osClientCPU = &cpu
		}
	}
	return in.checks(), nil
}

// RunChecks is the checklist of run from what the caller has in memory:
// the run, its timeline rows and its events (either may be nil; the
// checkpoint and autovacuum items then use run.Evidence).
func RunChecks(run *results.Run, timeline []results.TimelineRow, events []results.Event) []results.Check {
	if run == nil {
		run = &results.Run{}
	}
	return newInput(run, timeline, events).checks()
}

// input is what the items are decided on.
type input struct {
	run         *results.Run
	events      []results.Event
	win         window
	osClientCPU *float64 // mean client_cpu of os.csv over the window, when run.json has no evidence
	osErr       error    // why os.csv could not be read
}

func newInput(run *results.Run, timeline []results.TimelineRow, events []results.Event) *input {
	return &input{run: run, events: events, win: measureWindow(run, timeline, events)}
}

func (in *input) checks() []results.Check {
	return append([]results.Check{
		in.warmup(),
		in.checkpointInWindow(),
		Repeats([]VariantRuns{{Runs: 1}}),
		in.openModelLatency(),
		in.skippedDropped(),
		in.failedShare(),
		in.dataVsMemory(),
		in.scaleVsClients(),
		in.clientCPU(),
		in.rateAchieved(),
		in.autovacuum(),
	}, append(in.tpcc(), in.ycsbCache()...)...) // tpcc.go, ycsb.go
}

// window is the measured phase.
type window struct {
	known      bool      // start and end are known
	start, end time.Time // the phase's span
	seconds    float64   // its length: the summary's duration, else end − start
	interval   float64   // the median interval length of the timeline, s

	hasWarmup bool
	warmup    float64 // seconds

	// rows are the measured intervals of full length (an interval shorter
	// than half the median, such as the run's last, is left out of the
	// trends: its rates rest on a few transactions).
	rows []results.TimelineRow
	// all are every measured row.
	all []results.TimelineRow
}

// measureWindow finds the measured phase: from run.json's phases, else the
// phase events (a run still going, or one that crashed), else the timeline.
func measureWindow(run *results.Run, rows []results.TimelineRow, events []results.Event) window {
	var w window
	gap := func(i int) float64 { // length of row i's interval, s
		if i == 0 {
			return math.NaN()
		}
		a, b := rows[i-1], rows[i]
		if !a.Time.IsZero() && !b.Time.IsZero() {
			return b.Time.Sub(a.Time).Seconds()
		}
		return b.Elapsed - a.Elapsed
	}
	var gaps []float64
	for i := 1; i < len(rows); i++ {
		if g := gap(i); g > 0 {
			gaps = append(gaps, g)
		}
	}
	w.interval = stats.Median(gaps)

	found := false
	for _, p := range run.Phases {
		switch p.Name {
		case results.PhaseWarmup:
			if p.End.After(p.Start) {
				w.hasWarmup, w.warmup = true, p.End.Sub(p.Start).Seconds()
			}
		case results.PhaseMeasure:
			w.start, w.end, found = p.Start, p.End, true
		}
	}
	if !found {
		var warmStart time.Time
		for _, e := range events {
			if e.Kind != results.EventPhase {
				continue
			}
			switch e.Phase {
			case results.PhaseWarmup:
				warmStart = e.Time
			case results.PhaseMeasure:
				w.start, found = e.Time, true
			}
		}
		if found && !w.hasWarmup && !warmStart.IsZero() && w.start.After(warmStart) {
			w.hasWarmup, w.warmup = true, w.start.Sub(warmStart).Seconds()
		}
	}

	first, warmRows := -1, 0
	for i, r := range rows {
		switch r.Phase {
		case results.PhaseMeasure:
			if first < 0 {
				first = i
			}
			w.all = append(w.all, r)
			g := gap(i)
			if math.IsNaN(g) || !(w.interval > 0) || g >= w.interval/2 {
				w.rows = append(w.rows, r)
			}
		case results.PhaseWarmup:
			warmRows++
		}
	}
	if !w.hasWarmup && warmRows > 0 && w.interval > 0 {
		w.hasWarmup, w.warmup = true, float64(warmRows)*w.interval
	}
	if !found && first >= 0 {
		if first > 0 {
			w.start = rows[first-1].Time
		} else if w.interval > 0 {
			w.start = rows[first].Time.Add(-time.Duration(w.interval * float64(time.Second)))
		}
	}
	if w.end.IsZero() {
		switch {
		case len(w.all) > 0:
			w.end = w.all[len(w.all)-1].Time
		default:
			w.end = run.EndedAt
		}
	}
	w.known = !w.start.IsZero() && w.end.After(w.start)
	if run.Summary != nil && run.Summary.Duration > 0 {
		w.seconds = run.Summary.Duration
	} else if w.known {
		w.seconds = w.end.Sub(w.start).Seconds()
	}
	return w
}

// inWindow reports whether the instant t is in the measured window (start,
// end] (results.Window.Holds); every time is when the window is unknown.
func (w *window) inWindow(t time.Time) bool {
	if !w.known {
		return true
	}
	return w.span().Holds(t, 0)
}

// span is the measured window as results' Window.
func (w *window) span() results.Window { return results.Window{From: w.start, To: w.end} }

// rowLength is the length of a row of the run's CSV files: the median
// interval of the timeline (the collectors sample on the same interval), 0
// when unknown (a row then counts by its end).
func (w *window) rowLength() time.Duration {
	if !(w.interval > 0) {
		return 0
	}
	return time.Duration(w.interval * float64(time.Second))
}

// setting is a server setting as SHOW prints it: from the collectors'
// server information, else the run's target.
func (in *input) setting(name string) (string, bool) {
	if s := in.run.Server; s != nil {
		if v, ok := s.Settings[name]; ok && v != "" {
			return v, true
		}
	}
	v, ok := in.run.Target.Settings[name]
	return v, ok && v != ""
}

func (in *input) collected(kind string) bool {
	return slices.Contains(in.run.Collectors, kind)
}

// readClientCPU is the mean of os.csv's client_cpu column (results.ReadOS)
// over the rows of length interval that fall in w (results.Window.Holds);
// ok is false without the file, the column or a value (an empty cell: not
// measured in that interval). A damaged file is an error.
func readClientCPU(dir string, w results.Window, interval time.Duration) (cpu float64, ok bool, err error) {
	rows, err := results.ReadOS(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var sum float64
	n := 0
	for _, r := range rows {
		v := r.ClientCPU
		if !w.Holds(r.Time, interval) || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			continue
		}
		sum += v
		n++
	}
	if n == 0 {
		return 0, false, nil
	}
	return sum / float64(n), true, nil
}
