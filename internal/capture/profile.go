package capture

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ProfileFile is the captured profile in a workload directory.
const ProfileFile = "profile.json"

// ProfileSchema names profile.json's format.
const ProfileSchema = "pgtrial-capture/1"

// Profile is what capture saw in pg_stat_statements: the statements of
// the database, top-level, by calls (profile.json).
type Profile struct {
	Schema     string      `json:"schema"`
	CapturedAt time.Time   `json:"captured_at"`
	Server     string      `json:"server_version"`
	Database   string      `json:"database"`
	Extension  string      `json:"pg_stat_statements_version"`
	Calls      int64       `json:"calls"` // of the statements listed
	Statements []Statement `json:"statements"`
	// Waits is the source's wait profile, sampled from pg_stat_activity
	// during the capture (waits.go); nil when not sampled.
	Waits *WaitProfile `json:"waits,omitempty"`
}

// Statement is one captured statement (all its pg_stat_statements entries
// of the database's roles, top-level, summed by queryid).
type Statement struct {
	ID      string `json:"id"` // Q1, Q2, … by calls
	QueryID int64  `json:"queryid"`
	Query   string `json:"query"` // normalised text, redacted
	// Script is the script's file name in the directory, "" when the
	// statement is not replayed (Skipped says why).
	Script  string `json:"script,omitempty"`
	Skipped string `json:"skipped,omitempty"`
	Weight  int    `json:"weight,omitempty"` // the script's -f …@Weight

	Calls int64 `json:"calls"`
	// Share = calls / the profile's calls; ScriptShare = Weight / the
	// weights' sum: the mix the scripts make.
	Share         float64 `json:"share"`
	ScriptShare   float64 `json:"script_share,omitempty"`
	RowsPerCall   float64 `json:"rows_per_call"`
	BlocksPerCall float64 `json:"shared_blocks_per_call"` // shared_blks_hit + shared_blks_read
	MeanMs        float64 `json:"mean_ms"`                // total_exec_time / calls
	// Parameters says where each parameter is drawn from.
	Parameters []string `json:"parameters,omitempty"`
	// Approximations lists the parameters drawn by the documented default
	// (uniform over [-R, R]) because their distribution cannot be known.
	Approximations []string `json:"approximations,omitempty"`

	cut bool // the text read was cut at maxQueryChars (not in profile.json)
}

// WriteProfile writes p as dir/profile.json.
func WriteProfile(dir string, p *Profile) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, ProfileFile)
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write the profile: %w", err)
	}
	return nil
}

// LoadProfile reads dir/profile.json.
func LoadProfile(dir string) (*Profile, error) {
	path := filepath.Join(dir, ProfileFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the captured profile: %w (is %s a directory written by pgtrial capture?)", err, dir)
	}
	var p Profile
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Schema != ProfileSchema {
		return nil, fmt.Errorf("%s: schema %q, want %q", path, p.Schema, ProfileSchema)
	}
	return &p, nil
}
