package trial

import (
	"fmt"
	"sync"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// Recorder is the interval clock of a measured run (DESIGN.md §5, §6): it
// takes the clients' records every interval (metrics.Set.Tick), writes each
// interval to the run directory with its phase, accumulates the measured
// phase, and writes the run's events (phase changes, the first failure of
// each class, interruption, abort). It knows nothing of command-line flags:
// `pgtrial run` and `pgtrial pgbench --run-dir` both drive it.
//
// Timing. Ticks are aligned to the bench start (all connections made):
// bench + k·interval, k = 1, 2, … With a warm-up that is not a multiple of
// the interval, one extra tick falls exactly on bench + warmup, so that no
// interval spans both phases. An interval is phase "warmup" when its tick was
// scheduled at or before the warm-up's end, i.e. it lies wholly in the
// warm-up; every other interval is "measure", and only those are summed into
// the measured phase. A tick that fires late does not cause a burst of short
// intervals: grid points already passed are skipped, and the interval simply
// runs from the previous tick to now (its real length is used for rates).
//
// Use: NewRecorder, then Start from engine.Config.OnStart, then Stop with
// the engine's end time once engine.Run has returned.
type Recorder struct {
	cfg RecorderConfig

	// Set by Start, read by Stop and Phases after the ticker has stopped.
	started  bool
	start    time.Time // engine start (before connecting)
	bench    time.Time // bench start (all clients connected)
	boundary time.Time // bench + warm-up: end of the warm-up

	// Owned by the ticker goroutine until it has stopped, then by Stop.
	last           time.Time // end of the previous interval
	measure        *metrics.Interval
	measureStarted bool
	warmupEnd      time.Time // when the last warm-up interval ended
	ended          time.Time // end of the run (Stop)
	all            metrics.Stats
	seen           [metrics.NumOutcomes]bool
	slow           *slowWriter // slow.csv; nil without a Dir or metrics.Layout.Slowest

	stopCh chan struct{}
	done   chan struct{}

	mu        sync.Mutex // guards the fields below (NoteError runs on client goroutines)
	lastErr   string
	lastErrAt time.Time
	writeErr  error // the first failed write to the run directory
	stopped   bool
}

// RecorderConfig is what a Recorder needs.
type RecorderConfig struct {
	Set         *metrics.Set
	Dir         *results.Dir  // nil: tick and accumulate without writing
	ScriptNames []string      // for latency.hlog tags and events
	Interval    time.Duration // tick period (> 0)
	Warmup      time.Duration // excluded from the measured phase; 0 for none
	// End is when the measured window ends, from the bench start (warm-up
	// + duration), when the engine cuts the run there (engine.CutAtEnd):
	// no interval is ticked after it, so the last one, Stop's, ends at the
	// window's end and holds what the cut recorded. 0: the ticks go on
	// until Stop.
	End time.Duration
	// OnInterval, if set, is called after each interval has been written,
	// from the recorder's goroutine (or from Stop for the last one): the live
	// status line.
	OnInterval func(t *Tick)
	// OnPhase, if set, is called when a phase starts (the first one at the
	// bench start, from Start; the measured phase after a warm-up from the
	// recorder's goroutine, at the tick that ends the warm-up) with the
	// phase's start. It must not block.
	OnPhase func(phase string, at time.Time)
	// OnWriteError, if set, is called once, with the first error writing the
	// run directory (the run goes on; Stop returns the error too).
	OnWriteError func(err error)
}

// Tick is one interval as the status line sees it.
type Tick struct {
	Phase    string            // results.PhaseWarmup or results.PhaseMeasure
	Elapsed  time.Duration     // bench start → end of the interval
	Interval *metrics.Interval // this interval; valid only during the callback (it is recycled)
	Run      *metrics.Stats    // everything so far, both phases
	Final    bool              // the last interval (from Stop)
}

func NewRecorder(cfg RecorderConfig) *Recorder {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Warmup < 0 {
		cfg.Warmup = 0
	}
	return &Recorder{
		cfg:     cfg,
		measure: metrics.NewInterval(cfg.Set.Layout()),
		stopCh:  make(chan struct{}),
		done:    make(chan struct{}),
	}
}

// Start starts the ticker. start is the engine's start, bench the bench
// start (engine.Config.OnStart's arguments). It must be called at most once,
// before Stop.
func (r *Recorder) Start(start, bench time.Time) {
	r.started = true
	r.start, r.bench, r.last = start, bench, bench
	r.boundary = bench.Add(r.cfg.Warmup)
	first := results.PhaseMeasure
	if r.cfg.Warmup > 0 {
		first = results.PhaseWarmup
	} else {
		r.measureStarted = true
	}
	r.event(results.Event{Time: bench, Kind: results.EventPhase, Phase: first,
		Message: phaseMessage(first, r.cfg.Warmup)})
	r.openSlow()
	if r.cfg.OnPhase != nil {
		r.cfg.OnPhase(first, bench)
	}
	go r.loop()
}

func phaseMessage(phase string, warmup time.Duration) string {
	if phase == results.PhaseWarmup {
		return fmt.Sprintf("warm-up started (%v, excluded from the summary)", warmup)
	}
	return "measured phase started"
}

// openSlow creates slow.csv when the set keeps the slowest transactions and
// there is a run directory, once the clock has its zero (the phase event):
// a run that never started has none.
func (r *Recorder) openSlow() {
	if r.cfg.Dir == nil || r.cfg.Set.Layout().Slowest <= 0 {
		return
	}
	zero, ok := r.cfg.Dir.Clock().Zero()
	if !ok {
		zero = r.bench
	}
	w, err := newSlowWriter(r.cfg.Dir.Path(), zero, r.start, r.cfg.ScriptNames)
	if err != nil {
		r.noteWriteError(err)
		return
	}
	r.slow = w
}

// drainsPerInterval: see loop.
const drainsPerInterval = 10

// loop ticks until Stop.
func (r *Recorder) loop() {
	defer close(r.done)
	iv := r.cfg.Interval
	k := int64(1)
	passed := r.cfg.Warmup == 0 // the warm-up boundary has had its tick
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// Between ticks the clients' records are drained into the coming
	// interval ten times an interval, so that the record buffers hold a
	// tenth of an interval and the memory of a run hardly depends on its
	// rate.
	drain := time.NewTicker(max(iv/drainsPerInterval, time.Millisecond))
	defer drain.Stop()
	for {
		next := r.bench.Add(time.Duration(k) * iv)
		boundaryTick := false
		if !passed && r.boundary.Before(next) {
			next, boundaryTick = r.boundary, true
		}
		if r.cfg.End > 0 && !next.Before(r.bench.Add(r.cfg.End)) {
			// The window's end: the last interval is Stop's.
			for {
				select {
				case <-r.stopCh:
					return
				case <-drain.C:
					r.cfg.Set.Drain()
				}
			}
		}
		timer.Reset(time.Until(next))
	wait:
		for {
			select {
			case <-r.stopCh:
				return
			case <-drain.C:
				r.cfg.Set.Drain()
			case <-timer.C:
				break wait
			}
		}
		now := time.Now()
		r.tick(next, now, false)
		if !next.Before(r.boundary) {
			passed = true
		}
		if !boundaryTick {
			k++
		}
		// Skip grid points that have already passed (a late timer).
		for !r.bench.Add(time.Duration(k) * iv).After(now) {
			k++
		}
	}
}

// tick takes the interval (r.last, now]; sched is when it was due.
func (r *Recorder) tick(sched, now time.Time, final bool) {
	if now.Before(r.last) {
		now = r.last
	}
	iv := r.cfg.Set.Tick(r.last, now)
	r.last = now
	phase := results.PhaseMeasure
	if r.cfg.Warmup > 0 && !sched.After(r.boundary) {
		phase = results.PhaseWarmup
	}
	st := &iv.Total.Stats
	empty := st.Total() == 0 && st.Dropped() == 0 && st.Unstarted() == 0 && st.Unfinished() == 0
	if final && empty && iv.Duration() <= 0 {
		return // nothing happened after the last tick
	}
	if r.cfg.Dir != nil {
		if err := r.cfg.Dir.WriteInterval(phase, iv, r.cfg.ScriptNames); err != nil {
			r.noteWriteError(err)
		}
		if r.slow != nil {
			if err := r.slow.write(iv); err != nil {
				r.noteWriteError(err)
			}
		}
	}
	if phase == results.PhaseWarmup {
		r.warmupEnd = now
		if !final && !sched.Before(r.boundary) {
			// The warm-up's last interval: the measured phase starts now,
			// and OnPhase hears of it now (a snapshot of the server's
			// counters, pgtrial's CPU, injections), not one interval later.
			r.startMeasure(now)
		}
	} else {
		if !r.measureStarted {
			r.startMeasure(iv.Start)
		}
		r.measure.Merge(iv)
	}
	r.all.Merge(st)
	r.firstErrors(phase, iv)
	if r.cfg.OnInterval != nil {
		r.cfg.OnInterval(&Tick{Phase: phase, Elapsed: now.Sub(r.bench), Interval: iv, Run: &r.all, Final: final})
	}
	// Everything above copied what it needed: the next tick refills iv.
	r.cfg.Set.Recycle(iv)
}

// startMeasure records the start of the measured phase at t.
func (r *Recorder) startMeasure(t time.Time) {
	if r.measureStarted {
		return
	}
	r.measureStarted = true
	r.event(results.Event{Time: t, Kind: results.EventPhase, Phase: results.PhaseMeasure,
		Message: phaseMessage(results.PhaseMeasure, 0)})
	if r.cfg.OnPhase != nil {
		r.cfg.OnPhase(results.PhaseMeasure, t)
	}
}

// firstErrors writes an event for each failure class seen for the first
// time in iv. The engine reports failures as counts, not messages, so the
// event carries the count and, when the engine logged an error during the
// interval, that last message (as "last_error": the most recent error text,
// which is usually, not certainly, of this class).
func (r *Recorder) firstErrors(phase string, iv *metrics.Interval) {
	st := &iv.Total.Stats
	for o := metrics.Outcome(0); o < metrics.NumOutcomes; o++ {
		if !o.Failed() || r.seen[o] || st.Outcome[o] == 0 {
			continue
		}
		r.seen[o] = true
		data := map[string]any{
			"class":          o.String(),
			"count":          st.Outcome[o],
			"interval_start": iv.Start,
		}
		r.mu.Lock()
		if r.lastErr != "" && !r.lastErrAt.Before(iv.Start.Add(-r.cfg.Interval)) {
			data["last_error"] = r.lastErr
		}
		r.mu.Unlock()
		r.event(results.Event{Time: iv.End, Kind: results.EventError, Phase: phase,
			Message: fmt.Sprintf("first %s failure (%d in the interval)", o, st.Outcome[o]), Data: data})
	}
}

// NoteError remembers the engine's latest error message for the first-error
// events. Safe from any goroutine.
func (r *Recorder) NoteError(msg string) {
	r.mu.Lock()
	r.lastErr, r.lastErrAt = msg, time.Now()
	r.mu.Unlock()
}

// Interrupted writes the interruption event (reason: "SIGINT", "SIGTERM", …).
func (r *Recorder) Interrupted(at time.Time, reason string) {
	r.event(results.Event{Time: at, Kind: results.EventInterrupt, Message: "run interrupted by " + reason,
		Data: map[string]any{"reason": reason}})
}

// Aborted writes the abort event: n of clients aborted.
func (r *Recorder) Aborted(at time.Time, n, clients int) {
	r.event(results.Event{Time: at, Kind: results.EventAbort,
		Message: fmt.Sprintf("%d of %d clients aborted", n, clients),
		Data:    map[string]any{"aborted_clients": n, "clients": clients}})
}

func (r *Recorder) event(e results.Event) {
	if r.cfg.Dir == nil {
		return
	}
	if err := r.cfg.Dir.Event(e); err != nil {
		r.noteWriteError(err)
	}
}

func (r *Recorder) noteWriteError(err error) {
	r.mu.Lock()
	first := r.writeErr == nil
	if first {
		r.writeErr = err
	}
	r.mu.Unlock()
	if first && r.cfg.OnWriteError != nil {
		r.cfg.OnWriteError(err)
	}
}

// Stop stops the ticker, takes the last interval up to end (the engine's
// Result.End) and returns the measured phase (empty, with zero times, when
// nothing was measured) and the first error writing the run directory.
// Without Start it returns an empty Interval. Stop may be called once.
func (r *Recorder) Stop(end time.Time) (*metrics.Interval, error) {
	r.mu.Lock()
	already := r.stopped
	r.stopped = true
	r.mu.Unlock()
	if already {
		panic("Recorder.Stop called twice")
	}
	if r.started {
		close(r.stopCh)
		<-r.done
		r.tick(end, end, true)
		r.ended = r.last
		if r.slow != nil {
			if err := r.slow.close(); err != nil {
				r.noteWriteError(err)
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.measure, r.writeErr
}

// Started reports whether Start was called (the engine got to its first
// transaction).
func (r *Recorder) Started() bool { return r.started }

// BenchStart is the bench start given to Start.
func (r *Recorder) BenchStart() time.Time { return r.bench }

// Phases returns the phases for run.json, after Stop: the warm-up (when
// there was one) from the bench start to the end of its last interval, and
// the measured phase from the start of its first interval to the end of the
// run. A run that ended during the warm-up has no measured phase.
func (r *Recorder) Phases() []results.Phase {
	if !r.started {
		return nil
	}
	var ph []results.Phase
	if r.cfg.Warmup > 0 {
		end := r.warmupEnd
		if end.IsZero() {
			end = r.bench
		}
		ph = append(ph, results.Phase{Name: results.PhaseWarmup, Start: r.bench, End: end})
	}
	if !r.measure.Start.IsZero() {
		ph = append(ph, results.Phase{Name: results.PhaseMeasure, Start: r.measure.Start, End: r.measure.End})
	} else if r.cfg.Warmup == 0 {
		ph = append(ph, results.Phase{Name: results.PhaseMeasure, Start: r.bench, End: r.ended})
	}
	return ph
}

// Measured reports whether any interval of the measured phase was recorded.
func (r *Recorder) Measured() bool { return !r.measure.Start.IsZero() }

// Measure is the measured phase accumulated so far; after Stop, all of it.
// Read it only after Stop (the ticker owns it before).
func (r *Recorder) Measure() *metrics.Interval { return r.measure }
