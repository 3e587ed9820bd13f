package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/pgtrial/pgtrial/internal/report/format"
)

// The one signal handling of every command (run, experiment, capacity, demo,
// init, pgbench). SIGINT, SIGTERM and SIGHUP are handled alike:
//
//  1. the first cancels the command's context: queries in flight are
//     cancelled, what was measured is written and reported, an experiment's
//     settings are restored;
//  2. the second closes Urgent: the command finishes at once what must not be
//     lost (run.json finalized, an experiment's settings restored and its
//     teardown run) without waiting for the server beyond short, bounded
//     timeouts, and the process exits after signalPlan.grace at the latest;
//  3. a third exits at once.

// signalState is the first signal (which one and when, for run.json's
// interrupt reason and the messages) and the second (Urgent).
type signalState struct {
	mu        sync.Mutex
	reason    string
	at        time.Time
	urgent    chan struct{}
	urgentOne sync.Once
}

func newSignalState() *signalState { return &signalState{urgent: make(chan struct{})} }

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

// Urgent is closed by the second signal: whatever waits on the server from
// then on waits only briefly (see the package comment above).
func (s *signalState) Urgent() <-chan struct{} { return s.urgent }

func (s *signalState) hurry() { s.urgentOne.Do(func() { close(s.urgent) }) }

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// handledSignals are the signals every command handles alike.
var handledSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalPlan is what a command says about the signals it receives.
type signalPlan struct {
	stopping string        // what the first signal does ("queries in flight are cancelled, …")
	hurrying string        // what the second does ("run.json is finalized without …")
	grace    time.Duration // after the second signal, exit at the latest this much later; 0: 10 s
}

// notifySignals handles SIGINT, SIGTERM and SIGHUP as the package comment
// says; sigs says which signal came first and when, and Urgent tells of the
// second. The returned stop ends the handling (and cancels ctx).
//
// With out, each signal is announced there and the second and third are
// handled as above. Without out (pgbench's front end, whose stderr is
// pgbench's own text, and init) nothing is printed and, after the first
// signal, the signals get the system's default action again: a second one
// ends the process as the signal does (pgbench's exit status 130 for
// SIGINT).
func notifySignals(ctx context.Context, out *liveOut, plan signalPlan) (context.Context, *signalState, func()) {
	sigCh := make(chan os.Signal, 3)
	signal.Notify(sigCh, handledSignals...)
	var once sync.Once
	w := signalWatch{
		plan:    plan,
		release: func() { once.Do(func() { signal.Stop(sigCh) }) },
		exit:    os.Exit,
		after:   time.After,
	}
	if out != nil {
		w.say = out.println
	}
	return w.watch(ctx, sigCh)
}

// signalWatch is what notifySignals does with the signals it receives.
type signalWatch struct {
	say     func(line string) // announces the signals; nil: quiet (see notifySignals)
	plan    signalPlan
	release func()                                 // stops receiving signals: they get their default action again
	exit    func(code int)                         // ends the process (os.Exit)
	after   func(d time.Duration) <-chan time.Time // time.After
}

// watch handles the signals of sigCh until the returned stop is called
// (once or more).
func (w signalWatch) watch(ctx context.Context, sigCh <-chan os.Signal) (context.Context, *signalState, func()) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithCancel(ctx)
	sigs := newSignalState()
	done := make(chan struct{})
	grace := w.plan.grace
	if grace <= 0 {
		grace = 10 * time.Second
	}
	go func() {
		select {
		case sig := <-sigCh:
			sigs.set(sig, time.Now())
			if w.say == nil {
				w.release() // the next signal: the default action
				cancel()
				return
			}
			w.say(fmt.Sprintf("pgtrial: %s: stopping; %s (send it again to finish at once)", signalName(sig), w.plan.stopping))
			cancel()
		case <-done:
			return
		}
		var sig os.Signal
		select {
		case sig = <-sigCh:
		case <-done:
			return
		}
		hurrying := w.plan.hurrying
		if hurrying == "" {
			hurrying = "what was measured is written"
		}
		w.say(fmt.Sprintf("pgtrial: second signal (%s): finishing at once; %s; exiting within %s (a third signal exits now)", signalName(sig), hurrying, format.Duration(grace)))
		sigs.hurry()
		timeout := w.after(grace)
		select {
		case sig = <-sigCh:
			w.say(fmt.Sprintf("pgtrial: third signal (%s): exiting now; what was written so far stays", signalName(sig)))
			w.exit(exitRunFail)
		case <-timeout:
			w.say(fmt.Sprintf("pgtrial: still not finished %s after the second signal: exiting; what was written so far stays", format.Duration(grace)))
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
