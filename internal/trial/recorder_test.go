package trial

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// The recorder's clock is Go's timers and time.Now, and its data an
// in-memory metrics.Set: in a synctest bubble time moves only when every
// goroutine waits, so the ticks fall exactly on their grid and each
// interval's content is known to the transaction.

var committedTx = metrics.Tx{Outcome: metrics.Committed, Tries: 1, Response: 1000, Service: 1000}

// tickSeen is what OnInterval saw (the Interval itself is recycled after
// the callback).
type tickSeen struct {
	phase      string
	start, end time.Duration // from the bench start
	committed  int64
	final      bool
}

// checkTicks fails the test unless got are the ticks of want, in order.
func checkTicks(t *testing.T, got, want []tickSeen) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("ticks %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("tick %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

type phaseSeen struct {
	phase  string
	at     time.Duration // the phase's start, from the bench start
	called time.Duration // when OnPhase was called, from the bench start
}

// recorderProbe builds a recorder that notes its ticks and phases.
type recorderProbe struct {
	bench  time.Time
	ticks  []tickSeen
	phases []phaseSeen
}

func (p *recorderProbe) config(set *metrics.Set, dir *results.Dir, interval, warmup time.Duration) RecorderConfig {
	return RecorderConfig{
		Set: set, Dir: dir, ScriptNames: []string{"s"}, Interval: interval, Warmup: warmup,
		OnInterval: func(t *Tick) {
			p.ticks = append(p.ticks, tickSeen{t.Phase, t.Interval.Start.Sub(p.bench), t.Interval.End.Sub(p.bench),
				t.Interval.Total.Stats.Count, t.Final})
		},
		OnPhase: func(phase string, at time.Time) {
			p.phases = append(p.phases, phaseSeen{phase, at.Sub(p.bench), time.Since(p.bench)})
		},
	}
}

// recordEvery records one committed transaction every step from first on,
// n in all, then sleeps until until (from the bench start).
func recordEvery(r *metrics.Recorder, bench time.Time, first, step time.Duration, n int, until time.Duration) {
	time.Sleep(time.Until(bench.Add(first)))
	for i := 0; i < n; i++ {
		r.Record(&committedTx)
		if i < n-1 {
			time.Sleep(step)
		}
	}
	time.Sleep(time.Until(bench.Add(until)))
}

const ms = time.Millisecond

// newDirRecorder is a recorder of one client's set into a new run directory,
// with 1 s intervals and the given warm-up; call it in a synctest bubble.
func newDirRecorder(t *testing.T, warmup time.Duration) (*results.Dir, *metrics.Set, *recorderProbe, *Recorder) {
	t.Helper()
	dir, err := results.Create(t.TempDir(), stubRun())
	if err != nil {
		t.Fatal(err)
	}
	set := metrics.NewSet(1, metrics.Layout{Scripts: 1})
	p := &recorderProbe{bench: time.Now()}
	return dir, set, p, NewRecorder(p.config(set, dir, time.Second, warmup))
}

// A warm-up of 1.5 s with 1 s intervals: the ticks are at 1 s, at the
// warm-up's end (1.5 s), then on the grid (2 s, 3 s) and at Stop (3.25 s).
// No interval spans both phases; the measured phase is exactly the
// intervals after 1.5 s; OnPhase hears of it at 1.5 s, not one interval
// later; the timeline and run.json's phases agree.
func TestRecorderWarmupBoundary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, set, p, rec := newDirRecorder(t, 1500*ms)
		rec.Start(p.bench.Add(-100*ms), p.bench)
		// A transaction every 100 ms at 50, 150, …, 3150 ms: never on a tick.
		recordEvery(set.Recorder(0), p.bench, 50*ms, 100*ms, 32, 3250*ms)
		measure, err := rec.Stop(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := dir.Finish(stubRun()); err != nil {
			t.Fatal(err)
		}

		want := []tickSeen{
			{results.PhaseWarmup, 0, 1000 * ms, 10, false},
			{results.PhaseWarmup, 1000 * ms, 1500 * ms, 5, false},
			{results.PhaseMeasure, 1500 * ms, 2000 * ms, 5, false},
			{results.PhaseMeasure, 2000 * ms, 3000 * ms, 10, false},
			{results.PhaseMeasure, 3000 * ms, 3250 * ms, 2, true},
		}
		checkTicks(t, p.ticks, want)
		wantPhases := []phaseSeen{{results.PhaseWarmup, 0, 0}, {results.PhaseMeasure, 1500 * ms, 1500 * ms}}
		if len(p.phases) != 2 || p.phases[0] != wantPhases[0] || p.phases[1] != wantPhases[1] {
			t.Errorf("OnPhase calls %+v, want %+v", p.phases, wantPhases)
		}
		if !rec.Measured() || measure.Total.Stats.Count != 17 ||
			measure.Start.Sub(p.bench) != 1500*ms || measure.End.Sub(p.bench) != 3250*ms {
			t.Errorf("measured %v: %d committed over [%v, %v], want 17 over [1.5s, 3.25s]", rec.Measured(),
				measure.Total.Stats.Count, measure.Start.Sub(p.bench), measure.End.Sub(p.bench))
		}
		ph := rec.Phases()
		if len(ph) != 2 || ph[0].Name != results.PhaseWarmup || !ph[0].Start.Equal(p.bench) || ph[0].End.Sub(p.bench) != 1500*ms ||
			ph[1].Name != results.PhaseMeasure || ph[1].Start.Sub(p.bench) != 1500*ms || ph[1].End.Sub(p.bench) != 3250*ms {
			t.Errorf("phases %+v", ph)
		}

		rows, err := results.ReadTimeline(dir.Path())
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(want) {
			t.Fatalf("%d timeline rows, want %d", len(rows), len(want))
		}
		for i, r := range rows {
			if r.Phase != want[i].phase || r.Committed != want[i].committed || !r.Time.Equal(p.bench.Add(want[i].end)) {
				t.Errorf("timeline row %d: %s, %d committed, ends %v; want %s, %d, %v", i, r.Phase, r.Committed,
					r.Time.Sub(p.bench), want[i].phase, want[i].committed, want[i].end)
			}
		}
		events, err := results.ReadEvents(dir.Path())
		if err != nil {
			t.Fatal(err)
		}
		var phaseEvents []string
		for _, e := range events {
			if e.Kind == results.EventPhase {
				phaseEvents = append(phaseEvents, e.Phase+"@"+e.Time.Sub(p.bench).String())
			}
		}
		if len(phaseEvents) != 2 || phaseEvents[0] != "warmup@0s" || phaseEvents[1] != "measure@1.5s" {
			t.Errorf("phase events %v", phaseEvents)
		}
	})
}

// Without a warm-up the measured phase starts at the bench start, and a
// tick that comes late (the callback held the recorder for 2.5 s) makes
// one long interval up to now instead of a burst of short ones: the grid
// points passed (2 s, 3 s) are skipped and the next tick is at 4 s.
func TestRecorderLateTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set := metrics.NewSet(1, metrics.Layout{Scripts: 1})
		p := &recorderProbe{bench: time.Now()}
		cfg := p.config(set, nil, time.Second, 0)
		note := cfg.OnInterval
		cfg.OnInterval = func(tk *Tick) {
			note(tk)
			if len(p.ticks) == 1 {
				time.Sleep(2500 * ms) // a stalled status line
			}
		}
		rec := NewRecorder(cfg)
		rec.Start(p.bench, p.bench)
		recordEvery(set.Recorder(0), p.bench, 50*ms, 100*ms, 45, 4500*ms) // 50 … 4450 ms
		measure, err := rec.Stop(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		want := []tickSeen{
			{results.PhaseMeasure, 0, 1000 * ms, 10, false},
			{results.PhaseMeasure, 1000 * ms, 3500 * ms, 25, false},
			{results.PhaseMeasure, 3500 * ms, 4000 * ms, 5, false},
			{results.PhaseMeasure, 4000 * ms, 4500 * ms, 5, true},
		}
		checkTicks(t, p.ticks, want)
		if len(p.phases) != 1 || p.phases[0] != (phaseSeen{results.PhaseMeasure, 0, 0}) {
			t.Errorf("OnPhase calls %+v", p.phases)
		}
		if measure.Total.Stats.Count != 45 || measure.Start != p.bench {
			t.Errorf("measured %d from %v, want 45 from the bench start", measure.Total.Stats.Count, measure.Start.Sub(p.bench))
		}
	})
}

// A run that ends during the warm-up measured nothing: no measured phase,
// the warm-up up to the end, and the measured interval is empty.
func TestRecorderEndsInWarmup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set := metrics.NewSet(1, metrics.Layout{Scripts: 1})
		p := &recorderProbe{bench: time.Now()}
		rec := NewRecorder(p.config(set, nil, time.Second, 2*time.Second))
		rec.Start(p.bench, p.bench)
		recordEvery(set.Recorder(0), p.bench, 50*ms, 100*ms, 12, 1200*ms)
		measure, err := rec.Stop(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if rec.Measured() || measure.Total.Stats.Count != 0 || !measure.Start.IsZero() {
			t.Errorf("measured %v: %d committed from %v", rec.Measured(), measure.Total.Stats.Count, measure.Start)
		}
		ph := rec.Phases()
		if len(ph) != 1 || ph[0].Name != results.PhaseWarmup || ph[0].End.Sub(p.bench) != 1200*ms {
			t.Errorf("phases %+v, want the warm-up to 1.2 s only", ph)
		}
		for _, tk := range p.ticks {
			if tk.phase != results.PhaseWarmup {
				t.Errorf("tick %+v in a run that ended during the warm-up", tk)
			}
		}
		if len(p.phases) != 1 {
			t.Errorf("OnPhase calls %+v, want the warm-up's only", p.phases)
		}
	})
}

// The first failure of a class in a phase is an event of that phase with
// the class and the last error message; a later one of the same class is
// not. The final tick counts the failure.
func TestRecorderFirstError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, set, p, rec := newDirRecorder(t, 500*ms)
		rec.Start(p.bench, p.bench)
		r := set.Recorder(0)
		recordEvery(r, p.bench, 50*ms, 100*ms, 10, 1200*ms)
		failed := metrics.Tx{Outcome: metrics.FailedConnection, Tries: 1}
		rec.NoteError("connection refused")
		r.Record(&failed)
		time.Sleep(1500 * ms) // a tick at 2 s takes the failure
		r.Record(&failed)
		if _, err := rec.Stop(time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := dir.Finish(stubRun()); err != nil {
			t.Fatal(err)
		}
		last := p.ticks[len(p.ticks)-1]
		if !last.final {
			t.Errorf("last tick %+v is not final", last)
		}
		events, err := results.ReadEvents(dir.Path())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range events {
			got = append(got, e.Kind+":"+e.Phase)
			if e.Kind == results.EventError && (e.Data["class"] != "connection" || e.Data["last_error"] != "connection refused") {
				t.Errorf("error event %+v", e)
			}
		}
		if strings.Join(got, " ") != "phase:warmup phase:measure error:measure" {
			t.Errorf("events %v, want the phases and one error event in the measured phase", got)
		}
	})
}

// With the window cut at its end (RecorderConfig.End, 2.5 s): the recorder
// ticks on the grid up to the end (1 s, 2 s) and no more while the engine
// ends its clients (until 4 s here); Stop's last interval runs to the
// window's end and holds what the cut recorded then (unstarted, unfinished,
// which alone do not make an interval empty), and the measured phase is
// the window, 2.5 s (it ran to the engine's return).
func TestRecorderStopsAtWindowEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set := metrics.NewSet(1, metrics.Layout{Scripts: 1})
		p := &recorderProbe{bench: time.Now()}
		cfg := p.config(set, nil, time.Second, 0)
		cfg.End = 2500 * ms
		rec := NewRecorder(cfg)
		rec.Start(p.bench, p.bench)
		recordEvery(set.Recorder(0), p.bench, 50*ms, 100*ms, 24, 4000*ms) // to 2.35 s, then the grace
		set.Recorder(0).Record(&metrics.Tx{Outcome: metrics.Unstarted, Response: 300_000, Lag: 300_000})
		set.Recorder(0).Record(&metrics.Tx{Outcome: metrics.Unfinished, Tries: 1, Response: 200_000, Service: 200_000})
		measure, err := rec.Stop(p.bench.Add(2500 * ms))
		if err != nil {
			t.Fatal(err)
		}
		want := []tickSeen{
			{results.PhaseMeasure, 0, 1000 * ms, 10, false},
			{results.PhaseMeasure, 1000 * ms, 2000 * ms, 10, false},
			{results.PhaseMeasure, 2000 * ms, 2500 * ms, 4, true},
		}
		checkTicks(t, p.ticks, want)
		st := &measure.Total.Stats
		if d := measure.End.Sub(measure.Start); d != 2500*ms || st.Count != 24 || st.Unstarted() != 1 || st.Unfinished() != 1 {
			t.Errorf("measured %v: committed %d, unstarted %d, unfinished %d; want 2.5 s, 24, 1, 1", d, st.Count, st.Unstarted(), st.Unfinished())
		}
	})
}

// stubRun is the least run.json its schema accepts (the load model's kind
// is always written), for the tests of the directory's other files.
func stubRun() *results.Run {
	return &results.Run{StartedAt: time.Now(), Model: results.Model{Kind: results.ModelClosed, Clients: 1}}
}
