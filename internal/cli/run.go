package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/target"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// runOptions are `pgtrial run`'s flags.
type runOptions struct {
	segment         string // --segment i/n
	startAt         string // --start-at, RFC 3339
	arg             string // the argument: connection string or database name
	url             string
	scripts         []scriptSpec // -b and -f in command-line order
	clients         int
	threads         int
	connectRate     float64
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
	noReport        bool
	noCheck         bool   // -b tpcc*: no consistency checks after the run
	showScript      string // --show-script NAME: print it and exit
	continueOnError bool
	collect         collectOptions
	explain         explainFlag
	scenarios       []string // --scenario 'NAME: OPTIONS' (scenario.go)
	metrics         metricsOptions
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
init"); the scale is read from pgbench_branches. A built-in mix (-b tpcc, -b tpcc-spec:
TPC-C-like, docs/tpcc.md) runs its scripts with their weights; it needs "pgtrial init
-w tpcc" and reads its variables from tpcc_meta (a -D of the same name wins).

Target, as libpq finds it: a postgres:// URL, a key=value connection string or a
database name, as the argument or --url; else the libpq environment when any of
PGHOST, PGHOSTADDR, PGPORT, PGDATABASE, PGUSER or PGSERVICE is set (with
pg_service.conf, PGPASSWORD or .pgpass, PGSSLMODE and the rest of it); else the local
cluster "default" ("pgtrial local"), which is created and started if needed. The first
line on stderr says which target and why.

Reports: at the end, report.html and report.md (charts in charts/) in the run
directory, also of an interrupted run, and their path as the last line (--no-report:
none; "pgtrial report DIR" writes them later).

Output: the summary per script and in total (committed, tps, response/service/lag
percentiles in ms, skipped, dropped, failed by class, retried, with their shares,
target versus achieved rate) and the run directory (default
./pgtrial-runs/<time>-<workload>). A status line every --interval on stderr. --json
prints the summary as JSON instead.

The end of the window (-T) cuts it: queries still in flight are cancelled (and their
sockets closed after a short grace), so "measured" is -T even against a server that
hangs; such transactions count as unfinished, and the slots of the schedule due before
the end that no client started as unstarted, both with the time they had waited so far
as a lower bound of their latency.

Connections: a client count above what the server can take (max_connections less the
reserved slots, the connections in use and pgtrial's collectors) is refused before any
is made; clients connect at --connect-rate, each with a timeout, the first failure stops
the rest, and a lost connection is retried with an exponential backoff.

Interrupting (SIGINT, SIGTERM, SIGHUP): queries in flight are cancelled, everything
measured so far is written and the run is marked interrupted; a second signal does the
same without waiting for the server (the process exits within 10 s); a third exits at
once.

Exit status: 0 success; 1 bad input or setup; 2 the run was interrupted, clients
aborted, or nothing committed.`

func newRunCommand(info BuildInfo) *cobra.Command {
	cmd, _ := newRunCommandOptions(info)
	return cmd
}

// newRunCommandOptions is run's command and the options its flags fill
// (k8s.go parses and checks run's flags with it, with run's messages).
func newRunCommandOptions(info BuildInfo) (*cobra.Command, *runOptions) {
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
		connectRate:  engine.DefaultConnectRate,
	}
	cmd := &cobra.Command{
		Use:   "run [flags] [URL]",
		Short: "Run one measured workload (open or closed model) and write a run directory",
		Long:  runLong + "\n\n" + scenarioHelp,
		Example: `  pgtrial init -s 10
  pgtrial run --rate 500 -c 8 -T 5m
  pgtrial run postgres://bench@db1/bench -b select-only --rate 2000 -c 32 -j 4 --warmup 1m
  pgtrial run --closed -f mix.sql@9 -b tpcb-like@1 -T 2m --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.arg, err = serverArg(args, o.url); err != nil {
				return err
			}
			return runRun(cmd.Context(), o, cmd.Flags().Changed, info, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.url, "url", "", `connection string (postgres:// URL or key=value) or database name; default: the libpq environment (PGHOST, …) if set, else the local cluster "default"`)
	f.VarP(scriptFlag{list: &o.scripts, builtin: true}, "builtin", "b", "built-in script NAME (tpcb-like, simple-update, select-only; a prefix works) with optional @WEIGHT, or a built-in mix (tpcc, tpcc-spec); repeatable (default tpcb-like)")
	f.VarP(scriptFlag{list: &o.scripts}, "file", "f", "pgbench-language script FILE with optional @WEIGHT; repeatable")
	f.IntVarP(&o.clients, "clients", "c", o.clients, "clients (connections)")
	f.IntVarP(&o.threads, "threads", "j", o.threads, "client threads (groups), each polling its clients' sockets with its own arrival schedule at rate/threads; 0 = min(clients, CPUs)")
	f.StringVar(&o.segment, "segment", "", "run segment i (from 0) of n generators that together make the one schedule of -c, -j and --rate: this one runs -j/n threads with their clients, streams and client ids at rate/n (-j must be a multiple of n); only segment 0 collects the server's evidence, the others their own machine's OS metrics")
	f.StringVar(&o.startAt, "start-at", "", "with --segment: the instant (RFC 3339, e.g. 2026-12-04T10:00:00Z) every segment's warm-up begins, its schedule's clock zero; the clients connect first and wait for it")
	f.Float64Var(&o.connectRate, "connect-rate", o.connectRate, fmt.Sprintf("initial connections per second (at most %d dialling at once); a client count the server cannot take is refused before any", engine.DefaultConnectConcurrency))
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
	f.StringArrayVar(&o.scenarios, "scenario", nil, "concurrent scenario 'NAME: OPTIONS' (-b, -f, -c, -j, --rate or --closed, --arrival, --overload); repeatable")
	f.StringVar(&o.seed, "random-seed", "", `seed of the random streams: an unsigned integer, "time" or "rand" (default: time); recorded in events.jsonl`)
	f.BoolVarP(&o.perCommand, "report-per-command", "r", false, "also report per-command latency, failures and retries")
	f.BoolVar(&o.txlog, "txlog", false, "also log every transaction in pgbench's -l format, in the run directory's txlog/")
	f.Var(&o.interval, "interval", "length of the recorded intervals (timeline rows, histograms, status line)")
	f.StringVar(&o.runDir, "run-dir", "", "run directory (default ./pgtrial-runs/<time>-<workload>)")
	f.BoolVar(&o.json, "json", false, "print the summary as JSON on stdout (nothing else goes to stdout)")
	f.BoolVar(&o.quiet, "quiet", false, "no status line")
	f.StringVar(&o.showScript, "show-script", "", "print the built-in script or mix NAME (tpcc, tpcc-spec, ycsb-a…ycsb-f, tpcb-like, …) in pgbench's language and exit; copy it to a file to edit and run it with -f")
	f.BoolVar(&o.noCheck, "no-check", false, "-b tpcc/tpcc-spec: skip the TPC-C consistency checks after the run (a failed check fails the run)")
	f.BoolVar(&o.noReport, "no-report", false, "do not write report.html and report.md into the run directory (pgtrial report writes them later)")
	o.collect.addFlags(f)
	addExplainFlag(f, &o.explain, "the findings in run.json are computed with it")
	addMetricsFlags(f, &o.metrics)
	// -h stays help here: run has no -h/--host (use the URL).
	return cmd, o
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
	if o.showScript != "" {
		return showScript(stdout, o.showScript)
	}
	plan, err := planRun(o, changed)
	if err != nil {
		return err
	}
	out := &liveOut{w: stderr, tty: isTerminal(stderr)}
	live, err := startLiveMetrics(o.metrics, out.println) // livemetrics.go
	if err != nil {
		return err
	}
	defer live.close()

	// Signals from here on: during setup they cancel the setup.
	ctx, sigs, stopSignals := notifySignals(ctx, out, signalPlan{
		stopping: "queries in flight are cancelled and the results so far written",
		hurrying: "run.json is finalized without waiting for the server",
	})
	defer stopSignals()
	interruptedErr := func(what string) error {
		reason, _ := sigs.get()
		return &exitError{code: exitRunFail, err: fmt.Errorf("interrupted by %s %s", reason, what)}
	}

	connString, tgt, err := resolveRunTarget(ctx, o, out)
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
	probed, probeVars, err := trial.RunProbe(ctx, connString, plan.mix, plan.probe, vars)
	if err != nil {
		return err
	}
	vars = append(vars, probed...)
	if err := plan.remakeMix(probeVars); err != nil {
		return err
	}
	tc := &trial.Config{
		ConnString:      connString,
		Target:          tgt.target,
		Scale:           tgt.scale,
		Scripts:         plan.scripts,
		Workload:        plan.workload,
		Tables:          trial.WorkloadTables(plan.scripts, plan.mix),
		Mode:            plan.mode,
		Clients:         o.clients,
		Threads:         plan.threads,
		ConnectRate:     o.connectRate,
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
		Probe:           probeVars,
		Seed:            plan.seed,
		Collect:         o.collect.config(tgt.local != ""),
		Dir:             dirPath,
		Explain:         o.explain.config(),
		Tool:            info.tool(),
		CommandLine:     os.Args,
		Warnings:        warnings,
		Out:             out.println,
		Interrupt:       sigs.get,
		Urgent:          sigs.Urgent(),
		// \shell output: stdout is the summary's (and only JSON with --json).
		ShellOut: stderr,
	}
	if !o.closed {
		tc.Rate = o.rate
	}
	tc.Scenarios = plan.scenarios
	tc.ScenarioTotals()
	if o.segment != "" {
		if o.threads == 0 {
			return &exitError{code: exitBadInput, err: errors.New("--segment needs -j: the whole load's threads, the same on every generator (the default min(clients, CPUs) depends on each machine's CPUs); give a multiple of the segments")}
		}
		if o.seed == "time" || o.seed == "rand" {
			return &exitError{code: exitBadInput, err: fmt.Errorf("--segment with --random-seed %s: each segment would draw its own seed; give every segment one number (or --start-at alone, whose instant is then the seed)", o.seed)}
		}
		if err := segmentRun(tc, o.segment, o.startAt, time.Now()); err != nil {
			return err
		}
	} else if o.startAt != "" {
		return &exitError{code: exitBadInput, err: errors.New("--start-at goes with --segment i/n: it is the instant the segments begin together")}
	}
	if mode := tpccMode(o.scripts); mode != "" {
		addTPCC(tc, mode, o.noCheck) // check.go
	}
	if !o.quiet {
		tc.OnInterval = func(t *trial.Tick) { out.status(statusLine(t, o.rate)) }
		out.println(describeStart(plan, o, tgt))
		// Said once the clients are connected: a run refused before (too
		// many clients, a failed connection) leaves no directory behind.
		tc.OnStart = func(start, bench time.Time) { out.println("pgtrial: writing " + dirPath) }
	}

	live.attach(tc)
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
		if err := printJSON(stdout, jsonRunSummary, jsonSummary{Schema: jsonSchemaID(jsonRunSummary), Summary: summary, Scenarios: run.Scenarios, Evidence: run.Evidence, Checks: run.Checks, RunDir: dirPath}); err != nil {
			return err
		}
	} else {
		if err := report.WriteText(stdout, report.Run(runView(plan, o, tgt, r, dirPath))); err != nil {
			return err
		}
	}
	// The reports, also of an interrupted or failed run; the path last
	// (on stderr with --json, whose stdout is JSON only).
	if !o.noReport {
		w := stdout
		if o.json {
			w = stderr
		}
		endReport(w, stderr, func() (report.Written, error) { return writeRunReport(dirPath) })
	}

	if err := tpccFailed(run.TPCC, dirPath); err != nil {
		return err
	}
	switch {
	case r.Interrupted:
		return &exitError{code: exitRunFail, err: fmt.Errorf("run interrupted by %s; the results up to then are in %s", r.Reason, dirPath)}
	case r.Aborted > 0:
		return &exitError{code: exitRunFail, err: fmt.Errorf("%d of %d clients aborted (see the messages above); the results are incomplete; they are in %s", r.Aborted, o.clients, dirPath)}
	case r.Err != nil:
		return &exitError{code: exitRunFail, err: r.Err}
	case summary.Total.Committed == 0:
		// Nothing committed (e.g. --continue-on-error with a script that always fails):
		// the figures describe no transaction, whatever the run looked like.
		t := summary.Total
		if t.Failed == 0 && t.Unfinished+t.Unstarted > 0 {
			return &exitError{code: exitRunFail, err: fmt.Errorf("nothing committed: no transaction ended within the window; %d were still running at its end and %d never started, "+
				"so the server did not answer in time (a stall, or transactions longer than -T); their waits are in the percentiles as lower bounds; the results are in %s", t.Unfinished, t.Unstarted, dirPath)}
		}
		return &exitError{code: exitRunFail, err: fmt.Errorf("nothing committed: %d transactions failed and %d were skipped, so the run measured no transaction "+
			"(without --continue-on-error the first error stops the run and is printed); the results are in %s", t.Failed, t.Skipped, dirPath)}
	}
	return nil
}

// jsonSummary is --json's output.
type jsonSummary struct {
	Schema string `json:"schema"` // jsonSchemaID(jsonRunSummary)
	results.Summary
	Scenarios []results.Scenario `json:"scenarios,omitempty"` // --scenario's, each with its summary
	Evidence  *results.Evidence  `json:"evidence,omitempty"`
	Checks    []results.Check    `json:"checks,omitempty"`
	RunDir    string             `json:"run_dir"`
}

// resolveRunTarget returns the connection string of the target
// (target.Resolve: the argument or --url, the libpq environment, the local
// cluster "default", started when it is not running), said on the first line.
func resolveRunTarget(ctx context.Context, o *runOptions, out *liveOut) (string, *runTarget, error) {
	res, err := target.Resolve(ctx, target.Request{Arg: o.arg, URL: o.url, Out: out.println})
	if err != nil {
		return "", nil, err
	}
	tgt := &runTarget{}
	if res.Local != nil {
		tgt.local = res.Local.Name()
	}
	return res.ConnString, tgt, nil
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

// segmentRun makes tc segment spec ("i/n") of its load: the segment's
// clients, threads and rate (trial.Segment).
func segmentRun(tc *trial.Config, spec, startAt string, now time.Time) error {
	i, n, err := trial.ParseSegment(spec)
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	if len(tc.Scenarios) > 0 {
		return &exitError{code: exitBadInput, err: errors.New("--segment with --scenario is not supported yet: run each scenario's segments apart")}
	}
	if tc.Transactions > 0 {
		return &exitError{code: exitBadInput, err: errors.New("--segment needs -T: segments share one schedule in time, not a count of transactions")}
	}
	seg, err := trial.NewSegment(i, n, tc.Clients, tc.Threads, tc.Rate)
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	if startAt != "" {
		at, err := time.Parse(time.RFC3339Nano, startAt)
		switch {
		case err != nil:
			return &exitError{code: exitBadInput, err: fmt.Errorf("--start-at %q: want an RFC 3339 time, e.g. %s", startAt, now.UTC().Add(time.Minute).Truncate(time.Second).Format(time.RFC3339))}
		case !at.After(now):
			return &exitError{code: exitBadInput, err: fmt.Errorf("--start-at %s is %s ago: give every segment the same instant in the future", startAt, now.Sub(at).Round(time.Millisecond))}
		case at.Sub(now) > 24*time.Hour:
			return &exitError{code: exitBadInput, err: fmt.Errorf("--start-at %s is more than a day away", startAt)}
		}
		seg.StartAt = at
	}
	// Every segment must draw the one schedule's streams: one seed.
	if !tc.Seed.Explicit {
		if seg.StartAt.IsZero() {
			return &exitError{code: exitBadInput, err: errors.New("--segment needs one seed for all the segments: give --random-seed N, or --start-at, whose instant (µs since the epoch) is then the seed")}
		}
		tc.Seed = prng.Seed{Value: uint64(seg.StartAt.UnixMicro()), Explicit: true}
	}
	tc.Segment = seg
	tc.Clients, tc.Threads, tc.Rate = seg.SegClients, seg.SegThreads, seg.SegRate()
	return nil
}
