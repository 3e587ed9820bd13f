package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/trial"
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

// runPlan is a validated run, before connecting.
type runPlan struct {
	scripts      []trial.Script
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
	for _, sp := range specs {
		rs, err := trial.ParseScriptArg(sp.builtin, sp.arg)
		if err != nil {
			return nil, err
		}
		total += int64(rs.Weight)
		p.scripts = append(p.scripts, rs)
	}
	if len(p.scripts) > 128 {
		return nil, errors.New("at most 128 scripts are allowed")
	}
	if total == 0 {
		return nil, errors.New("the scripts' weights add up to 0: give at least one script a positive @WEIGHT")
	}
	p.needsPgbench = trial.NeedsPgbench(p.scripts)
	p.workload = trial.WorkloadName(p.scripts)
	if err := trial.PrepareScripts(p.scripts, p.mode); err != nil {
		return nil, err
	}
	return p, nil
}

// runTarget is what the setup connection learned.
type runTarget struct {
	target results.Target
	scale  int
	local  string // the local cluster's name when it was the default target
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
	ctx, sigs, stopSignals := notifySignals(ctx, out, "queries in flight are cancelled and the results so far written")
	defer stopSignals()
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
	if err := inspectTarget(ctx, connString, plan, tgt); err != nil {
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
	warnings := append([]string(nil), plan.warnings...)
	if plan.needsPgbench && tgt.scale < o.clients && strings.Contains(plan.workload, "tpcb-like") {
		warnings = append(warnings, fmt.Sprintf("scale %d is below the %d clients: tpcb-like's branch updates contend on a lock, which the results will show", tgt.scale, o.clients))
	}
	vars := make([]trial.Var, len(plan.vars))
	for i, v := range plan.vars {
		vars[i] = trial.Var{Name: v[0], Value: v[1]}
	}
	tc := &trial.Config{
		ConnString:      connString,
		Target:          tgt.target,
		Scale:           tgt.scale,
		Scripts:         plan.scripts,
		Workload:        plan.workload,
		Mode:            plan.mode,
		Clients:         o.clients,
		Threads:         plan.threads,
		Arrival:         plan.arrival,
		Overload:        plan.overload,
		Duration:        o.duration.d,
		Transactions:    o.transactions,
		Warmup:          o.warmup.d,
		LatencyLimit:    o.latencyLimit.d,
		Interval:        o.interval.d,
		MaxTries:        o.maxTries,
		ContinueOnError: o.continueOnError,
		PerCommand:      o.perCommand,
		TxLog:           o.txlog,
		Vars:            vars,
		Seed:            plan.seed,
		Collect:         o.collect.config(),
		Dir:             dirPath,
		Tool:            info.tool(),
		CommandLine:     os.Args,
		Warnings:        warnings,
		Out:             out.println,
		Interrupt:       sigs.get,
		// \shell output: stdout is the summary's (and only JSON with --json).
		ShellOut: stderr,
	}
	if !o.closed {
		tc.Rate = o.rate
	}
	if !o.quiet {
		tc.OnInterval = func(t *trial.Tick) { out.status(statusLine(t, o.rate)) }
		out.println(describeStart(plan, o, tgt, dirPath))
	}

	r, err := trial.Run(ctx, tc)
	out.end()
	if err != nil {
		var nse *trial.NotStartedError
		if errors.As(err, &nse) && nse.Interrupted {
			if reason, _ := sigs.get(); reason != "" {
				return interruptedErr("before the run started; nothing was measured")
			}
		}
		return err
	}
	run := r.Run
	summary := r.Summary

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
			measured: r.Measured,
		})
	}

	switch {
	case r.Interrupted:
		return &exitError{code: exitRunFail, err: fmt.Errorf("run interrupted by %s; the results up to then are in %s", r.Reason, dirPath)}
	case r.Aborted > 0:
		return &exitError{code: exitRunFail, err: fmt.Errorf("%d of %d clients aborted (see the messages above); the results are incomplete; they are in %s", r.Aborted, o.clients, dirPath)}
	case r.Err != nil:
		return &exitError{code: exitRunFail, err: r.Err}
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

// inspectTarget reads run.json's target and, for built-in scripts, the scale.
func inspectTarget(ctx context.Context, connString string, plan *runPlan, tgt *runTarget) error {
	t, scale, err := trial.Inspect(ctx, connString, plan.needsPgbench)
	if err != nil {
		return err
	}
	tgt.target, tgt.scale = t, scale
	return nil
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
func statusLine(t *trial.Tick, rate float64) string {
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
			title = fmt.Sprintf("script %d: %s (weight %d)", i+1, ss.Name, p.scripts[i].Weight)
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
			writeCommands(w, ss.Commands, p.scripts[i].Parsed)
		}
	}
	if len(s.Scripts) == 1 && len(s.Scripts[0].Commands) > 0 {
		writeCommands(w, s.Scripts[0].Commands, p.scripts[0].Parsed)
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
