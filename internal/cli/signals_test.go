package cli

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// signalProbe records what a signalWatch did. The tests run in a synctest
// bubble: synctest.Wait returns once the watcher has handled what was sent
// (it is blocked again, or gone), so no test waits on a clock.
type signalProbe struct {
	lines    []string
	released int
	exits    []int
	timer    chan time.Time // the grace after the second signal: fired by the test
	graces   []time.Duration
}

func (p *signalProbe) watch(loud bool) signalWatch {
	p.timer = make(chan time.Time, 1)
	w := signalWatch{
		plan:    signalPlan{stopping: "the results so far are written", hurrying: "run.json is finalized", grace: 7 * time.Second},
		release: func() { p.released++ },
		exit:    func(code int) { p.exits = append(p.exits, code) },
		after: func(d time.Duration) <-chan time.Time {
			p.graces = append(p.graces, d)
			return p.timer
		},
	}
	if loud {
		w.say = func(line string) { p.lines = append(p.lines, line) }
	}
	return w
}

// Quiet (pgbench, init): the first signal cancels and says nothing, and the
// signals get their default action back, so a second one ends the process
// as the signal does; nothing exits on its own.
func TestSignalsQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p signalProbe
		sigCh := make(chan os.Signal, 2)
		ctx, sigs, stop := p.watch(false).watch(context.Background(), sigCh)
		defer stop()
		synctest.Wait()
		if r, _ := sigs.get(); r != "" || ctx.Err() != nil {
			t.Fatalf("before any signal: reason %q, ctx %v", r, ctx.Err())
		}
		sigCh <- syscall.SIGTERM
		synctest.Wait()
		reason, at := sigs.get()
		if ctx.Err() == nil || reason != "SIGTERM" || at.IsZero() {
			t.Errorf("after SIGTERM: ctx %v, reason %q at %v", ctx.Err(), reason, at)
		}
		if len(p.lines) != 0 || p.released != 1 || len(p.exits) != 0 {
			t.Errorf("lines %q, released %d times, exits %v", p.lines, p.released, p.exits)
		}
	})
}

// Loud (run, experiment, capacity, demo): each signal is announced; the
// second closes Urgent and exits after the grace if the command has not
// finished by then; SIGHUP counts as the others.
func TestSignalsLoud(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p signalProbe
		sigCh := make(chan os.Signal, 3)
		ctx, sigs, stop := p.watch(true).watch(context.Background(), sigCh)
		defer stop()
		sigCh <- syscall.SIGHUP
		synctest.Wait()
		if r, _ := sigs.get(); ctx.Err() == nil || r != "SIGHUP" || len(p.exits) != 0 || isClosed(sigs.Urgent()) {
			t.Errorf("after SIGHUP: ctx %v, reason %q, exits %v, urgent %v", ctx.Err(), r, p.exits, isClosed(sigs.Urgent()))
		}
		sigCh <- syscall.SIGTERM
		synctest.Wait()
		if !isClosed(sigs.Urgent()) || len(p.exits) != 0 {
			t.Errorf("second signal: urgent %v, exits %v; want urgent and no exit yet", isClosed(sigs.Urgent()), p.exits)
		}
		if len(p.graces) != 1 || p.graces[0] != 7*time.Second {
			t.Errorf("grace timers %v, want [7s]", p.graces)
		}
		p.timer <- time.Now()
		synctest.Wait()
		if len(p.exits) != 1 || p.exits[0] != exitRunFail {
			t.Errorf("after the grace: exits %v, want [%d]", p.exits, exitRunFail)
		}
		want := []string{
			"pgtrial: SIGHUP: stopping; the results so far are written (send it again to finish at once)",
			"pgtrial: second signal (SIGTERM): finishing at once; run.json is finalized; exiting within 7 s (a third signal exits now)",
			"pgtrial: still not finished 7 s after the second signal: exiting; what was written so far stays",
		}
		if strings.Join(p.lines, "\n") != strings.Join(want, "\n") || p.released != 0 {
			t.Errorf("lines %q, want %q; released %d times", p.lines, want, p.released)
		}
		if r, _ := sigs.get(); r != "SIGHUP" {
			t.Errorf("the second signal changed the reason to %q", r)
		}
	})
}

// A third signal exits at once, without waiting for the grace; a command
// that finishes within the grace is not cut short.
func TestSignalsThird(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p signalProbe
		sigCh := make(chan os.Signal, 3)
		_, _, stop := p.watch(true).watch(context.Background(), sigCh)
		defer stop()
		sigCh <- os.Interrupt
		sigCh <- os.Interrupt
		sigCh <- os.Interrupt
		synctest.Wait()
		if len(p.exits) != 1 || !strings.HasPrefix(p.lines[len(p.lines)-1], "pgtrial: third signal (SIGINT): exiting now") {
			t.Errorf("third signal: exits %v, lines %q", p.exits, p.lines)
		}

		var q signalProbe
		sigCh = make(chan os.Signal, 3)
		_, sigs, stop2 := q.watch(true).watch(context.Background(), sigCh)
		sigCh <- os.Interrupt
		sigCh <- os.Interrupt
		synctest.Wait()
		if !isClosed(sigs.Urgent()) {
			t.Fatal("second signal did not close Urgent")
		}
		stop2() // the command finished within the grace
		synctest.Wait()
		q.timer <- time.Now()
		synctest.Wait()
		if len(q.exits) != 0 {
			t.Errorf("a command that finished within the grace was exited: %v", q.exits)
		}
	})
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// stop without a signal cancels the context and releases the signals; a
// second stop is harmless; a signal after stop does nothing.
func TestSignalsStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p signalProbe
		sigCh := make(chan os.Signal, 2)
		ctx, sigs, stop := p.watch(true).watch(context.Background(), sigCh)
		synctest.Wait() // the watcher waits
		stop()
		stop()
		synctest.Wait() // the watcher is gone (in real use, signal.Stop sends nothing more)
		sigCh <- os.Interrupt
		synctest.Wait()
		if r, _ := sigs.get(); ctx.Err() == nil || r != "" {
			t.Errorf("after stop: ctx %v, reason %q", ctx.Err(), r)
		}
		if len(p.lines) != 0 || p.released != 1 || len(p.exits) != 0 {
			t.Errorf("lines %q, released %d times, exits %v", p.lines, p.released, p.exits)
		}
	})
}
