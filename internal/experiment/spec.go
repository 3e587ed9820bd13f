// Package experiment reads and validates experiment files, the input of
// `pgtrial experiment FILE.yaml`: the target, the workload, the load, the
// protocol (warm-up, measured window, repeats, interleaving), the variants
// to compare, injected stalls, SLOs and capacity search. It does not run
// anything: Load and Parse check the whole file before anything touches the
// database, and report every problem at once, each with the file, line,
// column and the key's path, sorted by line:
//
//	mix.yaml:14:5: variants[1].settings.shared_buffers: ...
//
// # The file
//
// A complete file, every key shown (the defaults in the comments):
//
//	name: sync-commit            # default: the file's name without .yaml
//	description: synchronous_commit off vs on for tpcb-like at 500 tx/s
//
//	target:                      # default: the libpq environment (PGHOST, …) if set, else the local cluster "default"
//	  local: true                # true: the local cluster "default"; or its name
//	  # url: postgres://bench@db1:5432/bench   # a server instead of the local cluster
//	  # restart_command: ssh db1 sudo systemctl restart postgresql@17-main
//	  # node_exporter: db1:9100  # OS metrics of a remote server (--node-exporter)
//
//	workload:                    # default: builtin tpcb-like
//	  builtin: tpcb-like         # tpcb-like, simple-update, select-only (-b; a prefix works)
//	  scale: 75                  # pgbench scale to load (pgtrial init -s); unset: read from pgbench_branches
//	  # scripts:                 # instead of builtin (-f): files relative to this file
//	  #   - {file: mix.sql, weight: 9}     # weight: default 1
//	  #   - {file: report.sql, weight: 1}
//	  variables: {delta: 5000}   # -D NAME=VALUE
//	  protocol: prepared         # query protocol (--protocol/-M): simple, extended, prepared
//	  max_tries: 1               # --max-tries (0: unlimited)
//	  continue_on_error: false   # --continue-on-error
//
//	load:
//	  clients: 16                # -c, default 4
//	  threads: 2                 # -j, default 0: min(clients, CPUs)
//	  rate: 500                  # open model, tx/s (--rate); or closed: true; or ramp: below
//	  # closed: true             # closed model (--closed)
//	  # ramp: {by: rate, from: 100, to: 800, steps: 4, spacing: geometric, step_duration: 2m}
//	  arrival: poisson           # open model: poisson or uniform (--arrival)
//	  overload: queue            # open model: queue or drop (--overload)
//	  latency_limit: 100ms       # -L
//
//	protocol:
//	  warmup: 2m                 # default 30s, before every run, excluded
//	  window: 2m                 # measured window; default max(2 × checkpoint_timeout, 60s)
//	  repeats: 4                 # runs per variant, default 3
//	  interleave: true           # default true: A B A B …; false: A A … B B …
//
//	variants:                    # default: one variant "baseline" with nothing to change
//	  - name: sync-on
//	    settings: {synchronous_commit: "on"}
//	  - name: sync-off
//	    settings: {synchronous_commit: "off"}   # ALTER SYSTEM SET, then reload or restart
//	    setup: ["CREATE INDEX ON pgbench_history (mtime)"]   # SQL before the variant's runs
//	    teardown: ["DROP INDEX pgbench_history_mtime_idx"]  # SQL after them
//
//	injections:                  # times from the start of the measured window
//	  - {at: 20s, kind: lock, table: pgbench_branches, duration: 5s}  # ACCESS EXCLUSIVE
//	  - {at: 60s, kind: checkpoint}
//	  - {at: 90s, kind: vacuum, table: pgbench_accounts}  # no table: the whole database
//
//	slo:                         # open model only; at_rate: the load's rate, or within a ramp
//	  - {p99: 100ms, at_rate: 500}   # p50, p90, p95, p99 or p99.9; at_rate default: the load's rate(s)
//
//	seed: 42                     # unsigned integer (--random-seed); default: chosen and recorded
//	interval: 1s                 # --interval
//	collect: [waits, statements, server, os]   # --collect; false: none; default: all
//	# collect: {kinds: [waits], wait_interval: 100ms, wait_source: auto}
//
// Capacity search replaces the load model (no rate, closed or ramp): the
// closed-model ceiling (ceiling_repeats runs with load.clients), open-model
// steps at fractions of it, then bisection to the highest rate that meets
// the SLO with no growing lag, until the bracket is within precision:
//
//	search:
//	  slo: {p99: 50ms}
//	  fractions: [0.3, 0.6, 0.9]   # default
//	  ceiling_repeats: 3           # default
//	  precision: 0.05              # default: stop when (high − low)/low ≤ 5 %
//	  max_steps: 8                 # default: at most 8 bisection steps
//
// Top-level keys starting with "x-" are ignored: a place for YAML anchors
// (&name, *name, and merge keys "<<: *name" work everywhere).
//
// # Rules
//
// Durations use Go syntax (90s, 2m, 1m30s, 250ms); a bare number is an
// error, since it has no unit. Counts are positive integers. Setting values
// are kept as written (shared_buffers: 1GB is "1GB"; quote "on" and "off"
// only for readability, both forms give the same text). Errors name
// unknown keys with the closest known one, and a key that belongs to
// another section with its place.
//
// The measured window's default needs the server (checkpoint_timeout), so
// Protocol.Window is 0 when the file leaves it out: the runner calls
// Protocol.WindowFor and then Spec.CheckWindow to check the injections
// against it. A shorter window than the default is allowed; the checklist
// warns about it.
//
// Settings that need a restart: which ones do depends on the server
// (pg_settings.context = 'postmaster'), so Parse only knows the usual ones
// (NeedsRestart) and rejects them on a remote target without a
// restart_command; the runner checks pg_settings.context for the others.
package experiment

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// Defaults of keys the file leaves out.
const (
	DefaultWarmup         = 30 * time.Second
	DefaultRepeats        = 3
	DefaultClients        = 4
	DefaultInterval       = time.Second
	DefaultWaitInterval   = 100 * time.Millisecond
	DefaultCeilingRepeats = 3
	DefaultPrecision      = 0.05
	DefaultMaxSteps       = 8
	DefaultVariant        = "baseline"
	DefaultBuiltin        = "tpcb-like"

	// MinWindow is the shortest default window: 60 s, however short
	// checkpoint_timeout is.
	MinWindow = 60 * time.Second
)

// Limits that keep bad input from asking for absurd work.
const (
	maxFileSize  = 1 << 20 // bytes of an experiment file
	maxNodes     = 200_000 // YAML nodes visited, aliases and merges expanded
	maxMergeNest = 32      // merge keys within merged mappings
	maxRate      = 1e9     // tx/s, as `pgtrial run --rate`
	maxRampSteps = 1000
	maxScripts   = 128 // as `pgtrial run`
	// bytes of a script file (a file in /proc may say 0 and be endless)
	maxScriptSize = 16 << 20
	maxShown      = 100 // problems listed by ValidationError.Error
)

// Spec is a validated experiment file.
type Spec struct {
	File        string // the path given to Load or the name given to Parse
	Name        string // the experiment's name: letters, digits, '_', '.', '-'
	Description string
	Target      Target
	Workload    Workload
	Load        LoadSpec
	Protocol    Protocol
	Variants    []Variant // at least one
	Injections  []Injection
	SLOs        []SLO
	Search      *Search       // nil: no capacity search
	Seed        *uint64       // nil: the runner chooses one and records it
	Interval    time.Duration // recorded intervals
	Collect     Collect
}

// Pos is a place in the experiment file (1-based), for the runner's own
// errors about what the server says (a setting unknown to it, a table that
// does not exist).
type Pos struct {
	Line, Column int
}

// Target is the server the experiment runs against: a connection string, or
// a local cluster ("pgtrial local").
type Target struct {
	URL            string // "" for the local cluster; never printed (it may hold a password)
	Local          string // the local cluster's name when URL is ""
	Given          string // where URL or Local was given ("the file's target.url", "--url"); "": the libpq environment or else Local decides
	RestartCommand string // shell command that restarts a remote server ("" for none)
	NodeExporter   string // host:port or URL of the server's node_exporter ("" for none)
}

// Remote says the target is a server given by URL, not a local cluster.
func (t Target) Remote() bool { return t.URL != "" }

// Workload is what the clients run.
type Workload struct {
	Builtin         string // full name of a built-in script; "" with Scripts
	Scale           int    // pgbench scale to load; 0: use the tables as they are
	Scripts         []Script
	Variables       []Variable // -D, in file order
	Protocol        script.Mode
	MaxTries        int // 0: unlimited
	ContinueOnError bool
}

// Script is one pgbench-language file of the workload.
type Script struct {
	File   string // as written in the experiment file
	Path   string // File relative to the experiment file's directory
	Weight int
	Pos    Pos
}

// Variable is one -D NAME=VALUE.
type Variable struct {
	Name, Value string
}

// LoadSpec is the load section: clients and the load model.
type LoadSpec struct {
	Clients      int     // 0 with a ramp by clients
	Threads      int     // 0: min(clients, CPUs)
	Rate         float64 // tx/s for the open model; 0 otherwise
	Closed       bool
	Ramp         *Ramp // nil unless a ramp
	Arrival      engine.Arrival
	Overload     engine.Overload
	LatencyLimit time.Duration // 0: none
}

// Model names the load model of a spec.
type Model uint8

const (
	ModelOpen   Model = iota // load.rate
	ModelClosed              // load.closed
	ModelRamp                // load.ramp
	ModelSearch              // search: closed ceiling, then open-model steps
)

func (m Model) String() string {
	switch m {
	case ModelClosed:
		return "closed"
	case ModelRamp:
		return "ramp"
	case ModelSearch:
		return "search"
	}
	return "open"
}

// Model is the spec's load model.
func (s *Spec) Model() Model {
	switch {
	case s.Search != nil:
		return ModelSearch
	case s.Load.Ramp != nil:
		return ModelRamp
	case s.Load.Closed:
		return ModelClosed
	}
	return ModelOpen
}

// RampBy is what a ramp steps.
type RampBy uint8

const (
	RampClients RampBy = iota + 1 // closed model with more clients each step
	RampRate                      // open model with a higher rate each step
)

func (b RampBy) String() string {
	switch b {
	case RampClients:
		return "clients"
	case RampRate:
		return "rate"
	}
	return "?"
}

// Spacing is how a ramp's levels are spread between From and To.
type Spacing uint8

const (
	Linear    Spacing = iota // equal differences
	Geometric                // equal ratios
)

func (s Spacing) String() string {
	if s == Geometric {
		return "geometric"
	}
	return "linear"
}

// Ramp steps the load from From to To in Steps levels, each measured for
// StepDuration (pg_expecto's ramps, with a warm-up before the first).
type Ramp struct {
	By           RampBy
	From, To     float64 // clients or tx/s; From < To
	Steps        int     // ≥ 2
	Spacing      Spacing
	StepDuration time.Duration // 0: the protocol's window (its default) per step
}

// Levels are the ramp's Steps levels, From first and To last:
//
//	linear:    level_i = from + i·(to − from)/(steps − 1)
//	geometric: level_i = from · (to/from)^(i/(steps − 1))
//
// for i = 0 … steps−1. Clients are rounded to the nearest integer (Parse
// rejects ramps whose rounded levels repeat).
func (r Ramp) Levels() []float64 {
	if r.Steps < 2 {
		return []float64{r.From}
	}
	out := make([]float64, r.Steps)
	last := float64(r.Steps - 1)
	for i := range out {
		f := float64(i) / last
		if r.Spacing == Geometric && r.From > 0 {
			out[i] = r.From * math.Pow(r.To/r.From, f)
		} else {
			out[i] = r.From + f*(r.To-r.From)
		}
		if r.By == RampClients {
			out[i] = math.Round(out[i])
		}
	}
	// Exact ends despite rounding in Pow.
	out[0], out[len(out)-1] = r.From, r.To
	return out
}

// Protocol is the experiment's protocol: every run warms up, then measures
// one window; each variant runs Repeats times.
type Protocol struct {
	Warmup     time.Duration
	Window     time.Duration // 0: unset, see WindowFor
	Repeats    int
	Interleave bool // A B A B … rather than A A … B B …
}

// DefaultWindow is the measured window when the file gives none:
// max(2 × checkpoint_timeout, 60 s), so that a window holds checkpoints
// (DESIGN §8).
func DefaultWindow(checkpointTimeout time.Duration) time.Duration {
	return max(2*checkpointTimeout, MinWindow)
}

// WindowFor is the measured window: the file's, or DefaultWindow of the
// server's checkpoint_timeout.
func (p Protocol) WindowFor(checkpointTimeout time.Duration) time.Duration {
	if p.Window > 0 {
		return p.Window
	}
	return DefaultWindow(checkpointTimeout)
}

// Measured is the length of one run's measured phase for a window: the
// window, or for a ramp steps × step duration (the window per step when
// the ramp gives none).
func (s *Spec) Measured(window time.Duration) time.Duration {
	if r := s.Load.Ramp; r != nil {
		step := r.StepDuration
		if step == 0 {
			step = window
		}
		return time.Duration(r.Steps) * step
	}
	return window
}

// Variant is one configuration to compare.
type Variant struct {
	Name     string
	Settings []Setting // ALTER SYSTEM SET, in file order
	Setup    []string  // SQL run before the variant's runs
	Teardown []string  // SQL run after them
	Pos      Pos
}

// Setting is one server setting of a variant, its value as written.
type Setting struct {
	Name, Value string
	Pos         Pos
}

// NeedsRestart says whether a setting is one of those known to need a
// server restart (pg_settings.context = 'postmaster' in every supported
// version). It is not the whole list: the runner asks the server.
func NeedsRestart(name string) bool {
	switch strings.ToLower(name) {
	case "shared_buffers", "max_connections", "wal_level", "max_wal_senders",
		"shared_preload_libraries", "huge_pages", "max_worker_processes":
		return true
	}
	return false
}

// InjectionKind is what an injection does.
type InjectionKind uint8

const (
	InjectLock       InjectionKind = iota + 1 // LOCK TABLE … IN ACCESS EXCLUSIVE MODE for Duration
	InjectCheckpoint                          // CHECKPOINT
	InjectVacuum                              // VACUUM [table]
)

func (k InjectionKind) String() string {
	switch k {
	case InjectLock:
		return "lock"
	case InjectCheckpoint:
		return "checkpoint"
	case InjectVacuum:
		return "vacuum"
	}
	return "?"
}

// Injection is an event caused during every measured window.
type Injection struct {
	At       time.Duration // from the start of the measured window
	Kind     InjectionKind
	Table    string        // lock: required; vacuum: "" for the whole database
	Duration time.Duration // lock only: how long the lock is held
	Pos      Pos

	index         int // in the file's list
	atPos, durPos Pos // of the values, for CheckWindow
}

// End is when the injection is over (At + Duration for a lock).
func (i Injection) End() time.Duration { return i.At + i.Duration }

// SLO is a latency objective: the response time's quantile at most Limit.
type SLO struct {
	Quantile float64       // 0.5, 0.9, 0.95, 0.99 or 0.999
	Limit    time.Duration // > 0
	AtRate   float64       // tx/s; 0: at the load's rate(s)
	Pos      Pos
}

// Key is the quantile's key in the file: p50, p90, p95, p99 or p99.9.
func (s SLO) Key() string {
	for _, q := range sloKeys() {
		if q.q == s.Quantile {
			return q.key
		}
	}
	return "p" + strconv.FormatFloat(100*s.Quantile, 'g', -1, 64)
}

func (s SLO) String() string {
	out := fmt.Sprintf("%s ≤ %v", s.Key(), s.Limit)
	if s.AtRate > 0 {
		out += " at " + strconv.FormatFloat(s.AtRate, 'g', -1, 64) + " tx/s"
	}
	return out
}

type sloKey struct {
	key string
	q   float64
}

func sloKeys() []sloKey {
	return []sloKey{{"p50", 0.5}, {"p90", 0.9}, {"p95", 0.95}, {"p99", 0.99}, {"p99.9", 0.999}}
}

// Search is a capacity search.
type Search struct {
	SLO            SLO       // AtRate is 0: the search finds the rate
	Fractions      []float64 // of the closed-model ceiling, increasing, in (0, 1]
	CeilingRepeats int       // closed-model runs for the ceiling
	Precision      float64   // bisection ends when (high − low)/low ≤ Precision
	MaxSteps       int       // bisection steps at most
}

// Collect is the evidence collected in every run (`pgtrial run`'s
// --collect, --no-collect, --wait-interval and --wait-source).
type Collect struct {
	Off          bool
	Kinds        []string // nil: all (collect.AllKinds)
	WaitInterval time.Duration
	WaitSource   string // collect.WaitSourceAuto, WaitSourceActivity or WaitSourceProfile
}

// Problem is one thing wrong in an experiment file.
type Problem struct {
	Line, Column int    // 1-based; 0 when unknown
	Path         string // the key's path, e.g. variants[1].settings.shared_buffers; "" for the file
	Message      string
}

// ValidationError lists every problem of a file, sorted by line and column.
type ValidationError struct {
	File     string
	Problems []Problem
}

// Error is one line per problem, "FILE:LINE:COLUMN: PATH: MESSAGE".
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i == maxShown {
			fmt.Fprintf(&b, "\n%s: and %d more problems", e.File, len(e.Problems)-maxShown)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
			if p.Column > 0 {
				fmt.Fprintf(&b, ":%d", p.Column)
			}
		}
		b.WriteString(": ")
		if p.Path != "" {
			b.WriteString(p.Path)
			b.WriteString(": ")
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

// Load reads and validates the experiment file at path. Script files are
// found relative to its directory. A bad file gives a *ValidationError.
func Load(path string) (*Spec, error) {
	data, err := readLimited(path, maxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read experiment file: %w", err)
	}
	return Parse(path, data)
}

// readLimited reads at most limit+1 bytes of a file: enough to tell that
// it is too large.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}

// Parse validates an experiment file's contents; name is its path (script
// files are found relative to its directory) and the errors' file name. A
// bad file gives a *ValidationError listing every problem.
func Parse(name string, data []byte) (spec *Spec, err error) {
	d := &decoder{dir: filepath.Dir(name), budget: maxNodes}
	if len(data) > maxFileSize {
		d.problemAt(0, 0, "", "the file is larger than %d bytes: an experiment file is a page of YAML", maxFileSize)
		return nil, d.result(name)
	}
	root := d.document(data)
	if root != nil {
		spec = d.spec(name, root)
	}
	if err := d.result(name); err != nil {
		return nil, err
	}
	return spec, nil
}

// CheckWindow checks the injections against the measured window once it is
// known (the runner calls it when the file left the window to the server).
func (s *Spec) CheckWindow(window time.Duration) error {
	d := &decoder{}
	d.checkInjections(s, s.Measured(window))
	return d.result(s.File)
}

// ----------------------------------------------------------------------------
// Decoding

type decoder struct {
	dir      string
	problems []Problem
	budget   int  // nodes that may still be visited
	over     bool // budget exhausted (reported once)
	// positions of keys that cross-checks report on
	marks map[string]*yaml.Node
	// the target is remote without a restart_command (decoded before the
	// variants)
	remoteNoRestart bool
}

func (d *decoder) problemAt(line, col int, path, format string, args ...any) {
	d.problems = append(d.problems, Problem{Line: line, Column: col, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (d *decoder) problem(n *yaml.Node, path, format string, args ...any) {
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	d.problemAt(line, col, path, format, args...)
}

func (d *decoder) result(file string) error {
	if len(d.problems) == 0 {
		return nil
	}
	slices.SortStableFunc(d.problems, func(a, b Problem) int {
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.Column, b.Column)
	})
	return &ValidationError{File: file, Problems: d.problems}
}

// spend counts visited nodes; false once the budget is spent.
func (d *decoder) spend(n *yaml.Node, k int) bool {
	d.budget -= k
	if d.budget < 0 {
		if !d.over {
			d.over = true
			d.problem(n, "", "the file expands to more than %d YAML nodes (aliases and merge keys): write it out plainly", maxNodes)
		}
		return false
	}
	return true
}

// document parses the YAML text into its root mapping.
func (d *decoder) document(data []byte) (root *yaml.Node) {
	defer func() {
		// The YAML library is not ours: a panic on odd input is a problem
		// of the file, not a crash.
		if r := recover(); r != nil {
			root = nil
			d.problemAt(0, 0, "", "not valid YAML (%v)", r)
		}
	}()
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.problemAt(0, 0, "", "the file is empty: an experiment needs at least a load model, e.g. \"load: {rate: 500}\"")
			return nil
		}
		d.yamlError(err)
		return nil
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		d.problem(&next, "", "a second YAML document: an experiment file holds one (remove the \"---\")")
	case !errors.Is(err, io.EOF):
		d.yamlError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		d.problemAt(1, 1, "", "the file holds no YAML mapping")
		return nil
	}
	root = d.resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
			d.problemAt(0, 0, "", "the file is empty: an experiment needs at least a load model, e.g. \"load: {rate: 500}\"")
			return nil
		}
		d.problem(root, "", "expected a mapping of keys (target, workload, load, protocol, variants, …), got %s", describe(root))
		return nil
	}
	return root
}

// yamlError turns the library's "yaml: line N: message" into a Problem.
func (d *decoder) yamlError(err error) {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msg = strings.Join(te.Errors, "; ")
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, tail
			}
		}
	}
	d.problemAt(line, 0, "", "not valid YAML: %s", msg)
}

// resolve follows an alias to the node it names.
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	if n == nil || n.Kind == yaml.AliasNode {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

// entry is one key: value of a mapping.
type entry struct {
	name     string
	key, val *yaml.Node // val resolved
}

// fields is a decoded mapping: its known keys.
type fields struct {
	node    *yaml.Node // the mapping, for problems about missing keys
	entries map[string]entry
}

func (f *fields) get(name string) (entry, bool) {
	e, ok := f.entries[name]
	return e, ok
}

// mapping checks that n is a mapping whose keys are the section's,
// expanding merge keys; unknown and repeated keys are problems.
func (d *decoder) mapping(n *yaml.Node, path, section, what string) (*fields, bool) {
	n = d.resolve(n)
	if n.Kind != yaml.MappingNode {
		d.problem(n, path, "expected %s, got %s", what, describe(n))
		return nil, false
	}
	f := &fields{node: n, entries: map[string]entry{}}
	allowed := sectionKeys(section)
	first := map[string]*yaml.Node{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !d.spend(n, 2) {
			return f, false
		}
		k, v := n.Content[i], n.Content[i+1]
		if isMerge(k) {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.problem(k, path, "a key must be a plain name, got %s", describe(d.resolve(k)))
			continue
		}
		name := k.Value
		if prev, dup := first[name]; dup {
			d.problem(k, child(path, name), "repeated key (first at line %d)", prev.Line)
			continue
		}
		first[name] = k
		if !slices.Contains(allowed, name) {
			if section == "" && strings.HasPrefix(name, "x-") {
				continue // room for anchors
			}
			d.problem(k, child(path, name), "%s", unknownKey(name, section))
			continue
		}
		f.entries[name] = entry{name: name, key: k, val: d.resolve(v)}
	}
	for _, m := range merges {
		d.merge(f, m, path, section, map[*yaml.Node]bool{n: true}, 0)
	}
	return f, true
}

func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge"
}

// mergeable checks a merge key's (resolved) value v before it is expanded:
// within the node budget, not nested deeper than maxMergeNest, and not a
// mapping that contains the merge (a cycle). false: a problem was recorded
// (or the budget is spent) and v must not be expanded.
func (d *decoder) mergeable(v *yaml.Node, path string, active map[*yaml.Node]bool, depth int) bool {
	switch {
	case !d.spend(v, 1):
		return false
	case depth > maxMergeNest:
		d.problem(v, path, "merge keys (<<) nested more than %d deep", maxMergeNest)
		return false
	case active[v]:
		d.problem(v, path, "a merge key (<<) refers to a mapping that contains it")
		return false
	}
	return true
}

// merge adds the keys of a merge key's mapping(s) that f does not have yet
// (YAML's merge: explicit keys win, then earlier merged mappings).
func (d *decoder) merge(f *fields, v *yaml.Node, path, section string, active map[*yaml.Node]bool, depth int) {
	v = d.resolve(v)
	if !d.mergeable(v, path, active, depth) {
		return
	}
	switch {
	case v.Kind == yaml.SequenceNode:
		active[v] = true
		defer delete(active, v)
		for _, m := range v.Content {
			if m.Kind != yaml.AliasNode && d.resolve(m).Kind != yaml.MappingNode {
				d.problem(m, path, "a merge key (<<) takes mappings, got %s", describe(d.resolve(m)))
				continue
			}
			d.merge(f, m, path, section, active, depth+1)
		}
		return
	case v.Kind != yaml.MappingNode:
		d.problem(v, path, "a merge key (<<) takes a mapping or a list of mappings, got %s", describe(v))
		return
	}
	active[v] = true
	defer delete(active, v)
	allowed := sectionKeys(section)
	var inner []*yaml.Node
	for i := 0; i+1 < len(v.Content); i += 2 {
		if !d.spend(v, 2) {
			return
		}
		k, val := v.Content[i], v.Content[i+1]
		if isMerge(k) {
			inner = append(inner, val)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.problem(k, path, "a key must be a plain name, got %s", describe(d.resolve(k)))
			continue
		}
		if _, have := f.entries[k.Value]; have {
			continue
		}
		if !slices.Contains(allowed, k.Value) {
			d.problem(k, child(path, k.Value), "%s (merged with <<)", unknownKey(k.Value, section))
			continue
		}
		f.entries[k.Value] = entry{name: k.Value, key: k, val: d.resolve(val)}
	}
	for _, m := range inner {
		d.merge(f, m, path, section, active, depth+1)
	}
}

// seq returns a list's items (unresolved, for their positions); null is an
// empty list.
func (d *decoder) seq(e entry, path, what string) ([]*yaml.Node, bool) {
	switch {
	case isNull(e.val):
		return nil, true
	case e.val.Kind != yaml.SequenceNode:
		d.problem(e.val, path, "expected a list of %s, got %s", what, describe(e.val))
		return nil, false
	}
	if !d.spend(e.val, len(e.val.Content)) {
		return nil, false
	}
	return e.val.Content, true
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// str is a scalar's text; null is a problem.
func (d *decoder) str(n *yaml.Node, path, what string) (string, bool) {
	n = d.resolve(n)
	switch {
	case n.Kind != yaml.ScalarNode:
		d.problem(n, path, "expected %s, got %s", what, describe(n))
		return "", false
	case isNull(n):
		d.problem(n, path, "no value: expected %s", what)
		return "", false
	case strings.IndexByte(n.Value, 0) >= 0:
		d.problem(n, path, "the value contains a NUL character")
		return "", false
	}
	return n.Value, true
}

// nonEmpty is a scalar's text, which must not be blank.
func (d *decoder) nonEmpty(n *yaml.Node, path, what string) (string, bool) {
	s, ok := d.str(n, path, what)
	if ok && strings.TrimSpace(s) == "" {
		d.problem(d.resolve(n), path, "empty: expected %s", what)
		return "", false
	}
	return s, ok
}

// integer is a whole number in [lo, hi].
func (d *decoder) integer(n *yaml.Node, path string, lo, hi int64, rule string) (int64, bool) {
	n = d.resolve(n)
	var v int64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
			d.problem(n, path, "%s is not a whole number: %s", n.Value, rule)
		} else {
			d.problem(n, path, "expected a whole number (%s), got %s", rule, describe(n))
		}
		return 0, false
	}
	if v < lo || v > hi {
		d.problem(n, path, "%d is out of range: %s", v, rule)
		return 0, false
	}
	return v, true
}

// positive is a finite number in (0, hi]; rule says what it is.
func (d *decoder) positive(n *yaml.Node, path string, hi float64, rule string) (float64, bool) {
	n = d.resolve(n)
	var v float64
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || n.Decode(&v) != nil {
		d.problem(n, path, "expected a number (%s), got %s", rule, describe(n))
		return 0, false
	}
	if !(v > 0) || v > hi || math.IsInf(v, 0) {
		d.problem(n, path, "%s is out of range: %s", n.Value, rule)
		return 0, false
	}
	return v, true
}

// boolean is true or false.
func (d *decoder) boolean(n *yaml.Node, path string) (bool, bool) {
	n = d.resolve(n)
	var v bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&v) != nil {
		d.problem(n, path, "expected true or false, got %s", describe(n))
		return false, false
	}
	return v, true
}

// duration is a non-negative duration in Go syntax.
func (d *decoder) duration(n *yaml.Node, path string) (time.Duration, bool) {
	n = d.resolve(n)
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.problem(n, path, "expected a duration such as 90s or 2m, got %s", describe(n))
		return 0, false
	}
	s := strings.TrimSpace(n.Value)
	tag := n.ShortTag()
	if _, err := strconv.ParseFloat(s, 64); tag == "!!int" || tag == "!!float" || err == nil && s != "" && strings.IndexByte("0123456789.+-", s[0]) >= 0 {
		d.problem(n, path, "%s has no unit: write a duration such as %ss, %sms or 2m", s, s, s)
		return 0, false
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		d.problem(n, path, "%q is not a duration: use Go syntax such as 90s, 2m, 1m30s or 250ms", n.Value)
		return 0, false
	}
	if v < 0 {
		d.problem(n, path, "%s is negative", s)
		return 0, false
	}
	return v, true
}

// positiveDuration is a duration above zero.
func (d *decoder) positiveDuration(n *yaml.Node, path string) (time.Duration, bool) {
	v, ok := d.duration(n, path)
	if ok && v == 0 {
		d.problem(d.resolve(n), path, "must be longer than 0")
		return 0, false
	}
	return v, ok
}

// oneOf is a scalar that must be one of choices (case-insensitive).
func (d *decoder) oneOf(n *yaml.Node, path string, choices ...string) (string, bool) {
	s, ok := d.str(n, path, strings.Join(choices, " or "))
	if !ok {
		return "", false
	}
	for _, c := range choices {
		if strings.EqualFold(s, c) {
			return c, true
		}
	}
	msg := fmt.Sprintf("%q: expected %s", s, quoteList(choices, "or"))
	if sug := closest(strings.ToLower(s), choices); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", sug)
	}
	d.problem(d.resolve(n), path, "%s", msg)
	return "", false
}

// describe names a node's type for "expected X, got Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing (null)"
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return n.Value
		}
		return shown(n.Value)
	}
	return "an alias"
}

// shown quotes a value for a message: cut to 40 bytes, and not at all when
// it may be a connection string with a password.
func shown(v string) string {
	if strings.Contains(v, "://") || strings.Contains(strings.ToLower(v), "password") {
		return "a connection string (not shown)"
	}
	if len(v) > 40 {
		v = strings.ToValidUTF8(v[:40], "") + "…"
	}
	return strconv.Quote(v)
}

func child(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func posOf(n *yaml.Node) Pos { return Pos{Line: n.Line, Column: n.Column} }

// validName: letters, digits, '_', '.', '-', 1 to 64 bytes, not starting
// with '.' or '-' (a directory name; the local cluster's rule).
func validName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// validSettingName: a PostgreSQL parameter name (letters, digits, '_',
// '.' for an extension's parameters such as pg_stat_statements.max).
func validSettingName(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '.' || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// ----------------------------------------------------------------------------
// Sections

// sectionKeys are the keys each mapping allows ("" is the top level).
func sectionKeys(section string) []string {
	switch section {
	case "":
		return []string{"name", "description", "target", "workload", "load", "protocol", "variants", "injections", "slo", "search", "seed", "interval", "collect"}
	case "target":
		return []string{"url", "local", "restart_command", "node_exporter"}
	case "workload":
		return []string{"builtin", "scale", "scripts", "variables", "protocol", "max_tries", "continue_on_error"}
	case "workload.scripts":
		return []string{"file", "weight"}
	case "load":
		return []string{"clients", "threads", "rate", "closed", "ramp", "arrival", "overload", "latency_limit"}
	case "load.ramp":
		return []string{"by", "from", "to", "steps", "spacing", "step_duration"}
	case "protocol":
		return []string{"warmup", "window", "repeats", "interleave"}
	case "variants":
		return []string{"name", "settings", "setup", "teardown"}
	case "injections":
		return []string{"at", "kind", "table", "duration"}
	case "slo", "search.slo":
		keys := []string{"at_rate"}
		for _, k := range sloKeys() {
			keys = append(keys, k.key)
		}
		return keys
	case "search":
		return []string{"slo", "fractions", "ceiling_repeats", "precision", "max_steps"}
	case "collect":
		return []string{"kinds", "wait_interval", "wait_source"}
	}
	return nil
}

// sectionPath is how a section is written in messages.
func sectionPath(section string) string {
	switch section {
	case "":
		return "the top level"
	case "workload.scripts", "variants", "injections", "slo":
		return section + "[…]"
	}
	return section
}

// unknownKey explains an unknown key: the closest known key of the
// section, or the section the key belongs to, or the list of known keys.
func unknownKey(name, section string) string {
	allowed := sectionKeys(section)
	if sug := closest(strings.ToLower(name), allowed); sug != "" {
		return fmt.Sprintf("unknown key %q; did you mean %q?", name, sug)
	}
	var homes []string
	for _, s := range []string{"", "target", "workload", "workload.scripts", "load", "load.ramp", "protocol", "variants", "injections", "slo", "search", "collect"} {
		if s != section && slices.Contains(sectionKeys(s), name) {
			homes = append(homes, sectionPath(s))
		}
	}
	if len(homes) > 0 {
		return fmt.Sprintf("unknown key %q here: it belongs in %s", name, strings.Join(homes, " or "))
	}
	return fmt.Sprintf("unknown key %q: expected %s", name, quoteList(allowed, "or"))
}

// closest is the choice nearest to s by edit distance (optimal string
// alignment: insertions, deletions, substitutions and swaps of neighbours
// cost 1), if it is near enough: 1 edit for names up to 4 bytes, 2 beyond.
func closest(s string, choices []string) string {
	limit := 1
	if len(s) > 4 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, c := range choices {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 64
	}
	// d[i][j] = distance between a[:i] and b[:j]
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func quoteList(items []string, conj string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}

// spec decodes the top level and cross-checks the sections.
func (d *decoder) spec(file string, root *yaml.Node) *Spec {
	s := &Spec{
		File:     file,
		Name:     strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)),
		Interval: DefaultInterval,
		Collect:  Collect{WaitInterval: DefaultWaitInterval, WaitSource: collect.WaitSourceAuto},
	}
	d.marks = map[string]*yaml.Node{}
	top, ok := d.mapping(root, "", "", "a mapping")
	if !ok {
		return s
	}
	if e, ok := top.get("name"); ok {
		if v, ok := d.nonEmpty(e.val, "name", "a name"); ok {
			if validName(v) {
				s.Name = v
			} else {
				d.problem(e.val, "name", "%q: use letters, digits, '_', '.' and '-' (at most 64, not starting with '.' or '-'): it names the experiment's directory", v)
			}
		}
	} else if !validName(s.Name) {
		s.Name = "experiment"
	}
	if e, ok := top.get("description"); ok {
		s.Description, _ = d.str(e.val, "description", "a text")
	}
	d.target(s, top)
	d.remoteNoRestart = s.Target.Remote() && s.Target.RestartCommand == ""
	d.workload(s, top)
	d.load(s, top)
	d.protocol(s, top)
	d.variants(s, top)
	d.injections(s, top)
	d.slos(s, top)
	d.search(s, top)
	if e, ok := top.get("seed"); ok {
		n := e.val
		var v uint64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
			d.problem(n, "seed", "expected an unsigned integer (0 to 18446744073709551615), got %s; leave it out to have one chosen and recorded", describe(n))
		} else {
			s.Seed = &v
		}
	}
	if e, ok := top.get("interval"); ok {
		if v, ok := d.duration(e.val, "interval"); ok {
			if v < 10*time.Millisecond || v > time.Hour {
				d.problem(e.val, "interval", "%v is out of range: use 10ms to 1h (the default is 1s)", v)
			} else {
				s.Interval = v
			}
		}
	}
	if e, ok := top.get("collect"); ok {
		d.collect(s, e.val)
	}
	d.crossChecks(s)
	return s
}

func (d *decoder) target(s *Spec, top *fields) {
	s.Target.Local = localpg.DefaultName
	e, ok := top.get("target")
	if !ok {
		return
	}
	f, ok := d.mapping(e.val, "target", "target", "a mapping (url or local, restart_command, node_exporter)")
	if !ok {
		return
	}
	url, hasURL := f.get("url")
	local, hasLocal := f.get("local")
	if hasURL {
		if v, ok := d.nonEmpty(url.val, "target.url", "a connection string (postgres:// URL or key=value)"); ok {
			s.Target.URL = v
			s.Target.Local = ""
			s.Target.Given = "the file's target.url"
		}
	}
	if hasLocal {
		n := local.val
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
			var on bool
			_ = n.Decode(&on)
			switch {
			case on && hasURL:
				d.problem(local.key, "target.local", "url and local exclude each other: the target is either a server (url) or a local cluster")
			case !on && !hasURL:
				d.problem(n, "target.local", "false, but no url: give the server as target.url, or use the local cluster (local: true)")
			case on:
				s.Target.Given = "the file's target.local"
			}
		} else if v, ok := d.nonEmpty(n, "target.local", "true or a local cluster's name"); ok {
			switch {
			case hasURL:
				d.problem(local.key, "target.local", "url and local exclude each other: the target is either a server (url) or a local cluster")
			case !validName(v):
				d.problem(n, "target.local", "%s is not a cluster name: use letters, digits, '_', '.', '-' (at most 64, not starting with '.' or '-'); a server is target.url", shown(v))
			default:
				s.Target.Local = v
				s.Target.Given = "the file's target.local"
			}
		}
	}
	if e, ok := f.get("restart_command"); ok {
		if v, ok := d.nonEmpty(e.val, "target.restart_command", "a shell command"); ok {
			if !hasURL {
				d.problem(e.key, "target.restart_command", "applies to a server given by url: a local cluster is restarted with pg_ctl")
			} else {
				s.Target.RestartCommand = v
			}
		}
	}
	if e, ok := f.get("node_exporter"); ok {
		s.Target.NodeExporter, _ = d.nonEmpty(e.val, "target.node_exporter", "host:port or URL of a node_exporter")
	}
}

func (d *decoder) workload(s *Spec, top *fields) {
	w := &s.Workload
	w.Protocol = script.Prepared
	w.MaxTries = 1
	e, ok := top.get("workload")
	if !ok {
		w.Builtin = DefaultBuiltin
		return
	}
	f, ok := d.mapping(e.val, "workload", "workload", "a mapping (builtin or scripts, scale, variables, protocol, …)")
	if !ok {
		return
	}
	b, hasBuiltin := f.get("builtin")
	sc, hasScripts := f.get("scripts")
	switch {
	case hasBuiltin && hasScripts:
		d.problem(sc.key, "workload.scripts", "builtin and scripts exclude each other: run a built-in script or script files")
	case hasBuiltin:
		if v, ok := d.nonEmpty(b.val, "workload.builtin", "a built-in script's name"); ok {
			bi, n := workload.FindBuiltin(v)
			if n != 1 {
				var names []string
				for _, x := range workload.BuiltinScripts {
					names = append(names, x.Name)
				}
				what := "no built-in script"
				if n > 1 {
					what = "ambiguous built-in script name"
				}
				d.problem(b.val, "workload.builtin", "%s %q: choose %s (any unambiguous prefix), or give script files (scripts)", what, v, quoteList(names, "or"))
			} else {
				w.Builtin = bi.Name
			}
		}
	case hasScripts:
		d.scripts(w, sc)
	default:
		w.Builtin = DefaultBuiltin
	}
	if e, ok := f.get("scale"); ok {
		if v, ok := d.integer(e.val, "workload.scale", 1, math.MaxInt32, "the pgbench scale is 1 to 2147483647"); ok {
			w.Scale = int(v)
		}
	}
	if e, ok := f.get("variables"); ok {
		d.variables(w, e.val)
	}
	if e, ok := f.get("protocol"); ok {
		if v, ok := d.oneOf(e.val, "workload.protocol", "simple", "extended", "prepared"); ok {
			w.Protocol, _ = script.ParseMode(v)
		}
	}
	if e, ok := f.get("max_tries"); ok {
		if v, ok := d.integer(e.val, "workload.max_tries", 0, math.MaxInt32, "1 or more, or 0 for unlimited"); ok {
			w.MaxTries = int(v)
		}
	}
	if e, ok := f.get("continue_on_error"); ok {
		w.ContinueOnError, _ = d.boolean(e.val, "workload.continue_on_error")
	}
}

// scripts decodes workload.scripts and checks each file: it exists, and
// parses as a pgbench script.
func (d *decoder) scripts(w *Workload, e entry) {
	items, ok := d.seq(e, "workload.scripts", "{file, weight}")
	if !ok {
		return
	}
	if len(items) == 0 {
		d.problem(e.val, "workload.scripts", "empty: give at least one script file, e.g. [{file: mix.sql}]")
		return
	}
	if len(items) > maxScripts {
		d.problem(e.val, "workload.scripts", "%d scripts: at most %d are allowed", len(items), maxScripts)
		return
	}
	total := int64(0)
	for i, it := range items {
		path := index("workload.scripts", i)
		f, ok := d.mapping(it, path, "workload.scripts", "a mapping {file: NAME.sql, weight: N}")
		if !ok {
			continue
		}
		sc := Script{Weight: 1, Pos: posOf(d.resolve(it))}
		if wt, ok := f.get("weight"); ok {
			v, ok := d.integer(wt.val, child(path, "weight"), 0, math.MaxInt32, "a weight is 0 to 2147483647")
			if !ok {
				continue
			}
			sc.Weight = int(v)
		}
		total += int64(sc.Weight)
		fe, ok := f.get("file")
		if !ok {
			d.problem(f.node, path, "no file: each script needs {file: NAME.sql}")
			continue
		}
		name, ok := d.nonEmpty(fe.val, child(path, "file"), "a script file's name")
		if !ok {
			continue
		}
		sc.File = name
		sc.Path = name
		if !filepath.IsAbs(name) {
			sc.Path = filepath.Join(d.dir, name)
		}
		d.checkScript(fe.val, child(path, "file"), sc.Path)
		w.Scripts = append(w.Scripts, sc)
	}
	if total == 0 && len(w.Scripts) == len(items) {
		d.problem(e.val, "workload.scripts", "the weights add up to 0: give at least one script a positive weight")
	}
}

func (d *decoder) checkScript(n *yaml.Node, path, file string) {
	st, err := os.Stat(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		d.problem(n, path, "%s does not exist (script files are found relative to the experiment file)", file)
		return
	case err != nil:
		d.problem(n, path, "%v", err)
		return
	case !st.Mode().IsRegular():
		d.problem(n, path, "%s is not a regular file", file)
		return
	case st.Size() > maxScriptSize:
		d.problem(n, path, "%s is larger than %d bytes: not a pgbench script", file, maxScriptSize)
		return
	}
	data, err := readLimited(file, maxScriptSize)
	switch {
	case err != nil:
		d.problem(n, path, "%v", err)
		return
	case len(data) > maxScriptSize:
		d.problem(n, path, "%s is larger than %d bytes: not a pgbench script", file, maxScriptSize)
		return
	}
	parsed, err := script.Parse(file, string(data))
	if err != nil {
		var pe *script.ParseError
		if errors.As(err, &pe) && pe.AtLine > 0 {
			d.problem(n, path, "%v (at %s)", err, pe.Where())
		} else {
			d.problem(n, path, "%v", err)
		}
		return
	}
	if len(parsed.Commands) == 0 {
		d.problem(n, path, "%s has no commands", file)
		return
	}
	if err := parsed.CheckConditionals(); err != nil {
		var ce *script.ConditionError
		if errors.As(err, &ce) {
			d.problem(n, path, "%v (at %s)", err, ce.Where())
		} else {
			d.problem(n, path, "%v", err)
		}
	}
}

// variables decodes workload.variables in file order (their keys are free,
// so mapping's key check is not used).
func (d *decoder) variables(w *Workload, n *yaml.Node) {
	n = d.resolve(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.problem(n, "workload.variables", "expected a mapping of NAME: VALUE, got %s", describe(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !d.spend(n, 2) {
			return
		}
		if isMerge(k) || k.Kind != yaml.ScalarNode {
			d.problem(k, "workload.variables", "a key must be a variable name")
			continue
		}
		path := child("workload.variables", k.Value)
		if !script.ValidVarName(k.Value) {
			d.problem(k, path, "%q is not a variable name (letters, digits, '_'; not starting with a digit)", k.Value)
			continue
		}
		if line, dup := seen[k.Value]; dup {
			d.problem(k, path, "repeated variable (first at line %d)", line)
			continue
		}
		seen[k.Value] = k.Line
		if val, ok := d.str(v, path, "a value"); ok {
			w.Variables = append(w.Variables, Variable{Name: k.Value, Value: val})
		}
	}
}

func (d *decoder) load(s *Spec, top *fields) {
	l := &s.Load
	l.Clients = DefaultClients
	e, ok := top.get("load")
	if !ok {
		return
	}
	d.marks["load"] = e.key
	f, ok := d.mapping(e.val, "load", "load", "a mapping (clients, threads, rate or closed or ramp, …)")
	if !ok {
		return
	}
	for _, k := range []string{"clients", "rate", "closed", "ramp", "arrival", "overload"} {
		if e, ok := f.get(k); ok {
			d.marks["load."+k] = e.key
		}
	}
	if e, ok := f.get("clients"); ok {
		if v, ok := d.integer(e.val, "load.clients", 1, 1_000_000, "at least 1 client"); ok {
			l.Clients = int(v)
		}
	}
	if e, ok := f.get("threads"); ok {
		if v, ok := d.integer(e.val, "load.threads", 0, 1_000_000, "give at least 1, or 0 for min(clients, CPUs)"); ok {
			l.Threads = int(v)
		}
	}
	if e, ok := f.get("rate"); ok {
		l.Rate, _ = d.positive(e.val, "load.rate", maxRate, "transactions per second, above 0 and at most 1e9")
	}
	if e, ok := f.get("closed"); ok {
		l.Closed, _ = d.boolean(e.val, "load.closed")
	}
	if e, ok := f.get("ramp"); ok {
		l.Ramp = d.ramp(e.val)
	}
	if e, ok := f.get("arrival"); ok {
		if v, ok := d.oneOf(e.val, "load.arrival", "poisson", "uniform"); ok && v == "uniform" {
			l.Arrival = engine.Uniform
		}
	}
	if e, ok := f.get("overload"); ok {
		if v, ok := d.oneOf(e.val, "load.overload", "queue", "drop"); ok && v == "drop" {
			l.Overload = engine.Drop
		}
	}
	if e, ok := f.get("latency_limit"); ok {
		l.LatencyLimit, _ = d.duration(e.val, "load.latency_limit")
	}
}

// ramp decodes load.ramp; nil when it is not usable.
func (d *decoder) ramp(n *yaml.Node) *Ramp {
	const path = "load.ramp"
	f, ok := d.mapping(n, path, "load.ramp", "a mapping {by, from, to, steps, spacing, step_duration}")
	if !ok {
		return nil
	}
	r := &Ramp{}
	good := true
	if e, ok := f.get("by"); ok {
		switch v, ok := d.oneOf(e.val, child(path, "by"), "clients", "rate"); {
		case !ok:
			good = false
		case v == "clients":
			r.By = RampClients
		default:
			r.By = RampRate
		}
	} else {
		d.problem(f.node, path, "no by: a ramp steps clients (by: clients) or the rate (by: rate)")
		good = false
	}
	level := func(key string) (float64, bool) {
		e, ok := f.get(key)
		if !ok {
			d.problem(f.node, path, "no %s: a ramp goes from a start level (from) to a finish level (to)", key)
			return 0, false
		}
		if r.By == RampClients {
			v, ok := d.integer(e.val, child(path, key), 1, 1_000_000, "clients are 1 to 1000000")
			return float64(v), ok
		}
		return d.positive(e.val, child(path, key), maxRate, "transactions per second, above 0 and at most 1e9")
	}
	var okFrom, okTo bool
	r.From, okFrom = level("from")
	r.To, okTo = level("to")
	if okFrom && okTo && r.From >= r.To {
		e, _ := f.get("to")
		d.problem(e.val, child(path, "to"), "%g is not above from (%g): a ramp goes up from its start level to its finish level", r.To, r.From)
		good = false
	}
	good = good && okFrom && okTo
	if e, ok := f.get("steps"); ok {
		v, ok := d.integer(e.val, child(path, "steps"), 2, maxRampSteps, fmt.Sprintf("a ramp has 2 to %d steps", maxRampSteps))
		r.Steps = int(v)
		good = good && ok
	} else {
		d.problem(f.node, path, "no steps: give the number of levels from start to finish (at least 2)")
		good = false
	}
	if e, ok := f.get("spacing"); ok {
		v, ok := d.oneOf(e.val, child(path, "spacing"), "linear", "geometric")
		if v == "geometric" {
			r.Spacing = Geometric
		}
		good = good && ok
	}
	if e, ok := f.get("step_duration"); ok {
		v, ok := d.positiveDuration(e.val, child(path, "step_duration"))
		r.StepDuration = v
		good = good && ok
	}
	if good && r.By == RampClients {
		lv := r.Levels()
		for i := 1; i < len(lv); i++ {
			if lv[i] == lv[i-1] {
				e, _ := f.get("steps")
				d.problem(e.val, child(path, "steps"), "%d %s steps from %g to %g clients repeat a level (%g): use fewer steps", r.Steps, r.Spacing, r.From, r.To, lv[i])
				good = false
				break
			}
		}
	}
	if !good {
		return nil
	}
	return r
}

func (d *decoder) protocol(s *Spec, top *fields) {
	p := &s.Protocol
	p.Warmup, p.Repeats, p.Interleave = DefaultWarmup, DefaultRepeats, true
	e, ok := top.get("protocol")
	if !ok {
		return
	}
	n := e.val
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		d.problem(n, "protocol", "expected a mapping (warmup, window, repeats, interleave), got %s; the query protocol is workload.protocol", describe(n))
		return
	}
	f, ok := d.mapping(n, "protocol", "protocol", "a mapping (warmup, window, repeats, interleave)")
	if !ok {
		return
	}
	if e, ok := f.get("warmup"); ok {
		p.Warmup, _ = d.duration(e.val, "protocol.warmup")
	}
	if e, ok := f.get("window"); ok {
		d.marks["protocol.window"] = e.key
		if v, ok := d.positiveDuration(e.val, "protocol.window"); ok {
			if v < time.Second {
				d.problem(e.val, "protocol.window", "%v is too short to measure anything: use at least 1s (the default is max(2 × checkpoint_timeout, 60s))", v)
			} else {
				p.Window = v
			}
		}
	}
	if e, ok := f.get("repeats"); ok {
		if v, ok := d.integer(e.val, "protocol.repeats", 1, 1000, "at least 1 run per variant (3 or more to see the noise)"); ok {
			p.Repeats = int(v)
		}
	}
	if e, ok := f.get("interleave"); ok {
		if v, ok := d.boolean(e.val, "protocol.interleave"); ok {
			p.Interleave = v
		}
	}
}

func (d *decoder) variants(s *Spec, top *fields) {
	e, ok := top.get("variants")
	if !ok {
		s.Variants = []Variant{{Name: DefaultVariant}}
		return
	}
	items, ok := d.seq(e, "variants", "variants {name, settings, setup, teardown}")
	if !ok {
		return
	}
	if len(items) == 0 {
		d.problem(e.key, "variants", "empty: give at least one variant ({name: A}), or leave the key out for one variant named %q", DefaultVariant)
		return
	}
	names := map[string]int{}
	for i, it := range items {
		path := index("variants", i)
		f, ok := d.mapping(it, path, "variants", "a mapping {name, settings, setup, teardown}")
		if !ok {
			continue
		}
		v := Variant{Pos: posOf(d.resolve(it))}
		if ne, ok := f.get("name"); ok {
			if name, ok := d.nonEmpty(ne.val, child(path, "name"), "a name"); ok {
				switch line, dup := names[name]; {
				case dup:
					d.problem(ne.val, child(path, "name"), "duplicate variant name %q (first at line %d)", name, line)
				case !validName(name):
					d.problem(ne.val, child(path, "name"), "%q: use letters, digits, '_', '.' and '-' (at most 64, not starting with '.' or '-'): it names the variant's run directories", name)
				default:
					names[name] = ne.val.Line
					v.Name = name
				}
			}
		} else {
			d.problem(f.node, path, "no name: every variant needs one (it names its runs and the verdicts)")
		}
		if se, ok := f.get("settings"); ok {
			v.Settings = d.settings(se, child(path, "settings"))
		}
		if se, ok := f.get("setup"); ok {
			v.Setup = d.sqlList(se, child(path, "setup"))
		}
		if se, ok := f.get("teardown"); ok {
			v.Teardown = d.sqlList(se, child(path, "teardown"))
		}
		s.Variants = append(s.Variants, v)
	}
}

func (d *decoder) settings(e entry, path string) []Setting {
	n := e.val
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.problem(n, path, "expected a mapping of setting: value, got %s", describe(n))
		return nil
	}
	var out []Setting
	seen := map[string]int{}
	add := func(k, v *yaml.Node) {
		p := child(path, k.Value)
		name := strings.ToLower(k.Value) // PostgreSQL's names are case-insensitive
		if !validSettingName(k.Value) {
			d.problem(k, p, "%q is not a setting name (letters, digits, '_', and '.' for an extension's settings)", k.Value)
			return
		}
		if line, dup := seen[name]; dup {
			d.problem(k, p, "repeated setting (first at line %d)", line)
			return
		}
		seen[name] = k.Line
		rv := d.resolve(v)
		if rv.Kind == yaml.ScalarNode && isNull(rv) {
			d.problem(rv, p, "no value: give the value to set (quote it for an empty string: \"\")")
			return
		}
		val, ok := d.str(v, p, "a value (settings are set as text, e.g. 1GB, on, 0.9)")
		if ok && d.remoteNoRestart && NeedsRestart(name) {
			// Restart settings on a remote server need a way to restart it.
			d.problem(k, p, "needs a server restart, and the target is a remote server (target.url) without target.restart_command: "+
				"give the command that restarts it, or use the local cluster")
		}
		if ok {
			out = append(out, Setting{Name: name, Value: val, Pos: posOf(k)})
		}
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !d.spend(n, 2) {
			return out
		}
		k, v := n.Content[i], n.Content[i+1]
		if isMerge(k) {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.problem(k, path, "a key must be a setting name, got %s", describe(d.resolve(k)))
			continue
		}
		add(k, v)
	}
	// Merged settings: those not given explicitly, in merge order.
	active := map[*yaml.Node]bool{n: true}
	var expand func(m *yaml.Node, depth int)
	expand = func(m *yaml.Node, depth int) {
		m = d.resolve(m)
		if !d.mergeable(m, path, active, depth) {
			return
		}
		switch m.Kind {
		case yaml.SequenceNode:
			active[m] = true
			defer delete(active, m)
			for _, x := range m.Content {
				expand(x, depth+1)
			}
		case yaml.MappingNode:
			active[m] = true
			defer delete(active, m)
			for i := 0; i+1 < len(m.Content); i += 2 {
				if !d.spend(m, 2) {
					return
				}
				k, v := m.Content[i], m.Content[i+1]
				switch {
				case isMerge(k):
					expand(v, depth+1)
				case k.Kind == yaml.ScalarNode:
					if _, have := seen[strings.ToLower(k.Value)]; !have {
						add(k, v)
					}
				}
			}
		default:
			d.problem(m, path, "a merge key (<<) takes a mapping or a list of mappings, got %s", describe(m))
		}
	}
	for _, m := range merges {
		expand(m, 0)
	}
	return out
}

// sqlList is a list of SQL statements.
func (d *decoder) sqlList(e entry, path string) []string {
	items, ok := d.seq(e, path, "SQL statements")
	if !ok {
		return nil
	}
	var out []string
	for i, it := range items {
		if v, ok := d.nonEmpty(it, index(path, i), "an SQL statement"); ok {
			out = append(out, v)
		}
	}
	return out
}

func (d *decoder) injections(s *Spec, top *fields) {
	e, ok := top.get("injections")
	if !ok {
		return
	}
	items, ok := d.seq(e, "injections", "injections {at, kind, table, duration}")
	if !ok {
		return
	}
	for i, it := range items {
		path := index("injections", i)
		f, ok := d.mapping(it, path, "injections", "a mapping {at, kind, table, duration}")
		if !ok {
			continue
		}
		inj := Injection{Pos: posOf(d.resolve(it)), index: i}
		good := true
		if ae, ok := f.get("at"); ok {
			inj.atPos = posOf(ae.val)
			inj.At, ok = d.duration(ae.val, child(path, "at"))
			good = good && ok
		} else {
			d.problem(f.node, path, "no at: when to inject, from the start of the measured window (e.g. at: 20s)")
			good = false
		}
		ke, hasKind := f.get("kind")
		if hasKind {
			switch v, ok := d.oneOf(ke.val, child(path, "kind"), "lock", "checkpoint", "vacuum"); {
			case !ok:
				good = false
			case v == "lock":
				inj.Kind = InjectLock
			case v == "checkpoint":
				inj.Kind = InjectCheckpoint
			default:
				inj.Kind = InjectVacuum
			}
		} else {
			d.problem(f.node, path, "no kind: lock, checkpoint or vacuum")
			good = false
		}
		te, hasTable := f.get("table")
		if hasTable {
			v, ok := d.nonEmpty(te.val, child(path, "table"), "a table name")
			inj.Table = v
			good = good && ok
		}
		de, hasDur := f.get("duration")
		if hasDur {
			inj.durPos = posOf(de.val)
			v, ok := d.positiveDuration(de.val, child(path, "duration"))
			inj.Duration = v
			good = good && ok
		}
		switch inj.Kind {
		case InjectLock:
			if !hasTable {
				d.problem(f.node, path, "a lock needs a table (table: pgbench_branches)")
				good = false
			}
			if !hasDur {
				d.problem(f.node, path, "a lock needs a duration: how long it is held (duration: 5s)")
				good = false
			}
		case InjectCheckpoint:
			if hasTable {
				d.problem(te.key, child(path, "table"), "a checkpoint takes no table")
				good = false
			}
			if hasDur {
				d.problem(de.key, child(path, "duration"), "a checkpoint takes no duration: only a lock is held for a time")
				good = false
			}
		case InjectVacuum:
			if hasDur {
				d.problem(de.key, child(path, "duration"), "a vacuum takes no duration: only a lock is held for a time")
				good = false
			}
		}
		if good {
			s.Injections = append(s.Injections, inj)
		}
	}
}

// sloFrom decodes one {pNN: duration, at_rate: N}; at_rate is checked
// against the load, and not allowed without one (a search's SLO).
func (d *decoder) sloFrom(n *yaml.Node, path, section string, l *LoadSpec) (SLO, bool) {
	f, ok := d.mapping(n, path, section, "a mapping such as {p99: 100ms, at_rate: 500}")
	if !ok {
		return SLO{}, false
	}
	slo := SLO{Pos: posOf(f.node)}
	var found []string
	good := true
	for _, q := range sloKeys() {
		e, ok := f.get(q.key)
		if !ok {
			continue
		}
		found = append(found, q.key)
		if len(found) > 1 {
			d.problem(e.key, child(path, q.key), "one quantile per SLO (this one has %s): write one SLO each", strings.Join(found, " and "))
			good = false
			continue
		}
		slo.Quantile = q.q
		v, ok := d.positiveDuration(e.val, child(path, q.key))
		slo.Limit = v
		good = good && ok
	}
	if len(found) == 0 {
		d.problem(f.node, path, "no quantile: give one of p50, p90, p95, p99, p99.9 with its limit (p99: 100ms)")
		good = false
	}
	if e, ok := f.get("at_rate"); ok {
		p := child(path, "at_rate")
		if l == nil {
			d.problem(e.key, p, "a capacity search finds the rate: leave at_rate out")
			return slo, false
		}
		v, ok := d.positive(e.val, p, maxRate, "transactions per second, above 0 and at most 1e9")
		if !ok {
			return slo, false
		}
		slo.AtRate = v
		// An objective at a rate the experiment never runs cannot be judged.
		switch r := l.Ramp; {
		case l.Rate > 0 && v != l.Rate:
			d.problem(e.val, p, "%g tx/s, but the load runs at %g tx/s: leave at_rate out, or make it the load's rate", v, l.Rate)
			good = false
		case r != nil && r.By == RampRate && (v < r.From || v > r.To):
			d.problem(e.val, p, "%g tx/s is outside the ramp (%g to %g tx/s)", v, r.From, r.To)
			good = false
		}
	}
	return slo, good
}

func (d *decoder) slos(s *Spec, top *fields) {
	e, ok := top.get("slo")
	if !ok {
		return
	}
	d.marks["slo"] = e.key
	items, ok := d.seq(e, "slo", "SLOs {p99: 100ms, at_rate: 500}")
	if !ok {
		return
	}
	for i, it := range items {
		if slo, ok := d.sloFrom(it, index("slo", i), "slo", &s.Load); ok {
			s.SLOs = append(s.SLOs, slo)
		}
	}
}

func (d *decoder) search(s *Spec, top *fields) {
	e, ok := top.get("search")
	if !ok {
		return
	}
	d.marks["search"] = e.key
	f, ok := d.mapping(e.val, "search", "search", "a mapping (slo, fractions, ceiling_repeats, precision, max_steps)")
	if !ok {
		return
	}
	sr := &Search{
		Fractions:      []float64{0.3, 0.6, 0.9},
		CeilingRepeats: DefaultCeilingRepeats,
		Precision:      DefaultPrecision,
		MaxSteps:       DefaultMaxSteps,
	}
	good := true
	if se, ok := f.get("slo"); ok {
		sr.SLO, ok = d.sloFrom(se.val, "search.slo", "search.slo", nil)
		good = good && ok
	} else {
		d.problem(f.node, "search", "no slo: the search needs the latency to meet, e.g. slo: {p99: 50ms}")
		good = false
	}
	if fe, ok := f.get("fractions"); ok {
		items, ok := d.seq(fe, "search.fractions", "fractions of the ceiling")
		good = good && ok
		if ok && len(items) == 0 {
			d.problem(fe.val, "search.fractions", "empty: give fractions of the closed-model ceiling such as [0.3, 0.6, 0.9]")
			good = false
		}
		if ok && len(items) > 0 {
			sr.Fractions = nil
			for i, it := range items {
				p := index("search.fractions", i)
				v, ok := d.positive(it, p, 1, "a fraction of the ceiling, above 0 and at most 1")
				if !ok {
					good = false
					continue
				}
				if n := len(sr.Fractions); n > 0 && v <= sr.Fractions[n-1] {
					d.problem(d.resolve(it), p, "%g is not above %g: list the fractions in increasing order", v, sr.Fractions[n-1])
					good = false
					continue
				}
				sr.Fractions = append(sr.Fractions, v)
			}
		}
	}
	if ce, ok := f.get("ceiling_repeats"); ok {
		v, ok := d.integer(ce.val, "search.ceiling_repeats", 1, 1000, "at least 1 closed-model run for the ceiling")
		sr.CeilingRepeats = int(v)
		good = good && ok
	}
	if pe, ok := f.get("precision"); ok {
		v, ok := d.positive(pe.val, "search.precision", 0.5, "a relative width such as 0.05, above 0 and at most 0.5")
		sr.Precision = v
		good = good && ok
	}
	if me, ok := f.get("max_steps"); ok {
		v, ok := d.integer(me.val, "search.max_steps", 1, 100, "1 to 100 bisection steps")
		sr.MaxSteps = int(v)
		good = good && ok
	}
	if good {
		s.Search = sr
	}
}

func (d *decoder) collect(s *Spec, n *yaml.Node) {
	c := &s.Collect
	kinds := func(n *yaml.Node, path string) {
		var list []*yaml.Node
		switch {
		case n.Kind == yaml.SequenceNode:
			if !d.spend(n, len(n.Content)) {
				return
			}
			list = n.Content
		case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
			// "waits,statements", as --collect takes it
			for _, part := range strings.Split(n.Value, ",") {
				list = append(list, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.TrimSpace(part), Line: n.Line, Column: n.Column})
			}
		default:
			d.problem(n, path, "expected collectors (a list or comma-separated: %s), got %s", strings.Join(collect.AllKinds, ","), describe(n))
			return
		}
		c.Kinds = []string{}
		for i, it := range list {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = index(path, i)
			}
			if v, ok := d.oneOf(it, p, collect.AllKinds...); ok && !slices.Contains(c.Kinds, v) {
				c.Kinds = append(c.Kinds, v)
			}
		}
		if len(c.Kinds) == 0 {
			c.Kinds = nil
			if len(list) == 0 {
				d.problem(n, path, "no collectors: write collect: false to collect nothing")
			}
		}
	}
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		var on bool
		_ = n.Decode(&on)
		c.Off = !on
	case n.Kind == yaml.MappingNode:
		f, ok := d.mapping(n, "collect", "collect", "a mapping (kinds, wait_interval, wait_source)")
		if !ok {
			return
		}
		if e, ok := f.get("kinds"); ok {
			kinds(e.val, "collect.kinds")
		}
		if e, ok := f.get("wait_interval"); ok {
			if v, ok := d.duration(e.val, "collect.wait_interval"); ok {
				if v < 10*time.Millisecond || v > time.Second {
					d.problem(e.val, "collect.wait_interval", "%v is out of range: use 10ms to 1s", v)
				} else {
					c.WaitInterval = v
				}
			}
		}
		if e, ok := f.get("wait_source"); ok {
			if v, ok := d.oneOf(e.val, "collect.wait_source", collect.WaitSourceAuto, collect.WaitSourceActivity, collect.WaitSourceProfile, "pg_stat_activity"); ok {
				if v == "pg_stat_activity" {
					v = collect.WaitSourceActivity
				}
				c.WaitSource = v
			}
		}
	default:
		kinds(n, "collect")
	}
}

// crossChecks are the rules between sections: the load model, search,
// SLOs, the window, injections and restarts.
func (d *decoder) crossChecks(s *Spec) {
	l := &s.Load
	_, searchGiven := d.marks["search"]
	rateKey, closedKey, rampKey := d.marks["load.rate"], d.marks["load.closed"], d.marks["load.ramp"]
	closedOn := closedKey != nil && l.Closed
	if !closedOn {
		closedKey = nil // closed: false is no model, so it conflicts with nothing
	}
	given := []*yaml.Node{}
	for _, k := range []*yaml.Node{rateKey, closedKey, rampKey} {
		if k != nil {
			given = append(given, k)
		}
	}
	switch {
	case searchGiven:
		why := map[string]string{
			"rate":   "rate and search exclude each other: the search chooses the rates itself",
			"closed": "closed and search exclude each other: the search runs the closed model for the ceiling, then the open model",
			"ramp":   "ramp and search exclude each other: a search finds one rate, a ramp steps through given levels",
		}
		for _, k := range given {
			d.problem(k, child("load", k.Value), "%s", why[k.Value])
		}
	case len(given) == 0:
		line, col, path := 1, 1, ""
		if k := d.marks["load"]; k != nil {
			line, col, path = k.Line, k.Column, "load"
		}
		d.problemAt(line, col, path, "choose the load model: rate: N (open model: latency counts from the scheduled start), "+
			"closed: true (each client loops; its latency understates what users see), ramp: {…}, or a capacity search (search:)")
	case len(given) > 1:
		names := make([]string, len(given))
		for i, k := range given {
			names[i] = k.Value
		}
		last := given[len(given)-1]
		d.problem(last, child("load", last.Value), "%s exclude each other: choose one load model", strings.Join(names, " and "))
	}
	closedModel := s.Search == nil && (l.Closed || l.Ramp != nil && l.Ramp.By == RampClients)
	if closedModel {
		for _, k := range []string{"arrival", "overload"} {
			if key := d.marks["load."+k]; key != nil {
				d.problem(key, "load."+k, "applies to the open model (rate, ramp by rate or search), not to the closed model")
			}
		}
		if key := d.marks["slo"]; key != nil && len(s.SLOs) > 0 {
			d.problem(key, "slo", "SLOs need the open model (rate, ramp by rate or search): a closed model's latency understates what users see")
		}
	}
	if r := l.Ramp; r != nil && r.By == RampClients {
		if key := d.marks["load.clients"]; key != nil {
			d.problem(key, "load.clients", "a ramp by clients sets the clients of each step: leave clients out")
		}
		l.Clients = 0
	}
	if key := d.marks["protocol.window"]; key != nil && rampKey != nil {
		d.problem(key, "protocol.window", "a ramp measures each step for ramp.step_duration: give that instead of a window")
	}
	// Injections fit the measured window when it is known now.
	if measured := s.Measured(s.Protocol.Window); measured > 0 {
		d.checkInjections(s, measured)
	}
}

// checkInjections reports injections that start or end after the measured
// phase of length measured.
func (d *decoder) checkInjections(s *Spec, measured time.Duration) {
	for _, inj := range s.Injections {
		path := index("injections", inj.index)
		switch {
		case inj.At >= measured:
			d.problemAt(inj.atPos.Line, inj.atPos.Column, child(path, "at"), "%v is after the end of the measured window (%v): nothing would measure it", inj.At, measured)
		case inj.End() > measured:
			d.problemAt(inj.durPos.Line, inj.durPos.Column, child(path, "duration"), "the lock would be held until %v, after the end of the measured window (%v)", inj.End(), measured)
		}
	}
}
