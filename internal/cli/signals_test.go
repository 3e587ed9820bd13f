package cli

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
)

// signalProbe records what a signalWatch did. The tests run in a synctest
// bubble: synctest.Wait returns once the watcher has handled what was sent
// (it is blocked again, or gone), so no test waits on a clock.
type signalProbe struct {
	lines    []string
	released int
	exits    []int
}

func (p *signalProbe) watch(loud bool) signalWatch {
	w := signalWatch{
		stopping: "the results so far are written",
		release:  func() { p.released++ },
		exit:     func(code int) { p.exits = append(p.exits, code) },
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
// second exits with status 2.
func TestSignalsLoud(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p signalProbe
		sigCh := make(chan os.Signal, 2)
		ctx, sigs, stop := p.watch(true).watch(context.Background(), sigCh)
		defer stop()
		sigCh <- os.Interrupt
		synctest.Wait()
		if r, _ := sigs.get(); ctx.Err() == nil || r != "SIGINT" || len(p.exits) != 0 {
			t.Errorf("after SIGINT: ctx %v, reason %q, exits %v", ctx.Err(), r, p.exits)
		}
		sigCh <- syscall.SIGTERM
		synctest.Wait()
		if len(p.exits) != 1 || p.exits[0] != exitRunFail {
			t.Errorf("second signal: exits %v, want [%d]", p.exits, exitRunFail)
		}
		want := []string{
			"pgtrial: SIGINT: stopping; the results so far are written (send it again to exit at once)",
			"pgtrial: second signal (SIGTERM): exiting at once; what was written so far stays",
		}
		if strings.Join(p.lines, "\n") != strings.Join(want, "\n") || p.released != 0 {
			t.Errorf("lines %q, want %q; released %d times", p.lines, want, p.released)
		}
		if r, _ := sigs.get(); r != "SIGINT" {
			t.Errorf("the second signal changed the reason to %q", r)
		}
	})
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
