package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// The one signal handling of every command (run, experiment, capacity, demo,
// init, pgbench): the first SIGINT or SIGTERM cancels the command's context
// (queries in flight are cancelled, what was measured is written and
// reported); the second ends the process at once.

// signalState is the first signal: which one and when (for run.json's
// interrupt reason and the messages).
type signalState struct {
	mu     sync.Mutex
	reason string
	at     time.Time
}

func (s *signalState) get() (string, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason, s.at
}

func (s *signalState) set(sig os.Signal, at time.Time) {
	s.mu.Lock()
	s.reason, s.at = signalName(sig), at
	s.mu.Unlock()
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// notifySignals cancels ctx on the first SIGINT or SIGTERM; sigs says which
// signal and when. The returned stop ends the handling (and cancels ctx).
//
// With out, each signal is announced there: the first with what it does
// (stopping), the second with "exiting at once", and the second exits with
// exitRunFail. Without out (pgbench's front end, whose stderr is pgbench's
// own text, and init) nothing is printed and, after the first signal, the
// signals get the system's default action again: a second one ends the
// process as the signal does (pgbench's exit status 130 for SIGINT).
func notifySignals(ctx context.Context, out *liveOut, stopping string) (context.Context, *signalState, func()) {
	sigCh := make(chan os.Signal, 2)
	signal.Notify(sigCh, os.Interrupt, syscall.SIGTERM)
	var once sync.Once
	w := signalWatch{
		stopping: stopping,
		release:  func() { once.Do(func() { signal.Stop(sigCh) }) },
		exit:     os.Exit,
	}
	if out != nil {
		w.say = out.println
	}
	return w.watch(ctx, sigCh)
}

// signalWatch is what notifySignals does with the signals it receives.
type signalWatch struct {
	say      func(line string) // announces the signals; nil: quiet (see notifySignals)
	stopping string            // what the first signal does, for say
	release  func()            // stops receiving signals: they get their default action again
	exit     func(code int)    // ends the process on a second signal (os.Exit)
}

// watch handles the signals of sigCh until the returned stop is called
// (once or more).
func (w signalWatch) watch(ctx context.Context, sigCh <-chan os.Signal) (context.Context, *signalState, func()) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithCancel(ctx)
	sigs := &signalState{}
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigCh:
			sigs.set(sig, time.Now())
			if w.say == nil {
				w.release() // the next signal: the default action
				cancel()
				return
			}
			w.say(fmt.Sprintf("pgtrial: %s: stopping; %s (send it again to exit at once)", signalName(sig), w.stopping))
			cancel()
		case <-done:
			return
		}
		select {
		case sig := <-sigCh:
			w.say(fmt.Sprintf("pgtrial: second signal (%s): exiting at once; what was written so far stays", signalName(sig)))
			w.exit(exitRunFail)
		case <-done:
		}
	}()
	var stopOnce sync.Once
	return ctx, sigs, func() {
		stopOnce.Do(func() {
			w.release()
			close(done)
			cancel()
		})
	}
}
