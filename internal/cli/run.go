package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgbenchfmt"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// runOptions are `pgtrial run`'s flags.
type runOptions struct {
	url             string
	scripts         []scriptSpec // -b and -f in command-line order
	clients         int
	threads         int
	rate            float64
	closed          bool
	arrival         string
	overload        string
	duration        durationFlag
	transactions    int64
	warmup          durationFlag
	latencyLimit    durationFlag
	protocol        string
	maxTries        int
	defines         []string
	seed            string
	perCommand      bool
	txlog           bool
	interval        durationFlag
	runDir          string
	json            bool
	quiet           bool
	continueOnError bool
	collect         collectOptions
}

// scriptSpec is one -b NAME[@W] or -f FILE[@W].
type scriptSpec struct {
	builtin bool
	arg     string
}

// scriptFlag appends -b or -f values to one list, so that their order (the
// scripts' numbers, and which random draws choose them) is the command
// line's, as in pgbench.
type scriptFlag struct {
	list    *[]scriptSpec
	builtin bool
}

func (f scriptFlag) String() string { return "" }
func (f scriptFlag) Type() string {
	if f.builtin {
		return "NAME[@W]"
	}
	return "FILE[@W]"
}
func (f scriptFlag) Set(s string) error {
	*f.list = append(*f.list, scriptSpec{builtin: f.builtin, arg: s})
	return nil
}

// durationFlag is a duration in Go syntax (90s, 2m, 1m30s, 250ms); a bare
// number is in the flag's unit (pgbench's: seconds for -T, milliseconds for
// -L), so pgbench habits work.
type durationFlag struct {
	d    time.Duration
	unit time.Duration
	name string
}

func (f *durationFlag) String() string { return f.d.String() }
func (f *durationFlag) Type() string   { return "duration" }
func (f *durationFlag) Set(s string) error {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil {
		v, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || v != v {
			return fmt.Errorf("invalid duration %q: use Go syntax such as 90s, 2m, 1m30s or 250ms (a bare number is %s)", s, unitName(f.unit))
		}
		d = time.Duration(v * float64(f.unit))
	}
	if d < 0 {
		return fmt.Errorf("invalid duration %q: it must not be negative", s)
	}
	f.d = d
	return nil
}

func unitName(u time.Duration) string {
	if u == time.Millisecond {
		return "milliseconds"
	}
	return "seconds"
}

const runLong = `run measures one workload against a PostgreSQL server and writes a run directory
(run.json, latency.hlog, timeline.csv, events.jsonl); it prints a summary.

The load model must be chosen explicitly:
  --rate N   open model: transactions arrive on a schedule at N per second, whether or
             not the server keeps up; response time is measured from the scheduled
             start, so a stalled server shows in the latency (no coordinated omission).
  --closed   closed model: each client starts its next transaction when the last one
             ends. Its latency understates what users see: the mean is clients/tps
             (Little's law), and a stall lowers the load instead of showing as latency.

Timing: the run first warms up for --warmup (default 10s; recorded with phase
"warmup" but excluded from the summary), then measures for -T (default 60s), so it
lasts about warm-up + duration. With -t the run ends after that many transactions per
client, warm-up included.

Workload: a built-in script (-b; tpcb-like, simple-update, select-only; any
unambiguous prefix) or pgbench-language script files (-f), each with an optional
@WEIGHT for the mix (default 1). Built-in scripts need the pgbench tables ("pgtrial
init"); the scale is read from pgbench_branches.

Target: a postgres:// URL, a key=value connection string or a database name, as the
argument or --url; by default the local cluster "default" ("pgtrial local"), which is
started if it is not running.

Output: the summary per script and in total (committed, tps, response/service/lag
percentiles in ms, skipped, dropped, failed by class, retried, with their shares,
target versus achieved rate) and the run directory (default
./pgtrial-runs/<time>-<workload>). A status line every --interval on stderr. --json
prints the summary as JSON instead.

Interrupting (SIGINT, SIGTERM): queries in flight are cancelled, everything measured so
far is written and the run is marked interrupted; a second signal exits at once.

Exit status: 0 success; 1 bad input or setup; 2 the run was interrupted or clients
aborted.`

func newRunCommand(info BuildInfo) *cobra.Command {
	o := &runOptions{
		clients:      4,
		threads:      0, // auto: min(clients, CPUs)
		arrival:      "poisson",
		overload:     "queue",
		duration:     durationFlag{d: 60 * time.Second, unit: time.Second},
		warmup:       durationFlag{d: 10 * time.Second, unit: time.Second},
		latencyLimit: durationFlag{unit: time.Millisecond},
		interval:     durationFlag{d: time.Second, unit: time.Second},
		protocol:     "prepared",
		maxTries:     1,
	}
	cmd := &cobra.Command{
		Use:   "run [flags] [URL]",
		Short: "Run one measured workload (open or closed model) and write a run directory",
		Long:  runLong,
		Example: `  pgtrial init -s 10
  pgtrial run --rate 500 -c 8 -T 5m
  pgtrial run postgres://bench@db1/bench -b select-only --rate 2000 -c 32 -j 4 --warmup 1m
  pgtrial run --closed -f mix.sql@9 -b tpcb-like@1 -T 2m --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if o.url != "" {
					return errors.New("give the server either as an argument or with --url, not both")
				}
				o.url = args[0]
			}
			return runRun(cmd.Context(), o, cmd.Flags().Changed, info, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.url, "url", "", `connection string (postgres:// URL or key=value) or database name; default: the local cluster "default"`)
	f.VarP(scriptFlag{list: &o.scripts, builtin: true}, "builtin", "b", "built-in script NAME (tpcb-like, simple-update, select-only; a prefix works) with optional @WEIGHT; repeatable (default tpcb-like)")
	f.VarP(scriptFlag{list: &o.scripts}, "file", "f", "pgbench-language script FILE with optional @WEIGHT; repeatable")
	f.IntVarP(&o.clients, "clients", "c", o.clients, "clients (connections)")
	f.IntVarP(&o.threads, "threads", "j", o.threads, "client threads (groups), each polling its clients' sockets with its own arrival schedule at rate/threads; 0 = min(clients, CPUs)")
	f.Float64VarP(&o.rate, "rate", "R", 0, "open model: target transactions per second (all clients together)")
	f.BoolVar(&o.closed, "closed", false, "closed model: each client runs its next transaction when the last ends")
	f.StringVar(&o.arrival, "arrival", o.arrival, `open model: arrival process, "poisson" or "uniform"`)
	f.StringVar(&o.overload, "overload", o.overload, `open model: a slot with no free client "queue"s (its latency grows) or is "drop"ped (counted)`)
	f.VarP(&o.duration, "duration", "T", "length of the measured phase, after the warm-up (Go syntax: 90s, 5m; a bare number is seconds)")
	f.Int64VarP(&o.transactions, "transactions", "t", 0, "instead of -T: transactions per client (warm-up included)")
	f.Var(&o.warmup, "warmup", "warm-up before the measured phase: recorded, excluded from the summary")
	f.VarP(&o.latencyLimit, "latency-limit", "L", "count transactions slower than this as late; with --rate, skip slots already later than it (a bare number is ms)")
	f.StringVarP(&o.protocol, "protocol", "M", o.protocol, `query protocol: "simple", "extended" or "prepared"`)
	f.IntVar(&o.maxTries, "max-tries", o.maxTries, "tries of a transaction that fails with a serialization failure or deadlock (0: unlimited; needs -T or -L)")
	f.BoolVar(&o.continueOnError, "continue-on-error", false, "count other SQL errors as failed transactions (class \"other\") instead of aborting the client")
	f.StringArrayVarP(&o.defines, "define", "D", nil, "script variable NAME=VALUE; repeatable")
	f.StringVar(&o.seed, "random-seed", "", `seed of the random streams: an unsigned integer, "time" or "rand" (default: time); recorded in events.jsonl`)
	f.BoolVarP(&o.perCommand, "report-per-command", "r", false, "also report per-command latency, failures and retries")
	f.BoolVar(&o.txlog, "txlog", false, "also log every transaction in pgbench's -l format, in the run directory's txlog/")
	f.Var(&o.interval, "interval", "length of the recorded intervals (timeline rows, histograms, status line)")
	f.StringVar(&o.runDir, "run-dir", "", "run directory (default ./pgtrial-runs/<time>-<workload>)")
	f.BoolVar(&o.json, "json", false, "print the summary as JSON on stdout (nothing else goes to stdout)")
	f.BoolVar(&o.quiet, "quiet", false, "no status line")
	o.collect.addFlags(f)
	// -h stays help here: run has no -h/--host (use the URL).
	return cmd
}

// runScript is one validated script of the workload.
type runScript struct {
	name    string // builtin name or file path: the summary's and the tags' name
	builtin bool
	weight  int
	parsed  *script.Script
}

// runPlan is a validated run, before connecting.
type runPlan struct {
	scripts      []runScript
	workload     string
	mode         script.Mode
	arrival      engine.Arrival
	overload     engine.Overload
	seed         prng.Seed
	vars         [][2]string
	threads      int
	warnings     []string
	needsPgbench bool
}

// planRun checks the options without connecting: everything a user can get
// wrong on the command line is an error here, before anything is created.
func planRun(o *runOptions, changed func(string) bool) (*runPlan, error) {
	p := &runPlan{}
	if err := o.collect.check(); err != nil {
		return nil, err
	}
	switch {
	case changed("rate") && o.closed:
		return nil, errors.New("--rate and --closed exclude each other: choose the open model (--rate N) or the closed model (--closed)")
	case !changed("rate") && !o.closed:
		return nil, errors.New("choose the load model: --rate N (open model: transactions arrive at N per second; " +
			"latency counts from the scheduled start) or --closed (each client loops). pgtrial has no default " +
			"because a closed model's latency understates what users see: by Little's law its mean is clients/tps, " +
			"and a stalled server lowers the load instead of showing as latency")
	case changed("rate") && !(o.rate > 0) || o.rate > 1e9:
		return nil, fmt.Errorf("invalid --rate %v: it must be a positive number of transactions per second", o.rate)
	}
	if o.closed {
		for _, name := range []string{"arrival", "overload"} {
			if changed(name) {
				return nil, fmt.Errorf("--%s applies to the open model (--rate N), not to --closed", name)
			}
		}
	}
	switch strings.ToLower(o.arrival) {
	case "poisson":
		p.arrival = engine.Poisson
	case "uniform":
		p.arrival = engine.Uniform
	default:
		return nil, fmt.Errorf("invalid --arrival %q: expecting \"poisson\" or \"uniform\"", o.arrival)
	}
	switch strings.ToLower(o.overload) {
	case "queue":
		p.overload = engine.Queue
	case "drop":
		p.overload = engine.Drop
	default:
		return nil, fmt.Errorf("invalid --overload %q: expecting \"queue\" or \"drop\"", o.overload)
	}
	if o.clients < 1 {
		return nil, fmt.Errorf("invalid --clients %d: at least 1 client is needed", o.clients)
	}
	if o.threads < 0 {
		return nil, fmt.Errorf("invalid --threads %d: give at least 1, or 0 for one per CPU", o.threads)
	}
	p.threads = o.threads
	if p.threads == 0 {
		// One thread per CPU at most: a single thread polling every client
		// would cap the load generator at one core.
		p.threads = min(o.clients, runtime.NumCPU())
	}
	if p.threads > o.clients {
		p.threads = o.clients
		p.warnings = append(p.warnings, fmt.Sprintf("--threads %d is more than --clients %d; using %d threads", o.threads, o.clients, p.threads))
	}
	if changed("duration") && changed("transactions") {
		return nil, errors.New("give either -T/--duration or -t/--transactions, not both")
	}
	if changed("transactions") {
		if o.transactions < 1 {
			return nil, fmt.Errorf("invalid --transactions %d: at least 1 per client is needed", o.transactions)
		}
	} else {
		o.transactions = 0
		if o.duration.d < time.Millisecond {
			return nil, fmt.Errorf("invalid --duration %v: the measured phase needs a positive length, e.g. -T 60s", o.duration.d)
		}
	}
	if o.interval.d < 10*time.Millisecond {
		return nil, fmt.Errorf("invalid --interval %v: use at least 10ms (the default is 1s)", o.interval.d)
	}
	if o.warmup.d > 0 && o.transactions == 0 && o.warmup.d > o.duration.d {
		p.warnings = append(p.warnings, fmt.Sprintf("the warm-up (%v) is longer than the measured phase (%v)", o.warmup.d, o.duration.d))
	}
	if o.maxTries < 0 {
		return nil, fmt.Errorf("invalid --max-tries %d: use 1 or more, or 0 for unlimited", o.maxTries)
	}
	if o.maxTries == 0 && o.transactions > 0 && o.latencyLimit.d == 0 {
		return nil, errors.New("--max-tries 0 (unlimited) needs -T/--duration or -L/--latency-limit: a transaction could retry forever")
	}
	mode, ok := script.ParseMode(strings.ToLower(o.protocol))
	if !ok {
		return nil, fmt.Errorf("invalid --protocol %q: expecting \"simple\", \"extended\" or \"prepared\"", o.protocol)
	}
	p.mode = mode
	for _, d := range o.defines {
		name, value, ok := strings.Cut(d, "=")
		if !ok {
			return nil, fmt.Errorf("invalid -D %q: expecting NAME=VALUE", d)
		}
		if !script.ValidVarName(name) {
			return nil, fmt.Errorf("invalid -D %q: %q is not a valid variable name (letters, digits, '_'; not starting with a digit)", d, name)
		}
		p.vars = append(p.vars, [2]string{name, value})
	}
	if o.seed == "" || o.seed == "time" {
		p.seed = prng.TimeSeed()
	} else {
		s, err := prng.ParseSeed(o.seed)
		if err != nil {
			return nil, fmt.Errorf("invalid --random-seed %q: expecting an unsigned integer, \"time\" or \"rand\"", o.seed)
		}
		p.seed = s
	}

	specs := o.scripts
	if len(specs) == 0 {
		specs = []scriptSpec{{builtin: true, arg: "tpcb-like"}}
	}
	var total int64
	var names []string
	for _, sp := range specs {
		rs, err := loadRunScript(sp)
		if err != nil {
			return nil, err
		}
		if rs.builtin {
			p.needsPgbench = true
		}
		total += int64(rs.weight)
		p.scripts = append(p.scripts, rs)
		names = append(names, workloadPart(rs))
	}
	if len(p.scripts) > 128 {
		return nil, errors.New("at most 128 scripts are allowed")
	}
	if total == 0 {
		return nil, errors.New("the scripts' weights add up to 0: give at least one script a positive @WEIGHT")
	}
	p.workload = strings.Join(names, "+")
	prep := 0
	for _, rs := range p.scripts {
		var err error
		if prep, err = rs.parsed.Prepare(p.mode, prep); err != nil {
			return nil, fmt.Errorf("script %s: %w", rs.name, err)
		}
	}
	return p, nil
}

// loadRunScript parses one -b or -f value.
func loadRunScript(sp scriptSpec) (runScript, error) {
	arg, weight := sp.arg, 1
	if i := strings.LastIndexByte(arg, '@'); i >= 0 {
		w, err := strconv.ParseInt(arg[i+1:], 10, 32)
		if err != nil || w < 0 {
			return runScript{}, fmt.Errorf("invalid weight in %q: expecting NAME@WEIGHT with WEIGHT an integer 0..2147483647", sp.arg)
		}
		arg, weight = arg[:i], int(w)
	}
	var name, desc, src string
	if sp.builtin {
		bi, n := workload.FindBuiltin(arg)
		if n != 1 {
			var avail []string
			for _, b := range workload.BuiltinScripts {
				avail = append(avail, b.Name)
			}
			what := "no built-in script"
			if n > 1 {
				what = "ambiguous built-in script name"
			}
			return runScript{}, fmt.Errorf("%s %q: choose one of %s (any unambiguous prefix), or give a script file with -f", what, arg, strings.Join(avail, ", "))
		}
		name, desc, src = bi.Name, bi.Desc, bi.Script
	} else {
		if arg == "" {
			return runScript{}, errors.New("-f needs a file name")
		}
		data, err := os.ReadFile(arg)
		if err != nil {
			return runScript{}, fmt.Errorf("read script: %w", err)
		}
		name, desc, src = arg, arg, string(data)
	}
	parsed, err := script.Parse(desc, src)
	if err != nil {
		var pe *script.ParseError
		if errors.As(err, &pe) && pe.AtLine > 0 {
			return runScript{}, fmt.Errorf("%v (at %s)", err, pe.Where())
		}
		return runScript{}, err
	}
	if len(parsed.Commands) == 0 {
		return runScript{}, fmt.Errorf("script %s has no commands", name)
	}
	if err := parsed.CheckConditionals(); err != nil {
		if ce, ok := err.(*script.ConditionError); ok {
			return runScript{}, fmt.Errorf("%v (at %s)", err, ce.Where())
		}
		return runScript{}, err
	}
	return runScript{name: name, builtin: sp.builtin, weight: weight, parsed: parsed}, nil
}

// workloadPart names a script in the workload name: a builtin by its name, a
// file by its base name without extension.
func workloadPart(rs runScript) string {
	if rs.builtin {
		return rs.name
	}
	base := filepath.Base(rs.name)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// resultSettings are the server settings recorded in run.json because they
// shape the results.
var resultSettings = []string{
	"shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem",
	"max_connections", "synchronous_commit", "fsync", "full_page_writes", "wal_level",
	"wal_buffers", "wal_compression", "commit_delay", "checkpoint_timeout",
	"checkpoint_completion_target", "max_wal_size", "min_wal_size", "autovacuum",
	"default_transaction_isolation", "random_page_cost", "effective_io_concurrency",
	"jit", "huge_pages", "max_parallel_workers_per_gather", "track_io_timing",
	"shared_preload_libraries", "data_checksums", "server_version_num",
}

// runTarget is what the setup connection learned.
type runTarget struct {
	target results.Target
	scale  int
	local  string // the local cluster's name when it was the default target
}

// signalState is the run's signal handling: the first SIGINT/SIGTERM cancels
// the context, the second exits at once.
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

// exitNow ends the process on a second signal (a variable for tests).
var exitNow = os.Exit

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

func runRun(ctx context.Context, o *runOptions, changed func(string) bool, info BuildInfo, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	plan, err := planRun(o, changed)
	if err != nil {
		return err
	}
	out := &liveOut{w: stderr, tty: isTerminal(stderr)}

	// Signals from here on: during setup they cancel the setup.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sigs := &signalState{}
	sigCh := make(chan os.Signal, 2)
	signal.Notify(sigCh, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigCh)
	runDone := make(chan struct{})
	defer close(runDone)
	go func() {
		select {
		case sig := <-sigCh:
			sigs.mu.Lock()
			sigs.reason, sigs.at = signalName(sig), time.Now()
			sigs.mu.Unlock()
			out.println(fmt.Sprintf("pgtrial: %s: stopping; queries in flight are cancelled and the results so far written (send it again to exit at once)", signalName(sig)))
			cancel()
		case <-runDone:
			return
		}
		select {
		case sig := <-sigCh:
			out.println(fmt.Sprintf("pgtrial: second signal (%s): exiting at once; run.json may not be final", signalName(sig)))
			exitNow(exitRunFail)
		case <-runDone:
		}
	}()
	interruptedErr := func(what string) error {
		reason, _ := sigs.get()
		return &exitError{code: exitRunFail, err: fmt.Errorf("interrupted by %s %s", reason, what)}
	}

	connString, tgt, err := resolveRunTarget(ctx, o.url, out)
	if err != nil {
		if r, _ := sigs.get(); r != "" {
			return interruptedErr("before the run started; nothing was measured")
		}
		return err
	}
	pgcfg, err := pgconn.ParseConfig(connString)
	if err != nil {
		return fmt.Errorf("invalid connection string: %w", err)
	}
	if err := inspectTarget(ctx, connString, pgcfg, plan, tgt); err != nil {
		if r, _ := sigs.get(); r != "" {
			return interruptedErr("before the run started; nothing was measured")
		}
		return err
	}

	// The run directory: everything below is recorded.
	dirPath := o.runDir
	if dirPath == "" {
		dirPath = defaultRunDir(time.Now(), plan.workload)
	}
	if fi, err := os.Stat(filepath.Join(dirPath, results.RunFile)); err == nil && !fi.IsDir() {
		return fmt.Errorf("run directory %s already holds a run; choose a new --run-dir", dirPath)
	}
	_, statErr := os.Stat(dirPath)
	dirExisted := statErr == nil

	names := make([]string, len(plan.scripts))
	weights := make([]int, len(plan.scripts))
	programs := make([]*script.Script, len(plan.scripts))
	ncmds := make([]int, len(plan.scripts))
	wl := results.Workload{Name: plan.workload}
	for i, rs := range plan.scripts {
		names[i], weights[i], programs[i] = rs.name, rs.weight, rs.parsed
		ncmds[i] = len(rs.parsed.Commands)
		wl.Scripts = append(wl.Scripts, results.ScriptWeight{Name: rs.name, Weight: rs.weight})
	}
	if plan.needsPgbench {
		wl.Scale = tgt.scale
	}
	model := results.Model{
		Kind:           results.ModelClosed,
		Clients:        o.clients,
		Threads:        plan.threads,
		LatencyLimitMs: float64(o.latencyLimit.d) / float64(time.Millisecond),
		Transactions:   o.transactions,
	}
	if o.transactions == 0 {
		model.DurationS = o.duration.d.Seconds()
	}
	if !o.closed {
		model.Kind = results.ModelOpen
		model.Rate = o.rate
		model.Arrival = plan.arrival.String()
		model.Overload = plan.overload.String()
	}
	warnings := append([]string(nil), plan.warnings...)
	if plan.needsPgbench && tgt.scale < o.clients && strings.Contains(plan.workload, "tpcb-like") {
		warnings = append(warnings, fmt.Sprintf("scale %d is below the %d clients: tpcb-like's branch updates contend on a lock, which the results will show", tgt.scale, o.clients))
	}
	commit := info.Commit
	if commit == "" {
		commit = vcsRevision()
	}
	run := &results.Run{
		Tool:        results.Tool{Name: "pgtrial", Version: info.Version, Commit: commit, Go: runtime.Version()},
		CommandLine: results.RedactArgs(os.Args),
		StartedAt:   time.Now(),
		Target:      tgt.target,
		Workload:    wl,
		Model:       model,
		Warnings:    warnings,
	}
	dir, err := results.Create(dirPath, run)
	if err != nil {
		return err
	}

	// The collectors sample from now on, on the run's clock; they are
	// stopped on every way out (a second Stop is a no-op).
	collector, err := startCollectors(ctx, &o.collect, connString, pgcfg, dir, run, o.interval.d)
	if err != nil {
		run.Warnings = append(run.Warnings, "collectors not started: "+err.Error())
		out.println("pgtrial: warning: collectors not started: " + err.Error())
	}
	if collector != nil {
		defer func() { collector.Stop(context.Background(), time.Now()) }()
	}

	layout := metrics.Layout{Scripts: len(programs), LatencyLimit: int64(o.latencyLimit.d / time.Microsecond)}
	if o.perCommand {
		layout.Commands = ncmds
	}
	set := metrics.NewSet(o.clients, layout)
	rec := newRunRecorder(runRecorderConfig{
		Set:         set,
		Dir:         dir,
		ScriptNames: names,
		Interval:    o.interval.d,
		Warmup:      o.warmup.d,
		OnWriteError: func(err error) {
			out.println("pgtrial: warning: " + err.Error())
		},
	})
	// pgtrial's own CPU over the measured phase (getrusage at its start and
	// at the end): the checklist's load-generator check, exact and whatever
	// host the server is on.
	var cpuMu sync.Mutex
	var cpuAtMeasure time.Duration
	cpuOK := false
	rec.cfg.OnPhase = func(phase string, at time.Time) {
		if phase == results.PhaseMeasure {
			cpuMu.Lock()
			cpuAtMeasure, cpuOK = processCPU()
			cpuMu.Unlock()
		}
		if collector != nil {
			collector.Mark(phase, at)
		}
	}
	if !o.quiet {
		rec.cfg.OnInterval = func(t *runTick) { out.status(statusLine(t, o.rate)) }
	}

	// Finish run.json on every way out from here.
	var finishOnce sync.Once
	var finishErr error
	finish := func() {
		finishOnce.Do(func() {
			run.EndedAt = time.Now()
			finishErr = dir.Finish(run)
		})
	}
	defer finish()

	// Everything not in run.json's schema that a rerun needs.
	defines := map[string]string{}
	for _, v := range plan.vars {
		defines[v[0]] = v[1]
	}
	config := map[string]any{
		"random_seed":       strconv.FormatUint(plan.seed.Value, 10),
		"protocol":          plan.mode.String(),
		"max_tries":         o.maxTries,
		"warmup_s":          o.warmup.d.Seconds(),
		"interval_s":        o.interval.d.Seconds(),
		"reconnect":         true,
		"per_command":       o.perCommand,
		"continue_on_error": o.continueOnError,
	}
	if len(defines) > 0 {
		config["variables"] = defines
	}
	if err := dir.Event(results.Event{Kind: "config", Message: "run configuration beyond run.json's model", Data: config}); err != nil {
		out.println("pgtrial: warning: " + err.Error())
	}

	if !o.quiet {
		out.println(describeStart(plan, o, tgt, dirPath))
	}

	vars := make([]scriptVar, len(plan.vars))
	for i, v := range plan.vars {
		vars[i] = scriptVar{v[0], v[1]}
	}
	streams := prng.Derive(plan.seed.Value, o.clients, plan.threads, definesVar(vars, "default_seed"))
	scale := tgt.scale
	if !plan.needsPgbench {
		scale = 1
	}
	setup := clientSetup(vars, scale, streams)
	logger := &runLog{out: out, rec: rec, seen: map[string]*logSeen{}}
	cfg := &engine.Config{
		Program:         script.NewProgram(programs...),
		ScriptNames:     names,
		Weights:         weights,
		Mode:            plan.mode,
		Conn:            pgcfg,
		Clients:         o.clients,
		Groups:          plan.threads,
		Transactions:    o.transactions,
		MaxTries:        uint32(o.maxTries),
		LatencyLimit:    o.latencyLimit.d,
		Arrival:         plan.arrival,
		Overload:        plan.overload,
		ContinueOnError: o.continueOnError,
		Reconnect:       true,
		PerCommand:      o.perCommand,
		Log:             logger,
		// \shell output: stdout is the summary's (and only JSON with --json).
		Stdout:  &lockedWriter{w: stderr},
		Stderr:  &lockedWriter{w: stderr},
		Streams: streams,
		Setup:   setup,
		Metrics: set,
		OnStart: rec.Start,
		OnNotice: func(n *pgconn.Notice) {
			logger.Info(fmt.Sprintf("%s: %s", n.Severity, n.Message))
		},
	}
	if o.txlog {
		logs, err := openRunTxLogs(dirPath, o, plan.threads, streams)
		if err != nil {
			return err
		}
		defer func() {
			for _, l := range logs {
				if err := l.Close(); err != nil {
					out.println("pgtrial: warning: " + err.Error())
				}
			}
		}()
		cfg.OnTx = func(client, group int, txNo int64, tx *metrics.Tx, end time.Time) {
			logs[group].Log(client, txNo, tx, end)
		}
	}
	if o.transactions == 0 {
		cfg.Duration = o.warmup.d + o.duration.d
	}
	if !o.closed {
		cfg.Rate = o.rate
	}

	res, runErr := engine.Run(ctx, cfg)
	end := time.Now()
	if res != nil && !res.End.IsZero() {
		end = res.End
	}
	measure, writeErr := rec.Stop(end)
	cpuAtEnd, cpuEndOK := processCPU()
	out.end()
	logger.flush()
	reason, sigAt := sigs.get()

	if !rec.Started() {
		// The clients never got to run: nothing was measured.
		if collector != nil {
			collector.Stop(context.Background(), end)
		}
		dir.Close()
		finishOnce.Do(func() {})
		removeRunDir(dirPath, dirExisted)
		if reason != "" {
			return interruptedErr("before the run started; nothing was measured")
		}
		var ice *engine.InitialConnectError
		if errors.As(runErr, &ice) {
			return fmt.Errorf("client %d could not connect: %w\nhint: the server may have too few connections for %d clients (max_connections %s), or be unreachable",
				ice.Client, ice.Err, o.clients, tgt.target.Settings["max_connections"])
		}
		if runErr == nil {
			runErr = errors.New("the run did not start")
		}
		return runErr
	}

	interrupted := reason != "" || (res != nil && res.Interrupted)
	if interrupted {
		if reason == "" {
			reason = "cancellation"
		}
		if sigAt.IsZero() {
			sigAt = end
		}
		rec.Interrupted(sigAt, reason)
		run.Interrupted, run.InterruptReason = true, reason
	}
	aborted := 0
	if res != nil {
		aborted = res.Aborted
	}
	if aborted > 0 {
		rec.Aborted(end, aborted, o.clients)
		run.Aborted = true
	}
	if runErr != nil {
		run.Warnings = append(run.Warnings, "engine: "+runErr.Error())
	}
	summary := results.Summarize(measure, names, model.Rate)
	run.Phases = rec.Phases()
	run.Summary = &summary
	if !rec.Measured() {
		run.Warnings = append(run.Warnings, fmt.Sprintf("the run ended during the warm-up (%v): nothing was measured; use a shorter --warmup or a longer run", o.warmup.d))
	}
	if writeErr != nil {
		run.Warnings = append(run.Warnings, "writing the run directory: "+writeErr.Error())
	}
	stopCollectors(collector, run, dirPath, end, o.interval.d)
	cpuMu.Lock()
	if ev := run.Evidence; ev != nil && cpuOK && cpuEndOK {
		if sec := ev.To.Sub(ev.From).Seconds(); sec > 0 {
			ev.ClientCPU = (cpuAtEnd - cpuAtMeasure).Seconds() / sec
		}
	}
	cpuMu.Unlock()
	run.Checks = runChecks(run, dirPath)
	finish()
	if finishErr != nil {
		out.println("pgtrial: warning: " + finishErr.Error())
	}

	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(jsonSummary{Summary: summary, Evidence: run.Evidence, Checks: run.Checks, RunDir: dirPath}); err != nil {
			return err
		}
	} else {
		writeRunSummary(stdout, &summaryView{
			summary:  &summary,
			plan:     plan,
			opts:     o,
			target:   tgt,
			run:      run,
			dir:      dirPath,
			measured: rec.Measured(),
		})
	}

	switch {
	case interrupted:
		return &exitError{code: exitRunFail, err: fmt.Errorf("run interrupted by %s; the results up to then are in %s", reason, dirPath)}
	case aborted > 0:
		return &exitError{code: exitRunFail, err: fmt.Errorf("%d of %d clients aborted (see the messages above); the results are incomplete; they are in %s", aborted, o.clients, dirPath)}
	case runErr != nil:
		return &exitError{code: exitRunFail, err: runErr}
	}
	return nil
}

// jsonSummary is --json's output.
type jsonSummary struct {
	results.Summary
	Evidence *results.Evidence `json:"evidence,omitempty"`
	Checks   []results.Check   `json:"checks,omitempty"`
	RunDir   string            `json:"run_dir"`
}

// resolveRunTarget returns the connection string: the given one, or the
// local cluster "default", started when it is not running.
func resolveRunTarget(ctx context.Context, url string, out *liveOut) (string, *runTarget, error) {
	tgt := &runTarget{}
	if url != "" {
		s, err := connOptions{url: url}.connString()
		return s, tgt, err
	}
	c, err := localpg.Open(localpg.Config{})
	if err != nil {
		return "", nil, fmt.Errorf("no --url given and the local cluster is not usable: %w", err)
	}
	tgt.local = c.Name()
	if !c.Running() {
		what := "starting"
		if !c.Created() {
			what = "creating and starting"
		}
		out.println(fmt.Sprintf("pgtrial: no --url given: %s the local cluster %q (pgtrial local start)", what, c.Name()))
		if _, err := c.Start(ctx); err != nil {
			return "", nil, fmt.Errorf("start the local cluster: %w\nhint: give a server with --url, or see \"pgtrial local --help\"", err)
		}
	}
	return c.URL(""), tgt, nil
}

// inspectTarget connects once: server version and settings for run.json, and
// for built-in scripts the scale from pgbench_branches (as pgbench does).
func inspectTarget(ctx context.Context, connString string, pgcfg *pgconn.Config, plan *runPlan, tgt *runTarget) error {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return fmt.Errorf("invalid connection string: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return fmt.Errorf("%w\nhint: is the server running? Give its address as the argument or with --url, or use the local cluster (\"pgtrial local start\")", err)
	}
	defer conn.Close(context.Background())

	t, err := readTarget(cctx, conn.PgConn(), pgcfg)
	if err != nil {
		return err
	}
	tgt.target = t

	if !plan.needsPgbench {
		return nil
	}
	var scale int64
	err = conn.QueryRow(cctx, "SELECT count(*) FROM pgbench_branches").Scan(&scale)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" {
			return fmt.Errorf("the built-in scripts need the pgbench tables, and database %q has no pgbench_branches\nhint: load them first: pgtrial init -s SCALE --url %s",
				pgcfg.Database, redactedURL(connString))
		}
		return fmt.Errorf("read the scale from pgbench_branches: %w", err)
	}
	if scale < 1 {
		return fmt.Errorf("pgbench_branches in database %q is empty, so there is no scale\nhint: load the tables again: pgtrial init -s SCALE --url %s",
			pgcfg.Database, redactedURL(connString))
	}
	tgt.scale = int(scale)
	return nil
}

// redactedURL is a connection string for messages: passwords removed, quoted
// for a shell when it has blanks.
func redactedURL(s string) string {
	r := results.RedactArgs([]string{s})[0]
	if strings.ContainsAny(r, " \t'\"?&*;|<>()$`\\") {
		return "'" + strings.ReplaceAll(r, "'", `'\''`) + "'"
	}
	return r
}

// defaultRunDir is ./pgtrial-runs/<time>-<workload>, with a -2, -3, …
// suffix when that exists already.
func defaultRunDir(now time.Time, wl string) string {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.', r == '+':
			return r
		}
		return '_'
	}, wl)
	if len(clean) > 64 {
		clean = clean[:64]
	}
	base := filepath.Join("pgtrial-runs", now.Format("20060102-150405")+"-"+clean)
	p := base
	for n := 2; ; n++ {
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
		p = base + "-" + strconv.Itoa(n)
	}
}

// removeRunDir removes what results.Create made when the run never started:
// its files, and the directory unless it existed before (or holds other
// files).
func removeRunDir(dir string, existed bool) {
	for _, name := range []string{results.RunFile, results.LatencyFile, results.TimelineFile, results.EventsFile} {
		os.Remove(filepath.Join(dir, name))
	}
	if !existed {
		os.Remove(dir)
		// Also the default parent (./pgtrial-runs) when it is now empty.
		if filepath.Base(filepath.Dir(dir)) == "pgtrial-runs" {
			os.Remove(filepath.Dir(dir))
		}
	}
}

func describeStart(p *runPlan, o *runOptions, tgt *runTarget, dir string) string {
	var b strings.Builder
	b.WriteString("pgtrial: ")
	b.WriteString(p.workload)
	if p.needsPgbench {
		fmt.Fprintf(&b, " (scale %d)", tgt.scale)
	}
	t := tgt.target
	fmt.Fprintf(&b, " on %s", hostPortDB(t))
	if t.ServerVersion != "" {
		fmt.Fprintf(&b, " (PostgreSQL %s)", t.ServerVersion)
	}
	b.WriteString("; ")
	b.WriteString(modeLine(o, p))
	if o.transactions > 0 {
		fmt.Fprintf(&b, "; %d transactions per client", o.transactions)
	} else {
		fmt.Fprintf(&b, "; %v measured", o.duration.d)
	}
	if o.warmup.d > 0 {
		fmt.Fprintf(&b, " after %v of warm-up", o.warmup.d)
	}
	fmt.Fprintf(&b, "\npgtrial: writing %s", dir)
	return b.String()
}

func hostPortDB(t results.Target) string {
	host := t.Host
	if strings.HasPrefix(host, "/") {
		host = "socket " + host
	}
	return fmt.Sprintf("%s:%d/%s", host, t.Port, t.Database)
}

// modeLine describes the load model in one line.
func modeLine(o *runOptions, p *runPlan) string {
	threads := "thread"
	if p.threads != 1 {
		threads = "threads"
	}
	clients := "client"
	if o.clients != 1 {
		clients = "clients"
	}
	var b strings.Builder
	if o.closed {
		b.WriteString("closed model")
	} else {
		fmt.Fprintf(&b, "open model, %s tx/s (%s arrivals, %s on overload)", fmtRate(o.rate), p.arrival, p.overload)
	}
	fmt.Fprintf(&b, ", %d %s, %d %s, %s protocol", o.clients, clients, p.threads, threads, p.mode)
	if o.latencyLimit.d > 0 {
		fmt.Fprintf(&b, ", latency limit %v", o.latencyLimit.d)
	}
	return b.String()
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'f', 1, 64) }

// statusLine is the live status of one interval.
func statusLine(t *runTick, rate float64) string {
	st := &t.Interval.Total.Stats
	tps := 0.0
	if d := t.Interval.Duration().Seconds(); d > 0 {
		tps = float64(st.Count) / d
	}
	p99 := float64(metrics.Quantile(t.Interval.Total.Response, 0.99)) / 1000
	lag := float64(metrics.Quantile(t.Interval.Total.Lag, 0.99)) / 1000
	s := fmt.Sprintf("%6.1f s  %-7s  %9.1f tps  p99 %8.3f ms", t.Elapsed.Seconds(), t.Phase, tps, p99)
	if rate > 0 {
		s += fmt.Sprintf("  lag p99 %8.3f ms", lag)
	}
	s += fmt.Sprintf("  failed %d", t.Run.Failed())
	if n := st.Failed(); n > 0 {
		s += fmt.Sprintf(" (+%d)", n)
	}
	if n := t.Run.Skipped() + t.Run.Dropped(); n > 0 {
		s += fmt.Sprintf("  skipped+dropped %d", n)
	}
	return s
}

// liveOut is stderr shared by the status line and messages: on a terminal
// the status line is rewritten in place (\r), and a message first clears it;
// otherwise every status is a line of its own.
type liveOut struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	pending bool // a status line without its newline is on the screen
}

func (l *liveOut) status(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tty {
		io.WriteString(l.w, "\r"+s+"\x1b[K")
		l.pending = true
		return
	}
	io.WriteString(l.w, "progress: "+s+"\n")
}

func (l *liveOut) println(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending {
		io.WriteString(l.w, "\r\x1b[K")
		l.pending = false
	}
	io.WriteString(l.w, strings.TrimSuffix(s, "\n")+"\n")
}

// end leaves the last status line on the screen.
func (l *liveOut) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending {
		io.WriteString(l.w, "\n")
		l.pending = false
	}
}

// runLog is the engine's Logger for the native front end: messages go to
// stderr with pgtrial's prefix; the same message repeated within
// logRepeatWindow (every client losing its connection when the server
// restarts, a reconnect failing every 100 ms) is printed once and counted.
type runLog struct {
	mu   sync.Mutex
	out  *liveOut
	rec  *runRecorder
	seen map[string]*logSeen
}

type logSeen struct {
	printed    time.Time
	suppressed int
}

const logRepeatWindow = 5 * time.Second

func (l *runLog) write(prefix, msg string) {
	msg = strings.TrimSuffix(msg, "\n")
	now := time.Now()
	l.mu.Lock()
	s := l.seen[msg]
	if s != nil && now.Sub(s.printed) < logRepeatWindow {
		s.suppressed++
		l.mu.Unlock()
		return
	}
	line := prefix + msg
	if s != nil && s.suppressed > 0 {
		line += fmt.Sprintf(" (and %d more times in the last %v)", s.suppressed, now.Sub(s.printed).Round(time.Second))
	}
	if s == nil {
		if len(l.seen) >= 1000 {
			clear(l.seen)
		}
		s = &logSeen{}
		l.seen[msg] = s
	}
	s.printed, s.suppressed = now, 0
	l.mu.Unlock()
	l.out.println(line)
}

func (l *runLog) Error(msg string) {
	l.rec.NoteError(msg)
	l.write("pgtrial: error: ", msg)
}
func (l *runLog) Info(msg string)  { l.write("pgtrial: ", msg) }
func (l *runLog) Debug(msg string) { l.write("pgtrial: debug: ", msg) }

// flush prints the counts of messages suppressed since they were last shown.
func (l *runLog) flush() {
	l.mu.Lock()
	var lines []string
	for msg, s := range l.seen {
		if s.suppressed > 0 {
			lines = append(lines, fmt.Sprintf("pgtrial: the message %q was repeated %d more times", msg, s.suppressed))
			s.suppressed = 0
		}
	}
	l.mu.Unlock()
	for _, line := range lines {
		l.out.println(line)
	}
}

// summaryView is what the text summary shows.
type summaryView struct {
	summary  *results.Summary
	plan     *runPlan
	opts     *runOptions
	target   *runTarget
	run      *results.Run
	dir      string
	measured bool
}

// writeRunSummary prints the summary table.
func writeRunSummary(w io.Writer, v *summaryView) {
	s, o, p := v.summary, v.opts, v.plan
	fmt.Fprintf(w, "workload:  %s", p.workload)
	if p.needsPgbench {
		fmt.Fprintf(w, " (scale %d)", v.target.scale)
	}
	fmt.Fprintf(w, " on %s", hostPortDB(v.target.target))
	if sv := v.target.target.ServerVersion; sv != "" {
		fmt.Fprintf(w, ", PostgreSQL %s", sv)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "model:     %s\n", modeLine(o, p))
	fmt.Fprintf(w, "measured:  %.3f s", s.Duration)
	if o.warmup.d > 0 {
		fmt.Fprintf(w, " (after %v of warm-up, excluded)", o.warmup.d)
	}
	switch {
	case v.run.Interrupted:
		fmt.Fprintf(w, "; INTERRUPTED by %s", v.run.InterruptReason)
	case v.run.Aborted:
		fmt.Fprintf(w, "; CLIENTS ABORTED: results incomplete")
	}
	fmt.Fprintln(w)
	if !v.measured {
		fmt.Fprintln(w, "nothing was measured: the run ended during the warm-up")
	}

	blocks := []*results.ScriptSummary{}
	if len(s.Scripts) > 1 {
		for i := range s.Scripts {
			blocks = append(blocks, &s.Scripts[i])
		}
	}
	blocks = append(blocks, &s.Total)
	for i, ss := range blocks {
		fmt.Fprintln(w)
		title := "total"
		if len(blocks) > 1 && i < len(blocks)-1 {
			title = fmt.Sprintf("script %d: %s (weight %d)", i+1, ss.Name, p.scripts[i].weight)
		}
		fmt.Fprintf(w, "%s: %d committed, %.1f tps\n", title, ss.Committed, ss.TPS)
		fmt.Fprintf(w, "  %-12s %10s %10s %10s %10s %10s %10s\n", "latency ms", "p50", "p90", "p95", "p99", "p99.9", "max")
		row := func(name string, pc results.Percentiles) {
			fmt.Fprintf(w, "  %-12s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", name, pc.P50, pc.P90, pc.P95, pc.P99, pc.P999, pc.Max)
		}
		row("response", ss.Response)
		row("service", ss.Service)
		if !o.closed {
			row("lag", ss.Lag)
		}
		fmt.Fprintf(w, "  skipped %d (%s), dropped %d (%s), failed %d (%s)%s, retried %d (%s)",
			ss.Skipped, pct(ss.SkippedShare), ss.Dropped, pct(ss.DroppedShare),
			ss.Failed, pct(ss.FailedShare), failedBy(ss.FailedBy), ss.Retried, pct(ss.RetriedShare))
		if o.latencyLimit.d > 0 {
			fmt.Fprintf(w, ", late (> %v) %d (%s)", o.latencyLimit.d, ss.Late, pct(ss.LateShare))
		}
		fmt.Fprintln(w)
		if len(ss.Commands) > 0 && i < len(p.scripts) {
			writeCommands(w, ss.Commands, p.scripts[i].parsed)
		}
	}
	if len(s.Scripts) == 1 && len(s.Scripts[0].Commands) > 0 {
		writeCommands(w, s.Scripts[0].Commands, p.scripts[0].parsed)
	}

	fmt.Fprintln(w)
	if o.closed {
		fmt.Fprintf(w, "closed model: achieved %s tx/s. Its latency percentiles understate what users see: each client\n"+
			"waits for its previous transaction, so the mean is clients/tps (Little's law) and a stall lowers the\n"+
			"load instead of showing as latency. Measure user-facing latency with --rate N.\n", fmtRate(s.AchievedRate))
	} else {
		share := 0.0
		if s.TargetRate > 0 {
			share = 100 * s.AchievedRate / s.TargetRate
		}
		fmt.Fprintf(w, "target %s tx/s, achieved %s tx/s (%.1f %%)\n", fmtRate(s.TargetRate), fmtRate(s.AchievedRate), share)
	}
	writeEvidence(w, v.run.Evidence, v.run.Collectors)
	if len(v.run.Checks) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "checklist (DESIGN §8: what this run can and cannot show)")
		fmt.Fprint(w, checks.Text(v.run.Checks))
	}
	for _, warn := range v.run.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "run directory: %s\n", v.dir)
}

func writeCommands(w io.Writer, cs []results.CommandSummary, sc *script.Script) {
	fmt.Fprintf(w, "  %-12s %10s %10s %10s %8s %8s  %s\n", "per command", "count", "mean ms", "max ms", "failures", "retries", "command")
	for _, c := range cs {
		text := ""
		if c.Index < len(sc.Commands) {
			text = sc.Commands[c.Index].FirstLine
		}
		fmt.Fprintf(w, "  %-12d %10d %10.3f %10.3f %8d %8d  %s\n", c.Index, c.Count, c.MeanMs, c.MaxMs, c.Failures, c.Retries, text)
	}
}

func pct(share float64) string { return fmt.Sprintf("%.2f %%", 100*share) }

// failedBy lists the failure classes with a non-zero count, in a fixed order.
func failedBy(m map[string]int64) string {
	var parts []string
	for o := metrics.Outcome(0); o < metrics.NumOutcomes; o++ {
		if !o.Failed() {
			continue
		}
		if n := m[o.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, ", ") + "]"
}

// openRunTxLogs opens --txlog's per-thread logs, DIR/txlog/pgtrial_log.PID
// (thread 0) and .PID.T, in pgbench's -l format: the lag column under a
// rate, the retries column when --max-tries is not 1, failures by class.
func openRunTxLogs(dir string, o *runOptions, threads int, streams prng.Streams) ([]*pgbenchfmt.TxLog, error) {
	if err := os.MkdirAll(filepath.Join(dir, "txlog"), 0o755); err != nil {
		return nil, fmt.Errorf("--txlog: %w", err)
	}
	opts := &pgbenchfmt.Options{
		Rate:             o.rate,
		MaxTries:         uint32(o.maxTries),
		FailuresDetailed: true,
		LatencyLimit:     int64(o.latencyLimit.d / time.Microsecond),
		ContinueOnError:  o.continueOnError,
	}
	if o.closed {
		opts.Rate = 0
	}
	var logs []*pgbenchfmt.TxLog
	for t := 0; t < threads; t++ {
		sample := streams.Threads[t].Sample
		l, err := pgbenchfmt.OpenTxLog(filepath.Join(dir, "txlog", "pgtrial_log"), os.Getpid(), t, opts, &sample)
		if err != nil {
			for _, l := range logs {
				l.Close()
			}
			return nil, fmt.Errorf("--txlog: %w", err)
		}
		logs = append(logs, l)
	}
	return logs, nil
}
