package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/serverctl"
)

// A variant in effect: applied before its runs (useVariant), undone after
// them or on any way out (restore), with restore.json written before the
// first change (restore.go) and a restart, once begun, carried through
// (steadyRestarter).

// restore undoes the variant in effect (teardown SQL, settings back), with
// its own time limit (restoreCtx), whatever state ctx is in. When Undo fails,
// or Apply failed after it wrote restore.json, the originals recorded there
// are written back (serverctl.Restore); restore.json goes once the server is
// back, else it stays and a warning says to run --restore.
func (r *runner) restore() {
	if r.applied == nil && r.pending == nil {
		r.current = -1
		return
	}
	ctx, cancel := r.restoreCtx()
	defer cancel()
	name := "?"
	if r.current >= 0 {
		name = r.spec.Variants[r.current].Name
	} else if r.pending != nil {
		name = r.pending.Variant
	}
	warn := func(msg string) {
		r.out("pgtrial: warning: %s", msg)
		if r.rec != nil {
			r.rec.Warnings = append(r.rec.Warnings, msg)
		}
	}
	back := r.applied == nil // nothing applied: Apply put the settings back itself (checked below)
	if r.applied != nil {
		if err := r.applied.Undo(ctx); err != nil {
			warn(fmt.Sprintf("undo variant %s: %v; check the server's settings (SELECT name, setting FROM pg_file_settings)", name, err))
		} else {
			back = true
		}
	}
	if p := r.pending; p != nil {
		if !back || r.applied == nil {
			// Write the originals back (again: the same values are harmless);
			// the teardown ran in Undo, or runs here only for an interrupted Apply.
			teardown := p.Teardown
			if r.applied != nil {
				teardown = nil
			}
			if len(p.Settings) > 0 || p.Marker || len(teardown) > 0 {
				res, err := serverctl.Restore(ctx, r.env.ConnString, r.env.Restarter, originals(p), teardown, p.Marker)
				for _, e := range restoreWarnings(res) {
					warn(fmt.Sprintf("variant %s: %s", name, e))
				}
				if err != nil {
					warn(fmt.Sprintf("variant %s: the server still holds its changes (%v); run `pgtrial experiment --restore %s`", name, err, p.Dir))
				}
				back = err == nil
			} else {
				back = true
			}
		}
		if back {
			if err := results.RemoveRestore(r.env.Dir); err != nil {
				warn(fmt.Sprintf("remove %s: %v", RestoreFile, err))
			}
			r.pending = nil
		}
	}
	r.applied, r.current = nil, -1
}

// restoreWarnings are a Restore's start of a stopped server, teardown
// failures and settings pending a restart.
func restoreWarnings(res *serverctl.Restored) []string {
	if res == nil {
		return nil
	}
	var out []string
	if res.Started {
		out = append(out, "the server was down (a restart cut short); it was started again")
	}
	out = append(out, res.TeardownErrors...)
	if len(res.NeedsRestart) > 0 {
		out = append(out, fmt.Sprintf("%s need a server restart to be back", strings.Join(res.NeedsRestart, ", ")))
	}
	return out
}

// restoreCtx bounds a restore: restoreTimeout, or urgentRestoreTimeout from
// the moment Env.Urgent is closed (already, or while restoring).
func (r *runner) restoreCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
	return urgentBound(ctx, cancel, r.env.Urgent)
}

// urgentBound cancels ctx (through its cancel) urgentRestoreTimeout after
// urgent is closed (already, or later); nil urgent: no bound. The returned
// cancel releases the watch and cancels ctx.
func urgentBound(ctx context.Context, cancel context.CancelFunc, urgent <-chan struct{}) (context.Context, context.CancelFunc) {
	if urgent == nil {
		return ctx, cancel
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-urgent:
		case <-done:
			return
		}
		t := time.NewTimer(urgentRestoreTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() { once.Do(func() { close(done); cancel() }) }
}

// useVariant makes variant vi the one in effect: the previous one undone,
// this one applied (nothing to do for a variant without changes).
func (r *runner) useVariant(ctx context.Context, vi int) error {
	if r.current == vi {
		return nil
	}
	r.restore()
	v := r.spec.Variants[vi]
	ch := serverctl.Change{Setup: v.Setup, Teardown: v.Teardown}
	for _, st := range v.Settings {
		ch.Settings = append(ch.Settings, serverctl.Setting{Name: st.Name, Value: st.Value})
	}
	r.current = vi
	if len(ch.Settings) == 0 && len(ch.Setup) == 0 && len(ch.Teardown) == 0 {
		return nil
	}
	what := "applying"
	for _, st := range v.Settings {
		if r.context[strings.ToLower(st.Name)] == "postmaster" {
			what = "applying (with a restart)"
		}
	}
	r.out("pgtrial: variant %s: %s its settings and setup", v.Name, what)
	// Before the first ALTER SYSTEM (and before the setup SQL): what the
	// server had, in restore.json, and the marker beside the settings.
	if len(ch.Settings) > 0 && r.foreign == "" {
		abs, err := filepath.Abs(r.env.Dir)
		if err != nil {
			return err
		}
		ch.Marker = abs
	}
	ch.BeforeChange = func(orig []serverctl.Original) error {
		st, err := r.newRestoreState(v, orig, ch.Marker != "")
		if err == nil {
			err = results.WriteRestore(r.env.Dir, st)
		}
		if err != nil {
			return fmt.Errorf("record the server's settings before changing them: %w", err)
		}
		r.pending = st
		return nil
	}
	var restarter serverctl.Restarter
	if rv := reflect.ValueOf(r.env.Restarter); rv.IsValid() && !(rv.Kind() == reflect.Pointer && rv.IsNil()) {
		restarter = steadyRestarter{r.env.Restarter, r.env.Urgent}
	}
	a, err := serverctl.Apply(ctx, r.env.ConnString, restarter, ch)
	if err != nil {
		if r.pending != nil {
			// Apply put back what it changed; restore checks it from
			// restore.json, and tears down a setup cut short by ctx (a
			// setup that failed by itself is not torn down: serverctl.Apply).
			if ctx.Err() == nil {
				r.pending.Teardown = nil
			}
			r.restore()
		}
		r.current = -1
		return fmt.Errorf("variant %s (%s:%d): %w", v.Name, r.spec.File, v.Pos.Line, err)
	}
	r.applied = a
	for _, n := range a.Notes {
		r.out("pgtrial: warning: variant %s: %s", v.Name, n)
		r.rec.Warnings = append(r.rec.Warnings, fmt.Sprintf("variant %s: %s", v.Name, n))
	}
	vr := &r.rec.Variants[vi]
	vr.Effective, vr.Restart = a.Effective, vr.Restart || a.Restarted
	return nil
}

// steadyRestarter is the Restarter Apply gets, and the variant's Undo after
// it: a restart, once begun, is not cut short by the first signal, nor at
// once by the second (a server stopped and not started again would keep the
// variant's settings in its files and serve nobody, and Undo's restart is
// the one that puts them back): after Urgent it has urgentRestoreTimeout, as
// a restore has, besides the Restarter's own timeouts. Cut short, it leaves
// the server stopped; restore starts it again (serverctl.Restore).
type steadyRestarter struct {
	r      serverctl.Restarter
	urgent <-chan struct{}
}

func (s steadyRestarter) Restart(ctx context.Context) error {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	rctx, cancel = urgentBound(rctx, cancel, s.urgent)
	defer cancel()
	return s.r.Restart(rctx)
}
