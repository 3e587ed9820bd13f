package experiment

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/gate"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/serverctl"
)

// Defaults of keys the file leaves out.
const (
	DefaultWarmup         = 30 * time.Second
	DefaultRepeats        = 3 // one variant (or a ramp, a search)
	DefaultCompareRepeats = 5 // per variant when variants are compared at a fixed load
	DefaultClients        = 4
	DefaultInterval       = time.Second
	DefaultWaitInterval   = 100 * time.Millisecond
	DefaultCeilingRepeats = 3
	DefaultBracketRepeats = 3
	DefaultPrecision      = 0.05
	DefaultMaxSteps       = 8
	DefaultVariant        = "baseline"
	// DefaultCalibrationRuns is the A/A runs of the first variant that
	// protocol.calibrate (or --calibrate) makes when it gives no number.
	DefaultCalibrationRuns = 4
	// MinCalibrationRuns is the fewest calibration runs: two values give a
	// standard deviation with one degree of freedom, which is no estimate.
	MinCalibrationRuns = 3
	// MaxAdjustedRepeats caps the repeats that calibrate's adjust sets.
	MaxAdjustedRepeats = 30
	DefaultBuiltin     = "tpcb-like"

	// MinWindow is the shortest default window: 60 s, however short
	// checkpoint_timeout is.
	MinWindow = 60 * time.Second
)

// Limits that keep bad input from asking for absurd work.
const (
	maxFileSize  = 1 << 20 // bytes of an experiment file
	maxNodes     = 200_000 // YAML nodes visited, aliases and merges expanded
	maxMergeNest = 32      // merge keys within merged mappings
	maxRampSteps = 1000
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
	Scenarios   []ScenarioSpec // concurrent scenarios (spec_scenarios.go); nil: the workload and load sections' one
	Protocol    Protocol
	Variants    []Variant // at least one
	Injections  []Injection
	SLOs        []SLO
	Gate        []gate.Rule   // gate: the CI gate's rules (spec_gate.go); nil: none
	Search      *Search       // nil: no capacity search
	Seed        *uint64       // nil: the runner chooses one and records it
	Interval    time.Duration // recorded intervals
	Collect     Collect
	Data        Data // what is done to the tables before the runs (spec_data.go)
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
	// TPCCMode is builtin tpcc's mode, "throughput" or "spec" (tpcc.Mode*);
	// "" for another workload. Warehouses is the warehouse count the file
	// asks for (0: the database's, from tpcc_meta).
	TPCCMode   string
	Warehouses int

	tpccModeGiven string // the decoder's: workload.mode as written, until checkTPCCKeys
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
	// Segments runs each run as that many segments of its load
	// (`run --segment i/n`), started at one instant in this process and
	// merged into the run's directory (internal/merge), as that many
	// generators would; 0 or 1: one generator.
	Segments int
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
	// Primary is the metric the variants' comparison is about ("" : the
	// first SLO's quantile, else compare.PrimaryFor the model); Margin the
	// equivalence margin (0: stats.DefaultMargin).
	Primary string
	Margin  float64
	// Calibrate is the A/A calibration before the runs (Runs 0: none).
	Calibrate Calibrate
}

// Calibrate is protocol.calibrate (or --calibrate): Runs A/A runs of the
// first variant, with the protocol's warm-up and window, before the real
// runs, to measure the run-to-run spread of the primary metric and the
// repeats a side that would detect the equivalence margin (calibrate.go).
type Calibrate struct {
	Runs int // 0: no calibration; else at least MinCalibrationRuns
	// Adjust raises protocol.repeats to the runs needed (at most
	// MaxAdjustedRepeats) when they are fewer; without it the runner warns.
	Adjust bool
}

// PrimaryMetrics are the metrics protocol.primary may name.
var PrimaryMetrics = []string{"tps", "p50", "p95", "p99", "p99.9", "max"}

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
		return time.Duration(r.Steps) * r.Step(window)
	}
	return window
}

// Step is the measured time of each level: StepDuration, or the protocol's
// window when the ramp gives none.
func (r *Ramp) Step(window time.Duration) time.Duration {
	if r.StepDuration == 0 {
		return window
	}
	return r.StepDuration
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

// InjectionKind is what an injection does: serverctl's, which carries it out.
type InjectionKind = serverctl.InjectionKind

// The kinds of injection.
const (
	InjectLock       = serverctl.InjectLock       // LOCK TABLE … IN ACCESS EXCLUSIVE MODE for Duration
	InjectCheckpoint = serverctl.InjectCheckpoint // CHECKPOINT
	InjectVacuum     = serverctl.InjectVacuum     // VACUUM [table]
)

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
	Quantile float64       // one of metrics.Quantiles: 0.5, 0.9, 0.95, 0.99 or 0.999
	Limit    time.Duration // > 0
	AtRate   float64       // tx/s; 0: at the load's rate(s)
	Pos      Pos
}

// Key is the quantile's key in the file: p50, p90, p95, p99 or p99.9
// (metrics.Quantiles).
func (s SLO) Key() string {
	if name, ok := metrics.QuantileName(s.Quantile); ok {
		return name
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

// Search is a capacity search.
type Search struct {
	SLO            SLO       // AtRate is 0: the search finds the rate
	Fractions      []float64 // of the closed-model ceiling, increasing, in (0, 1]
	CeilingRepeats int       // closed-model runs for the ceiling
	BracketRepeats int       // runs at each end of the capacity interval
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
