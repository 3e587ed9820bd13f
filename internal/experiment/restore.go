package experiment

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/serverctl"
)

// RestoreFile is restore.json (results.RestoreState): what an experiment has
// changed on the server and not yet put back, for Restore.
const RestoreFile = results.RestoreFile

func originals(s *results.RestoreState) []serverctl.Original {
	out := make([]serverctl.Original, len(s.Settings))
	for i, x := range s.Settings {
		out[i] = serverctl.Original{Name: x.Name, Context: x.Context, Value: x.Before, Present: x.Present, Known: x.Known}
	}
	return out
}

// newRestoreState is restore.json for variant v about to change the server.
func (r *runner) newRestoreState(v Variant, orig []serverctl.Original, marker bool) (*results.RestoreState, error) {
	dir, err := filepath.Abs(r.env.Dir)
	if err != nil {
		return nil, err
	}
	st := &results.RestoreState{
		WrittenAt: time.Now(), Dir: dir, Variant: v.Name,
		Note:     "the server's state before this experiment changed it; `pgtrial experiment --restore " + dir + "` puts it back",
		Target:   results.RestoreTarget{ConnString: results.RedactArgs([]string{r.env.ConnString})[0], LocalCluster: r.env.LocalName},
		Marker:   marker,
		Teardown: v.Teardown,
	}
	if cr, ok := r.env.Restarter.(serverctl.CommandRestarter); ok {
		st.Target.RestartCommand = cr.Command
	}
	for _, o := range orig {
		st.Settings = append(st.Settings, results.RestoreSetting{Name: o.Name, Context: o.Context, Before: o.Value, Present: o.Present, Known: o.Known})
	}
	return st, nil
}

// ErrNothingToRestore is Restore's error when the directory has no
// restore.json: the experiment put the server back itself (or never changed
// it).
var ErrNothingToRestore = errors.New("nothing to restore")

// Restore is `pgtrial experiment --restore DIR`: it puts back what the
// experiment in dir changed and did not undo (dir/restore.json, see
// RestoreFile). It connects to the recorded target (the local cluster by its
// name, started when stopped; else the connection string, the password from
// the environment or .pgpass), runs the variant's teardown SQL, writes back
// each setting's earlier postgresql.auto.conf entry (RESET when it had none)
// and resets pgtrial.unrestored, reloads, and restarts when a setting needs it
// and the target can be restarted (else a line says the user must). It marks
// experiment.json ended and interrupted when it has no end, removes
// restore.json, and returns what it did, a line each. Without restore.json it
// returns ErrNothingToRestore (so a second Restore says so).
func Restore(ctx context.Context, dir string, out func(string)) ([]string, error) {
	st, err := results.ReadRestore(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(dir); serr != nil {
			return nil, fmt.Errorf("--restore %s: %w", dir, serr)
		}
		return nil, fmt.Errorf("%s has no %s: %w (the experiment put the server back, or never changed it)", dir, RestoreFile, ErrNothingToRestore)
	}
	if err != nil {
		return nil, err
	}
	t := Target{URL: st.Target.ConnString, Given: "the experiment's " + RestoreFile, RestartCommand: st.Target.RestartCommand}
	if st.Target.LocalCluster != "" {
		t = Target{Local: st.Target.LocalCluster, Given: "the experiment's " + RestoreFile}
	}
	env, err := ResolveTarget(ctx, t, out)
	if err != nil {
		return nil, fmt.Errorf("the target of %s: %w", filepath.Join(dir, RestoreFile), err)
	}
	res, err := serverctl.Restore(ctx, env.ConnString, env.Restarter, originals(st), st.Teardown, st.Marker)
	lines := restoredLines(st, res)
	if err != nil {
		return lines, fmt.Errorf("put back what variant %s of the experiment in %s changed: %w; %s is kept: fix the cause and run --restore again",
			st.Variant, dir, err, RestoreFile)
	}
	if rec, rerr := LoadRecord(dir); rerr == nil && rec.EndedAt.IsZero() {
		rec.EndedAt, rec.Interrupted = time.Now(), true
		if rec.Error == "" {
			rec.Error = "the experiment ended without putting the server back (a crash or a kill)"
		}
		if rec.Reason == "" {
			rec.Reason = "killed"
		}
		rec.Warnings = append(rec.Warnings, fmt.Sprintf("variant %s's changes were put back by `pgtrial experiment --restore` at %s", st.Variant, rec.EndedAt.Format(time.RFC3339)))
		if werr := rec.write(dir); werr != nil {
			lines = append(lines, "pgtrial: warning: "+werr.Error())
		}
	}
	if err := results.RemoveRestore(dir); err != nil {
		return lines, fmt.Errorf("the server is restored, but %s could not be removed: %w", RestoreFile, err)
	}
	return lines, nil
}

// restoredLines says what Restore did.
func restoredLines(st *results.RestoreState, res *serverctl.Restored) []string {
	if res == nil {
		return nil
	}
	var lines []string
	if res.Started {
		lines = append(lines, "pgtrial: the server was down (a restart cut short); started it")
	}
	for _, s := range res.Settings {
		lines = append(lines, "pgtrial: restored "+s)
	}
	if res.MarkerReset {
		lines = append(lines, "pgtrial: reset "+serverctl.MarkerSetting)
	}
	if res.Reloaded {
		lines = append(lines, "pgtrial: reloaded the configuration (pg_reload_conf)")
	}
	if res.Restarted {
		lines = append(lines, "pgtrial: restarted the server (a setting needs a restart to be back)")
	}
	if len(res.NeedsRestart) > 0 {
		lines = append(lines, fmt.Sprintf("pgtrial: %s %s back in postgresql.auto.conf but the server runs the variant's value until it is restarted: restart it (pg_ctl restart, or your service manager)",
			strings.Join(res.NeedsRestart, ", "), isAre(len(res.NeedsRestart))))
	}
	if len(st.Teardown) > 0 {
		lines = append(lines, fmt.Sprintf("pgtrial: teardown SQL of variant %s: %d of %d statements ran", st.Variant, res.Teardown, len(st.Teardown)))
		for _, e := range res.TeardownErrors {
			lines = append(lines, "pgtrial: warning: "+e)
		}
	}
	return lines
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
