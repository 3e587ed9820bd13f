package experiment

import (
	"context"
	"encoding/json"
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

// RestoreFile is what an experiment has changed on the server and not yet put
// back: written (0600, atomically) into the experiment directory before the
// first ALTER SYSTEM of a variant and before its setup SQL, removed once the
// variant is undone. When the process dies before that (a crash, kill -9),
// `pgtrial experiment --restore DIR` (Restore) reads it and puts the server
// back. The connection string in it carries no password (libpq's PGPASSWORD
// or .pgpass gives it again).
const RestoreFile = "restore.json"

// restoreSchema versions restore.json.
const restoreSchema = 1

// restoreState is restore.json.
type restoreState struct {
	Schema    int           `json:"schema"`
	Note      string        `json:"note"`
	Dir       string        `json:"experiment_dir"` // absolute: the marker's value
	WrittenAt time.Time     `json:"written_at"`
	Target    restoreTarget `json:"target"`
	Variant   string        `json:"variant"`
	// Settings are the variant's settings as postgresql.auto.conf had them
	// before; Marker says pgtrial.unrestored was written with them.
	Settings []restoreSetting `json:"settings,omitempty"`
	Marker   bool             `json:"marker,omitempty"`
	Teardown []string         `json:"teardown,omitempty"`
}

type restoreTarget struct {
	ConnString     string `json:"conn_string"`             // password removed
	LocalCluster   string `json:"local_cluster,omitempty"` // the local cluster's name, when it was the target
	RestartCommand string `json:"restart_command,omitempty"`
}

type restoreSetting struct {
	Name    string `json:"name"`
	Context string `json:"context"`
	Before  string `json:"before,omitempty"` // the entry's value when present
	Present bool   `json:"present"`          // false: absent before (RESET)
	Known   bool   `json:"known"`            // false: pg_file_settings was unreadable (RESET)
}

func (s *restoreState) originals() []serverctl.Original {
	out := make([]serverctl.Original, len(s.Settings))
	for i, x := range s.Settings {
		out[i] = serverctl.Original{Name: x.Name, Context: x.Context, Value: x.Before, Present: x.Present, Known: x.Known}
	}
	return out
}

// newRestoreState is restore.json for variant v about to change the server.
func (r *runner) newRestoreState(v Variant, orig []serverctl.Original, marker bool) (*restoreState, error) {
	dir, err := filepath.Abs(r.env.Dir)
	if err != nil {
		return nil, err
	}
	st := &restoreState{
		Schema: restoreSchema, WrittenAt: time.Now(), Dir: dir, Variant: v.Name,
		Note:     "the server's state before this experiment changed it; `pgtrial experiment --restore " + dir + "` puts it back",
		Target:   restoreTarget{ConnString: results.RedactArgs([]string{r.env.ConnString})[0], LocalCluster: r.env.LocalName},
		Marker:   marker,
		Teardown: v.Teardown,
	}
	if cr, ok := r.env.Restarter.(serverctl.CommandRestarter); ok {
		st.Target.RestartCommand = cr.Command
	}
	for _, o := range orig {
		st.Settings = append(st.Settings, restoreSetting{Name: o.Name, Context: o.Context, Before: o.Value, Present: o.Present, Known: o.Known})
	}
	return st, nil
}

// writeRestore writes restore.json into dir atomically (a temporary file in
// the same directory, fsynced, renamed over it; the directory fsynced), mode
// 0600.
func writeRestore(dir string, st *restoreState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, RestoreFile)
	tmp, err := os.CreateTemp(dir, "."+RestoreFile+".tmp-*") // mode 0600
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// readRestore reads dir's restore.json; a missing file wraps fs.ErrNotExist.
func readRestore(dir string) (*restoreState, error) {
	path := filepath.Join(dir, RestoreFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st restoreState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.Schema > restoreSchema {
		return nil, fmt.Errorf("%s: schema %d is newer than this pgtrial's (%d)", path, st.Schema, restoreSchema)
	}
	return &st, nil
}

func removeRestore(dir string) error {
	err := os.Remove(filepath.Join(dir, RestoreFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
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
	st, err := readRestore(dir)
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
	res, err := serverctl.Restore(ctx, env.ConnString, env.Restarter, st.originals(), st.Teardown, st.Marker)
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
	if err := removeRestore(dir); err != nil {
		return lines, fmt.Errorf("the server is restored, but %s could not be removed: %w", RestoreFile, err)
	}
	return lines, nil
}

// restoredLines says what Restore did.
func restoredLines(st *restoreState, res *serverctl.Restored) []string {
	if res == nil {
		return nil
	}
	var lines []string
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
