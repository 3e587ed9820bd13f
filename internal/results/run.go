// Package results is the run directory (DESIGN.md §6), the only contract
// between measuring and analysing:
//
//	run.json       the Run: schema "pgtrial.run/v1", tool, command line
//	               (passwords removed), target, workload, model, phases,
//	               summary, checks, interruption; written atomically at the
//	               start (Create) and again at the end (Finish)
//	latency.hlog   HdrHistogram interval log (metrics.LogWriter): per
//	               interval, tags SCRIPT/response, SCRIPT/service,
//	               SCRIPT/lag and total/…; values in µs
//	timeline.csv   one row per interval (TimelineRow)
//	events.jsonl   one Event per line
//	slow.csv       the slowest transactions of each interval (slow.go)
//	activity.csv   the client backends' pg_stat_activity samples by pid
//	               (activity.go; internal/collect writes it)
//	plans.json     the plans of the scripts' statements (plans.go)
//	waits.csv, statements.csv, server.csv, os.csv
//	               the collectors' rows (waits.go, statements.go,
//	               server.go, os.go; internal/collect writes them)
//	experiment.json an experiment directory's summary (experiment.go)
//
// Each format has its writer and its reader side by side here, and every
// other package reads the files only through them. One clock (Clock,
// Run.BenchStart) stamps every CSV row; one rule (Window.Holds) says which
// rows fall in a window.
//
// The files are appended to and flushed to the operating system after every
// interval and event, so a run that is interrupted or crashes keeps
// everything up to its last interval; they are fsynced when the run ends
// (not every interval: an fsync per second would add I/O to the machine
// under test). Readers tolerate a last line cut short by a crash.
package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/schema"
)

// Schema is the version of the run directory format this package writes and
// reads. Fields may be added within a version; renaming or removing one, or
// changing its meaning, needs a new version.
const Schema = "pgtrial.run/v1"

// File names inside a run directory.
const (
	RunFile      = "run.json"
	LatencyFile  = "latency.hlog"
	TimelineFile = "timeline.csv"
	EventsFile   = "events.jsonl"
)

// Run is run.json.
type Run struct {
	Schema      string    `json:"schema"`
	Tool        Tool      `json:"tool"`
	CommandLine []string  `json:"command_line,omitempty"` // passwords removed (RedactArgs)
	StartedAt   time.Time `json:"started_at"`
	// BenchStart is the run's clock zero (Clock): the bench start, every
	// client connected. elapsed_s of timeline.csv and of the collectors'
	// files counts from it. Absent in runs written before it was recorded,
	// whose elapsed_s counts from StartedAt.
	BenchStart      time.Time `json:"bench_start,omitzero"`
	EndedAt         time.Time `json:"ended_at,omitzero"`
	Target          Target    `json:"target"`
	Workload        Workload  `json:"workload"`
	Model           Model     `json:"model"`
	Phases          []Phase   `json:"phases,omitempty"`
	Summary         *Summary  `json:"summary,omitempty"` // of the measured phase
	Interrupted     bool      `json:"interrupted,omitempty"`
	InterruptReason string    `json:"interrupt_reason,omitempty"`
	Aborted         bool      `json:"aborted,omitempty"`
	Warnings        []string  `json:"warnings,omitempty"`
	Checks          []Check   `json:"checks,omitempty"`

	// Written by the collectors (internal/collect); absent with --no-collect.
	Collectors []string    `json:"collectors,omitempty"` // which ran: waits, statements, server, os
	Server     *ServerInfo `json:"server,omitempty"`     // at the start of the run
	Host       *Host       `json:"host,omitempty"`
	Evidence   *Evidence   `json:"evidence,omitempty"` // over the measured window

	// Findings are what the evidence says about why (internal/explain),
	// computed at the end of the run from its directory; nil in runs
	// written before them.
	Findings *Findings `json:"findings,omitempty"`

	// Tallies are the counts of the scripts' \tally commands (tally.go).
	Tallies []Tally `json:"tallies,omitempty"`
	// TPCC is a TPC-C-like run's figures and consistency checks (tpcc.go).
	TPCC *TPCC `json:"tpcc,omitempty"`
	// WindowValues are trial.Config.WindowQueries' values (windowvalues.go).
	WindowValues []WindowValue `json:"window_values,omitempty"`
	// Scenarios are the run's concurrent scenarios, each with its own load
	// and summary (scenarios.go); empty for a run of one load.
	Scenarios []Scenario `json:"scenarios,omitempty"`
	// Logs is, in a run directory that `pgtrial analyze` made from pgbench's
	// logs, what they were and what they tell (logsource.go); nil otherwise.
	Logs *LogSource `json:"logs,omitempty"`
	// Segment says the run is one segment of a schedule several generators
	// shared (--segment i/n); Model is then the segment's own load. nil: the
	// run was the whole load.
	Segment *Segment `json:"segment,omitempty"`
	// Merge says the run was merged by `pgtrial merge` from the run
	// directories of the segments of one load (merge.go); Model is then the
	// whole load's. nil: the run was measured as it is.
	Merge *Merge `json:"merge,omitempty"`
}

// Segment is which part of the whole load a segment's run was: segment
// Index (from 0) of Count, of a load of Clients on Threads at Rate tx/s (0:
// closed), from its client FirstClient and thread FirstThread.
type Segment struct {
	Index       int     `json:"index"`
	Count       int     `json:"count"`
	Clients     int     `json:"clients"`
	Threads     int     `json:"threads"`
	Rate        float64 `json:"rate,omitempty"`
	FirstClient int     `json:"first_client"`
	FirstThread int     `json:"first_thread"`
	// StartAt is the bench start every segment was given (--start-at).
	StartAt time.Time `json:"start_at,omitzero"`
	// Clock is the server's clock against this generator's, read at the
	// run's start and at its end (ClockOffset); a reading that failed is
	// left out, and said in Warnings.
	Clock []ClockOffset `json:"clock,omitempty"`
	// Host is the machine this generator ran on, for a segment other than
	// 0: only segment 0 collects the server's evidence (and Run.Host is
	// the server's machine); the others record their own machine's OS
	// metrics (os.csv) and describe it here.
	Host *Host `json:"host,omitempty"`
}

// Collects says whether the segment watches the server: segment 0 does,
// the others only their own machine.
func (s *Segment) Collects() bool { return s == nil || s.Index == 0 }

// ClockOffset is one reading of the server's clock against a generator's:
// at At (this host's clock, the round trip's midpoint) the server's
// clock_timestamp() was OffsetMs ahead (negative: behind), within ±RTTMs/2.
type ClockOffset struct {
	At       time.Time `json:"at"`
	OffsetMs float64   `json:"offset_ms"`
	RTTMs    float64   `json:"rtt_ms"`
}

// Tool is the program that measured.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Go      string `json:"go,omitempty"` // runtime.Version()
}

// Target is the server under test.
type Target struct {
	Host          string            `json:"host,omitempty"`
	Port          int               `json:"port,omitempty"`
	Database      string            `json:"database,omitempty"`
	User          string            `json:"user,omitempty"`
	ServerVersion string            `json:"server_version,omitempty"`
	Settings      map[string]string `json:"settings,omitempty"` // name → current_setting()
}

// Workload is what was run.
type Workload struct {
	Name    string         `json:"name,omitempty"`
	Scripts []ScriptWeight `json:"scripts,omitempty"`
	Scale   int            `json:"scale,omitempty"`
	// Probe are a built-in mix's probe variables as the clients got them
	// (name → value: the probe's column, or the -D that overrode it), e.g.
	// YCSB's records, fields, maxkey, uniform, latest, scrambled; absent
	// without a probe and in runs written before it was recorded.
	Probe map[string]string `json:"probe,omitempty"`
}

// ScriptWeight is one script of the workload and its weight in the mix.
type ScriptWeight struct {
	Name   string `json:"name"`
	Weight int    `json:"weight"`
	// SHA256 is the hex SHA-256 of the script's commands' texts, each
	// followed by a newline (comments and blank lines left out), so that
	// `pgtrial merge` can tell segments that ran different scripts under one
	// name; absent in runs written before it was recorded.
	SHA256 string `json:"sha256,omitempty"`
}

// Load models.
const (
	ModelClosed = "closed" // each client starts its next transaction when the last ends
	ModelOpen   = "open"   // transactions arrive on a schedule at Rate
)

// Model is how load was generated.
type Model struct {
	Kind           string  `json:"kind"` // ModelClosed or ModelOpen
	Clients        int     `json:"clients"`
	Threads        int     `json:"threads,omitempty"`
	Rate           float64 `json:"rate,omitempty"`     // target transactions/s; 0 in the closed model
	Arrival        string  `json:"arrival,omitempty"`  // "poisson" or "uniform" (open model)
	Overload       string  `json:"overload,omitempty"` // "queue" or "drop" (open model)
	LatencyLimitMs float64 `json:"latency_limit_ms,omitempty"`
	DurationS      float64 `json:"duration_s,omitempty"`
	Transactions   int64   `json:"transactions,omitempty"` // per client, when the run is bounded by count
}

// Phase names.
const (
	PhaseWarmup  = "warmup"
	PhaseMeasure = "measure"
)

// Phase is a span of the run: a warm-up (discarded) or the measured window.
type Phase struct {
	Name  string    `json:"name"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end,omitzero"`
}

// Check is one item of the honesty checklist (DESIGN.md §8).
type Check struct {
	Name    string `json:"name"`
	Status  string `json:"status"`          // "pass", "warn" or "fail"
	Value   any    `json:"value,omitempty"` // the measured value the status is based on (a number or a string)
	Message string `json:"message,omitempty"`
}

// Load reads run.json of the run directory dir. A file of another schema
// (a newer pgtrial, or not a run directory) is an error that says so.
func Load(dir string) (*Run, error) {
	path := filepath.Join(dir, RunFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load run: %w", err)
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("load run %s: %w", path, err)
	}
	switch {
	case head.Schema == nil:
		return nil, fmt.Errorf("load run %s: no \"schema\" field; not a pgtrial run directory", path)
	case *head.Schema != Schema:
		return nil, fmt.Errorf("load run %s: unknown schema %q; this pgtrial reads %q (was it written by a newer pgtrial?)", path, *head.Schema, Schema)
	}
	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, fmt.Errorf("load run %s: %w", path, err)
	}
	return &run, nil
}

// writeRun writes run to dir/run.json atomically (writeJSONAtomic). The
// schema is set and the command line redacted on the way out; run itself is
// not modified. In tests the file is validated against schema/run.schema.json
// with schemas (checkSchema).
func writeRun(dir string, run *Run, schemas *schema.Validator) error {
	out := *run
	out.Schema = Schema
	out.CommandLine = RedactArgs(run.CommandLine)
	return writeJSONAtomic(dir, RunFile, checkSchema(schemas, schema.Run), &out)
}

// checkSchema is writeJSONAtomic's check of a file against kind's
// published schema (schema.Kinds) in tests, so that every run.json and
// experiment.json the tests write is validated; nil, no check, outside
// tests. schemas keeps the compiled schema between writes (nil: compiled
// for this one).
func checkSchema(schemas *schema.Validator, kind string) func([]byte) error {
	if !testing.Testing() {
		return nil
	}
	if schemas == nil {
		schemas = new(schema.Validator)
	}
	return func(data []byte) error { return schemas.Validate(kind, data) }
}

// writeJSONAtomic writes v as indented JSON with a final newline to
// dir/name atomically: a temporary file in the same directory, fsynced,
// renamed over dir/name, and the directory fsynced, so a reader sees the old
// or the new file, never a part. check, when not nil, vets the encoded file
// first (checkSchema).
func writeJSONAtomic(dir, name string, check func([]byte) error, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	path := filepath.Join(dir, name)
	if check != nil {
		if err := check(buf.Bytes()); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = tmp.Write(buf.Bytes())
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
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable. Best effort: some file systems do
// not support fsync on a directory, and the rename itself has succeeded.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// ErrClosed is returned by writes to a finished or closed Dir.
var ErrClosed = errors.New("run directory is closed")
