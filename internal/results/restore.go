package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// RestoreFile is what an experiment has changed on the server and not yet put
// back: written (0600, atomically) into the experiment directory before the
// first ALTER SYSTEM of a variant and before its setup SQL, removed once the
// variant is undone. When the process dies before that (a crash, kill -9),
// `pgtrial experiment --restore DIR` (experiment.Restore)
// reads it and puts the server back. The connection string in it carries no password (libpq's PGPASSWORD
// or .pgpass gives it again).
const RestoreFile = "restore.json"

// RestoreSchema versions restore.json.
const RestoreSchema = 1

// RestoreState is restore.json.
type RestoreState struct {
	Schema    int           `json:"schema"`
	Note      string        `json:"note"`
	Dir       string        `json:"experiment_dir"` // absolute: the marker's value
	WrittenAt time.Time     `json:"written_at"`
	Target    RestoreTarget `json:"target"`
	Variant   string        `json:"variant"`
	// Settings are the variant's settings as postgresql.auto.conf had them
	// before; Marker says pgtrial.unrestored was written with them.
	Settings []RestoreSetting `json:"settings,omitempty"`
	Marker   bool             `json:"marker,omitempty"`
	Teardown []string         `json:"teardown,omitempty"`
}

// RestoreTarget is the server the experiment changed, as --restore finds it
// again.
type RestoreTarget struct {
	ConnString     string `json:"conn_string"`             // password removed
	LocalCluster   string `json:"local_cluster,omitempty"` // the local cluster's name, when it was the target
	RestartCommand string `json:"restart_command,omitempty"`
}

// RestoreSetting is one setting's postgresql.auto.conf entry before the
// variant changed it.
type RestoreSetting struct {
	Name    string `json:"name"`
	Context string `json:"context"`
	Before  string `json:"before,omitempty"` // the entry's value when present
	Present bool   `json:"present"`          // false: absent before (RESET)
	Known   bool   `json:"known"`            // false: pg_file_settings was unreadable (RESET)
}

// WriteRestore writes dir/restore.json atomically (as run.json: a
// temporary file, fsynced, renamed over it), mode 0600.
func WriteRestore(dir string, st *RestoreState) error {
	out := *st
	out.Schema = RestoreSchema
	return writeJSONAtomic(dir, RestoreFile, nil, &out)
}

// ReadRestore reads dir's restore.json; a missing file wraps fs.ErrNotExist.
func ReadRestore(dir string) (*RestoreState, error) {
	path := filepath.Join(dir, RestoreFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st RestoreState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.Schema > RestoreSchema {
		return nil, fmt.Errorf("%s: schema %d is newer than this pgtrial's (%d)", path, st.Schema, RestoreSchema)
	}
	return &st, nil
}

// RemoveRestore removes dir's restore.json (nothing left to put back); a
// missing file is not an error.
func RemoveRestore(dir string) error {
	err := os.Remove(filepath.Join(dir, RestoreFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
