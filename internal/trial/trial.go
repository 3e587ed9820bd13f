// Package trial runs one measured run: the engine with its interval
// recorder, the evidence collectors and the run directory (DESIGN.md §5,
// §6). It is the only orchestrator of a run: `pgtrial run` prepares a
// Config from its flags and prints the Result; the experiment runner calls
// Run once per run of its protocol; `pgtrial pgbench` plugs pgbench's
// progress lines, logs and report in through Config's hooks (OnStart,
// OnInterval, Log, Pgbench) and prints its report from the Result.
// It prints nothing itself: messages go to Config.Out.
package trial

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

// Config is one run, validated and resolved (scripts parsed and prepared,
// the target inspected).
type Config struct {
	ConnString string
	Target     results.Target // from Inspect: address, version, settings
	// Scale is the pgbench scale: recorded for built-in scripts and their
	// :scale (1 when < 1, and for other scripts); under Pgbench it is :scale
	// as it is and always recorded.
	Scale int

	Scripts  []Script
	Workload string // WorkloadName(Scripts) unless set
	// Tables are the workload's own tables, whose sizes run.json records
	// (results.ServerInfo.Tables); nil: WorkloadTables of Scripts and of the
	// mix Workload names, if any.
	Tables []string
	Mode   script.Mode
	// Scenarios, if any, are concurrent scenarios over Scripts
	// (scenario.go); set the totals with ScenarioTotals.
	Scenarios []Scenario

	Clients int
	Threads int // ≥ 1
	// Segment, if set, makes the run one segment of a schedule several
	// generators share (segment.go): Clients, Threads and Rate are then the
	// segment's (Segment.SegClients, SegThreads, SegRate()).
	Segment      *Segment
	ConnectRate  float64 // initial connections per second (0: engine.DefaultConnectRate; unused under Pgbench)
	Rate         float64 // open model when > 0, tx/s; closed model when 0
	Arrival      engine.Arrival
	Overload     engine.Overload
	Duration     time.Duration // measured phase (after the warm-up); unused with Transactions
	Transactions int64         // per client, warm-up included; 0: Duration
	Warmup       time.Duration
	LatencyLimit time.Duration
	Interval     time.Duration // recorded intervals and collector samples (> 0)

	MaxTries        int // 0: unlimited
	ContinueOnError bool
	PerCommand      bool // per-command latency and failures (Result.Measure.Commands)
	TxLog           bool // DIR/txlog/pgtrial_log.PID[.T] in pgbench's -l format (needs Dir)
	// Log, if set, is a per-transaction log wherever its prefix says
	// (pgbench's -l, --aggregate-interval): opened before the clients
	// connect, closed as soon as they have stopped; its close errors are in
	// Result.LogErrors.
	Log  *TxLogSpec
	Vars []Var
	// Probe are a mix's probe variables as the clients get them (RunProbe),
	// recorded in run.json's workload.probe.
	Probe map[string]string
	Seed  prng.Seed

	// Collect chooses the evidence collectors; they sample into the run
	// directory, so without Dir there are none.
	Collect Collect
	// Dir is the run directory; it must not hold a run already. "" writes
	// none: no run.json, intervals, events, collectors or checklist (the
	// pgbench front end without --run-dir).
	Dir string
	// SlowPerInterval is how many of each interval's slowest transactions
	// slow.csv keeps (needs Dir): 0 is results.SlowPerInterval, a negative
	// count none.
	SlowPerInterval int
	// Explain is the findings' settings (explain.Config); nil: the
	// defaults. The findings are computed into run.json at the end of a run
	// with a Dir.
	Explain *explain.Config

	Tool        results.Tool
	CommandLine []string          // recorded, passwords redacted
	Warnings    []string          // recorded in run.json
	Labels      map[string]string // recorded in the config event (experiment, variant, repeat, …)

	// Out receives messages (warnings, the engine's log), one line each
	// without the newline; nil discards them. It may be called from any
	// goroutine.
	Out func(line string)
	// OnStart, if set, is called once the clients are connected, before the
	// first transaction and the first interval, with the engine's start
	// (before connecting) and the bench start: pgbench's progress clock.
	OnStart func(start, bench time.Time)
	// OnInterval is called after each recorded interval (the status line,
	// pgbench's -P lines), from the recorder's goroutine.
	OnInterval func(t *Tick)
	// OnPhase is called when a phase starts (after the run's own use of it):
	// injections are timed from the measured phase's start. It must not block.
	OnPhase func(phase string, at time.Time)
	// Interrupt, if set, says why the run was cancelled (e.g. "SIGINT") and
	// when; ctx cancellation alone is recorded as "cancellation".
	Interrupt func() (reason string, at time.Time)
	// Urgent, once closed (a second signal), makes the end of the run wait
	// for nothing on the server: the clients' sockets are shut down without
	// the grace, the collectors' last samples and snapshot are skipped, and
	// run.json is written at once. nil: never.
	Urgent <-chan struct{}
	// ShellOut receives \shell output and debug() lines; nil: os.Stderr
	// (under Pgbench, Pgbench.Stdout and Stderr instead).
	ShellOut io.Writer
	// AfterRun, if set, is called once the clients have stopped and before
	// the checklist and run.json are final; its events go to events.jsonl
	// (the experiment's injected stalls).
	AfterRun func() []results.Event
	// WindowQueries are SQL queries of one number each, run on a session of
	// the run's own at the measured window's start and at its end (after
	// the clients stopped); their values are in run.json's window_values
	// and Result.WindowValues (windowq.go). TPC-C-like's NOPM uses it.
	WindowQueries []string
	// BeforeFinish, if set, is called with run.json's content and the
	// result once the clients have stopped, before the checklist and the
	// findings: what it adds to run (e.g. run.TPCC) is recorded.
	BeforeFinish func(run *results.Run, r *Result)

	// Pgbench, if set, runs the engine as pgbench does (the pgbench front
	// end); nil: as pgtrial's own commands do.
	Pgbench *Pgbench
}

// Pgbench is what `pgtrial pgbench` changes in a run: pgbench's engine
// options and its messages instead of pgtrial's. A client that loses its
// connection aborts (pgbench does not reconnect), and :scale is
// Config.Scale as it is (pgbench's -s or pgbench_branches' count, 0
// included).
type Pgbench struct {
	ConnectPerTx  bool // -C: a connection per transaction
	ExitOnAbort   bool // --exit-on-abort
	VerboseErrors bool // --verbose-errors
	Debug         bool // -d
	// Log receives the engine's messages (pgbench's prefixes); nil: Out's.
	Log          engine.Logger
	ConnectError func(err error) string // a connection failure's text (libpq's); nil: err.Error()
	OnNotice     func(*pgconn.Notice)   // server notices; nil: to Log as info
	Stdout       io.Writer              // \shell output; nil: os.Stdout
	Stderr       io.Writer              // debug() lines of expressions, written serialized; nil discards them
}

// Result is a run that got to measure (Run returns an error instead when
// the clients never started).
type Result struct {
	Run         *results.Run // run.json's content (also without a Dir)
	Dir         string
	Summary     results.Summary
	Measure     *metrics.Interval // the measured phase: stats, histograms, per-command stats
	Engine      *engine.Result    // the engine's times (start, bench start, end, -C's connection time) and aborts
	Measured    bool              // at least one interval of the measured phase was recorded
	Interrupted bool
	Reason      string  // why it was interrupted
	Aborted     int     // clients that aborted
	Err         error   // the engine's error, if any (the run still counts)
	LogErrors   []error // closing Config.Log's files, in thread order
	// WindowValues are Config.WindowQueries' values at the window's start and end.
	WindowValues []results.WindowValue
}

// Inspect connects once: the target's address, version and the settings
// that shape results; with needsPgbench also the scale from
// pgbench_branches (as pgbench reads it).
func Inspect(ctx context.Context, connString string, needsPgbench bool) (results.Target, int, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return results.Target{}, 0, fmt.Errorf("invalid connection string: %w", err)
	}
	pgsession.Own(&cfg.Config, pgsession.NameSetup, pgsession.Short) // not the role's statement_timeout
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return results.Target{}, 0, pgerr.Connect(err, &cfg.Config)
	}
	defer conn.Close(context.Background())

	t, err := ReadTarget(cctx, conn.PgConn(), &cfg.Config)
	if err != nil || !needsPgbench {
		return t, 0, err
	}
	var scale int64
	err = conn.QueryRow(cctx, "SELECT count(*) FROM pgbench_branches").Scan(&scale)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" {
			return t, 0, fmt.Errorf("the built-in scripts need the pgbench tables, and database %q has no pgbench_branches\nhint: load them first: pgtrial init -s SCALE --url %s",
				cfg.Database, RedactedURL(connString))
		}
		return t, 0, fmt.Errorf("read the scale from pgbench_branches: %w", err)
	}
	if scale < 1 {
		return t, 0, fmt.Errorf("pgbench_branches in database %q is empty, so there is no scale\nhint: load the tables again: pgtrial init -s SCALE --url %s",
			cfg.Database, RedactedURL(connString))
	}
	return t, int(scale), nil
}

// RedactedURL is a connection string for messages: passwords removed, quoted
// for a shell when it has blanks.
func RedactedURL(s string) string {
	r := results.RedactArgs([]string{s})[0]
	if strings.ContainsAny(r, " \t'\"?&*;|<>()$`\\") {
		return "'" + strings.ReplaceAll(r, "'", `'\''`) + "'"
	}
	return r
}

// Model is run.json's model of the config.
func (c *Config) Model() results.Model {
	m := results.Model{
		Kind:           results.ModelClosed,
		Clients:        c.Clients,
		Threads:        c.Threads,
		LatencyLimitMs: float64(c.LatencyLimit) / float64(time.Millisecond),
		Transactions:   c.Transactions,
	}
	if c.Transactions == 0 {
		m.DurationS = c.Duration.Seconds()
	}
	if c.Rate > 0 {
		m.Kind = results.ModelOpen
		m.Rate = c.Rate
		m.Arrival = c.Arrival.String()
		m.Overload = c.Overload.String()
	}
	return m
}

func (c *Config) out(line string) {
	if c.Out != nil {
		c.Out(line)
	}
}

// Run runs the workload and writes the run directory (when Config.Dir is
// set); it returns once run.json is final. It returns an error, and removes the directory it
// created, when nothing was measured because the clients never started
// (ctx cancelled during the connections, a connection refused). Once the
// clients ran, Run returns a Result whatever happened, with Err, Aborted and
// Interrupted saying what went wrong.
func Run(ctx context.Context, c *Config) (*Result, error) {
	if len(c.Scripts) == 0 || c.Clients < 1 || c.Threads < 1 || c.Interval <= 0 {
		return nil, errors.New("trial: incomplete config (scripts, clients, threads and interval are required)")
	}
	if err := c.checkScenarios(); err != nil {
		return nil, err
	}
	if err := c.checkSegment(); err != nil {
		return nil, err
	}
	if c.Dir == "" && c.TxLog {
		return nil, errors.New("trial: --txlog writes into the run directory, and there is none")
	}
	pgcfg, err := pgconn.ParseConfig(c.ConnString)
	if err != nil {
		return nil, fmt.Errorf("invalid connection string: %w", err)
	}
	if err := c.checkConnLimit(ctx, pgcfg); err != nil { // connlimit.go
		return nil, err
	}
	dirExisted := false
	if c.Dir != "" {
		if fi, err := os.Stat(filepath.Join(c.Dir, results.RunFile)); err == nil && !fi.IsDir() {
			return nil, fmt.Errorf("run directory %s already holds a run; choose a new one", c.Dir)
		}
		_, statErr := os.Stat(c.Dir)
		dirExisted = statErr == nil
	}

	names := make([]string, len(c.Scripts))
	weights := make([]int, len(c.Scripts))
	programs := make([]*script.Script, len(c.Scripts))
	ncmds := make([]int, len(c.Scripts))
	wlName := c.Workload
	if wlName == "" {
		wlName = WorkloadName(c.Scripts)
	}
	wl := results.Workload{Name: wlName, Probe: c.Probe}
	for i, s := range c.Scripts {
		names[i], weights[i], programs[i] = s.Name, s.Weight, s.Parsed
		ncmds[i] = len(s.Parsed.Commands)
		wl.Scripts = append(wl.Scripts, results.ScriptWeight{Name: s.Name, Weight: s.Weight, SHA256: scriptDigest(s.Parsed)})
	}
	if err := engine.CheckThink(programs, c.Rate); err != nil {
		return nil, err
	}
	needsPgbench := NeedsPgbench(c.Scripts)
	if needsPgbench || c.Pgbench != nil {
		wl.Scale = c.Scale
	}
	model := c.Model()
	run := &results.Run{
		Tool:        c.Tool,
		CommandLine: results.RedactArgs(c.CommandLine),
		StartedAt:   time.Now(),
		Target:      c.Target,
		Workload:    wl,
		Model:       model,
		Warnings:    append([]string(nil), c.Warnings...),
		Scenarios:   c.resultScenarios(nil, nil),
		Segment:     c.Segment.result(),
	}
	if run.Segment != nil {
		if off, err := measureClock(ctx, c.ConnString); err != nil {
			run.Warnings = append(run.Warnings, "segment: the server's clock at the start: "+err.Error())
		} else {
			run.Segment.Clock = append(run.Segment.Clock, off)
		}
	}
	// The run directory (none without Dir: dir stays nil, and everything
	// below that writes it is skipped).
	var dir *results.Dir
	if c.Dir != "" {
		if dir, err = results.Create(c.Dir, run); err != nil {
			return nil, err
		}
	}
	// abandon undoes the run directory when the run cannot start.
	abandon := func() {
		if dir != nil {
			dir.Close()
			removeRunDir(c.Dir, dirExisted)
		}
	}

	c.recordPlans(ctx, dir, run) // plans.json, before the collectors' baselines (plans.go)

	// The collectors sample from now on, on the run's clock; they are
	// stopped on every way out (a second Stop is a no-op).
	var collector *collect.Collector
	if dir != nil {
		collector, err = startCollectors(ctx, &c.Collect, c.ConnString, pgcfg, dir, run, c.Interval, c.tables())
		if err != nil {
			run.Warnings = append(run.Warnings, "collectors not started: "+err.Error())
			c.out("pgtrial: warning: collectors not started: " + err.Error())
		}
	}
	// The waits on the server at the end (the collectors') end at Urgent.
	endCtx, endCancel := untilClosed(c.Urgent)
	defer endCancel()
	if collector != nil {
		defer func() { collector.Stop(endCtx, time.Now()) }()
	}

	layout := metrics.Layout{Scripts: len(programs), LatencyLimit: int64(c.LatencyLimit / time.Microsecond), Slowest: c.slowest()}
	if c.PerCommand {
		layout.Commands = ncmds
	}
	set := metrics.NewSet(c.Clients, layout)
	// pgtrial's own commands end the window at -T sharp (engine.CutAtEnd);
	// pgbench's front end lets the transactions in flight finish, as
	// pgbench does.
	cutAtEnd := c.Pgbench == nil
	var window time.Duration
	if cutAtEnd && c.Transactions == 0 {
		window = c.Warmup + c.Duration
	}
	rec := NewRecorder(RecorderConfig{
		Set:         set,
		Dir:         dir,
		ScriptNames: names,
		Interval:    c.Interval,
		Warmup:      c.Warmup,
		End:         window,
		OnWriteError: func(err error) {
			c.out("pgtrial: warning: " + err.Error())
		},
		OnInterval: c.OnInterval,
	})
	// pgtrial's own CPU over the measured phase (getrusage at its start and
	// at the end): the checklist's load-generator check, exact and whatever
	// host the server is on.
	var cpuMu sync.Mutex
	var cpuAtMeasure time.Duration
	cpuOK := false
	wq := openWindowQueries(ctx, c.ConnString, c.WindowQueries) // windowq.go
	defer wq.close()
	rec.cfg.OnPhase = func(phase string, at time.Time) {
		if phase == results.PhaseMeasure {
			wq.start(endCtx)
			cpuMu.Lock()
			cpuAtMeasure, cpuOK = ProcessCPU()
			cpuMu.Unlock()
		}
		if collector != nil {
			collector.Mark(phase, at)
		}
		if c.OnPhase != nil {
			c.OnPhase(phase, at)
		}
	}

	// Finish run.json on every way out from here.
	var finishOnce sync.Once
	var finishErr error
	finish := func() {
		finishOnce.Do(func() {
			run.EndedAt = time.Now()
			if dir != nil {
				finishErr = dir.Finish(run)
			}
		})
	}
	defer finish()
	notStarted := func() {
		finishOnce.Do(func() {})
		abandon()
	}

	if dir != nil {
		if err := dir.Event(results.Event{Kind: "config", Message: "run configuration beyond run.json's model", Data: c.eventConfig()}); err != nil {
			c.out("pgtrial: warning: " + err.Error())
		}
	}

	streams := prng.Derive(c.Seed.Value, c.Clients, c.Threads, DefinesVar(c.Vars, "default_seed"))
	if c.Segment != nil {
		streams = c.Segment.streams(c.Seed.Value, DefinesVar(c.Vars, "default_seed"))
	}
	runLogger := newRunLog(c.out, rec)
	cfg := c.engineConfig(programs, names, weights, pgcfg, streams, runLogger, rec)
	cfg.Metrics = set
	cfg.CutAtEnd = cutAtEnd
	cfg.Urgent = c.Urgent

	// The transaction logs: --txlog's in the run directory, Log's wherever.
	var ownLogs, logs txLogs
	if c.TxLog {
		spec, err := c.runTxLogSpec()
		if err == nil {
			ownLogs, err = openTxLogs(spec, c.Threads, streams)
			if err != nil {
				err = fmt.Errorf("--txlog: %w", err)
			}
		}
		if err != nil {
			notStarted()
			return nil, err
		}
	}
	if c.Log != nil {
		if logs, err = openTxLogs(c.Log, c.Threads, streams); err != nil {
			ownLogs.close()
			notStarted()
			return nil, err
		}
	}
	if ownLogs != nil || logs != nil {
		firstClient := c.Segment.firstClient() // a segment logs the whole load's client ids
		cfg.OnTx = func(client, group int, txNo int64, tx *metrics.Tx, end time.Time) {
			client += firstClient
			if ownLogs != nil {
				ownLogs.tx(client, group, txNo, tx, end)
			}
			if logs != nil {
				logs.tx(client, group, txNo, tx, end)
			}
		}
	}
	cfg.OnStart = func(start, bench time.Time) {
		ownLogs.start(bench)
		logs.start(bench)
		if c.OnStart != nil {
			c.OnStart(start, bench)
		}
		rec.Start(start, bench)
	}

	res, runErr := engine.Run(ctx, cfg)
	// The logs end with the clients (an aggregate log's last interval is
	// the one that ended by now).
	for _, err := range ownLogs.close() {
		c.out("pgtrial: warning: " + err.Error())
	}
	logErrs := logs.close()
	end := time.Now()
	if res != nil && !res.End.IsZero() {
		end = res.End
	}
	measure, writeErr := rec.Stop(end)
	windowValues := wq.end(endCtx)
	cpuAtEnd, cpuEndOK := ProcessCPU()
	runLogger.flush()
	var reason string
	var sigAt time.Time
	if c.Interrupt != nil {
		reason, sigAt = c.Interrupt()
	}

	if !rec.Started() {
		// The clients never got to run: nothing was measured.
		if collector != nil {
			collector.Stop(endCtx, end)
		}
		notStarted()
		if reason != "" || ctx.Err() != nil {
			return nil, &NotStartedError{Interrupted: true, Err: context.Cause(ctx), RunErr: runErr}
		}
		var ice *engine.InitialConnectError
		if errors.As(runErr, &ice) {
			return nil, &NotStartedError{Err: fmt.Errorf("client %d could not connect (%d clients, max_connections %s): %w",
				ice.Client, c.Clients, c.Target.Settings["max_connections"], pgerr.Connect(ice.Err, nil)), RunErr: runErr}
		}
		if runErr == nil {
			return nil, &NotStartedError{Err: errors.New("the run did not start")}
		}
		return nil, &NotStartedError{Err: runErr, RunErr: runErr}
	}

	r := &Result{Run: run, Dir: c.Dir, Err: runErr, Measure: measure, Engine: res, LogErrors: logErrs, WindowValues: windowValues}
	run.WindowValues = windowValues
	r.Interrupted = reason != "" || (res != nil && res.Interrupted)
	if r.Interrupted {
		if reason == "" {
			reason = "cancellation"
		}
		if sigAt.IsZero() {
			sigAt = end
		}
		rec.Interrupted(sigAt, reason)
		run.Interrupted, run.InterruptReason = true, reason
		r.Reason = reason
	}
	if res != nil {
		r.Aborted = res.Aborted
		run.Tallies = runTallies(res.Tallies) // tally.go
	}
	if r.Aborted > 0 {
		rec.Aborted(end, r.Aborted, c.Clients)
		run.Aborted = true
	}
	if runErr != nil {
		run.Warnings = append(run.Warnings, "engine: "+runErr.Error())
	}
	if res != nil && res.Closed > 0 {
		run.Warnings = append(run.Warnings, fmt.Sprintf("at the end of the run %d of %d connections were still waiting for the server after their cancel request and a grace, and were closed: the server was not answering", res.Closed, c.Clients))
	}
	r.Summary = results.Summarize(measure, names, model.Rate)
	r.Measured = rec.Measured()
	run.Phases = rec.Phases()
	run.Summary = &r.Summary
	run.Scenarios = c.resultScenarios(measure, names)
	if !r.Measured {
		run.Warnings = append(run.Warnings, fmt.Sprintf("the run ended during the warm-up (%v): nothing was measured; use a shorter warm-up or a longer run", c.Warmup))
	}
	if writeErr != nil {
		run.Warnings = append(run.Warnings, "writing the run directory: "+writeErr.Error())
	}
	stopCtx := endCtx
	if collector != nil && res != nil && res.Closed > 0 {
		// The server did not answer the cancel requests at the end: its
		// last samples get the time a server that answers needs.
		var cancel context.CancelFunc
		stopCtx, cancel = context.WithDeadline(endCtx, collector.QuickStop(end, time.Now()))
		defer cancel()
	}
	stopCollectors(stopCtx, collector, run, c.Dir, end, c.Interval)
	cpuMu.Lock()
	if ev := run.Evidence; ev != nil && cpuOK && cpuEndOK {
		if sec := ev.To.Sub(ev.From).Seconds(); sec > 0 {
			ev.ClientCPU = (cpuAtEnd - cpuAtMeasure).Seconds() / sec
		}
	}
	cpuMu.Unlock()
	if c.AfterRun != nil {
		for _, e := range c.AfterRun() {
			if dir == nil {
				continue
			}
			if err := dir.Event(e); err != nil {
				c.out("pgtrial: warning: " + err.Error())
			}
		}
	}
	if run.Segment != nil && !isClosed(c.Urgent) {
		if off, err := measureClock(context.Background(), c.ConnString); err != nil {
			run.Warnings = append(run.Warnings, "segment: the server's clock at the end: "+err.Error())
		} else {
			run.Segment.Clock = append(run.Segment.Clock, off)
		}
	}
	if c.BeforeFinish != nil {
		c.BeforeFinish(run, r)
	}
	if dir != nil {
		run.Checks = runChecks(run, c.Dir)
		cfg := explain.Defaults()
		if c.Explain != nil {
			cfg = *c.Explain
		}
		run.Findings = explain.Run(c.Dir, run, cfg)
	}
	finish()
	if finishErr != nil {
		c.out("pgtrial: warning: " + finishErr.Error())
	}
	return r, nil
}

// untilClosed is a context cancelled when ch is closed (never for a nil
// ch), or by its cancel function.
func untilClosed(ch <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	if ch != nil {
		go func() {
			select {
			case <-ch:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, cancel
}

// eventConfig is the config event's data: everything not in run.json's
// schema that a rerun needs.
func (c *Config) eventConfig() map[string]any {
	config := map[string]any{
		"random_seed":       strconv.FormatUint(c.Seed.Value, 10),
		"protocol":          c.Mode.String(),
		"max_tries":         c.MaxTries,
		"warmup_s":          c.Warmup.Seconds(),
		"interval_s":        c.Interval.Seconds(),
		"reconnect":         c.Pgbench == nil,
		"per_command":       c.PerCommand,
		"continue_on_error": c.ContinueOnError,
	}
	if len(c.Vars) > 0 {
		defines := map[string]string{}
		for _, v := range c.Vars {
			defines[v.Name] = v.Value
		}
		config["variables"] = defines
	}
	if len(c.Labels) > 0 {
		config["labels"] = c.Labels
	}
	return config
}

// clientConn is the clients' connection config: the user's, with
// application_name "pgtrial <run>" unless the user named the application
// (pgtrial's own runs; pgbench's front end names its clients "pgbench" in its
// connection string, as pgbench does). The role's settings are left alone:
// they are part of what is measured.
func (c *Config) clientConn(pgcfg *pgconn.Config) *pgconn.Config {
	if c.Pgbench != nil {
		return pgcfg
	}
	conn := pgcfg.Copy()
	pgsession.Client(conn, pgsession.ClientName(c.Dir))
	return conn
}

// engineConfig is the engine's config of the run, without its metrics and
// hooks (OnStart, OnTx): pgtrial's behaviour (reconnecting clients,
// messages to Out) or, under Pgbench, pgbench's.
func (c *Config) engineConfig(programs []*script.Script, names []string, weights []int, pgcfg *pgconn.Config, streams prng.Streams, runLogger *runLog, rec *Recorder) *engine.Config {
	scale := c.Scale
	if c.Pgbench == nil && (!NeedsPgbench(c.Scripts) || scale < 1) {
		scale = 1
	}
	cfg := &engine.Config{
		Program:         script.NewProgram(programs...),
		ScriptNames:     names,
		Weights:         weights,
		Mode:            c.Mode,
		Conn:            c.clientConn(pgcfg),
		Clients:         c.Clients,
		Groups:          c.Threads,
		Transactions:    c.Transactions,
		MaxTries:        uint32(c.MaxTries),
		LatencyLimit:    c.LatencyLimit,
		Rate:            c.Rate,
		Arrival:         c.Arrival,
		Overload:        c.Overload,
		ContinueOnError: c.ContinueOnError,
		PerCommand:      c.PerCommand,
		Streams:         streams,
		Setup:           clientSetup(c.Vars, scale, streams, c.Segment.firstClient()),
		Scenarios:       c.engineScenarios(),
		TallyAfter:      c.Warmup, // \tally counts in the measured window (tally.go)
		TallyTop:        results.MaxTallyTop,
	}
	cfg.Program.ZipfianBelowOne = c.Pgbench == nil // pgtrial's extension (script.Program)
	if c.Transactions == 0 {
		cfg.Duration = c.Warmup + c.Duration
	}
	if p := c.Pgbench; p != nil {
		// pgbench's dials: each thread connects its clients one after
		// the other, unpaced, with libpq's connect_timeout only.
		cfg.ConnectRate, cfg.ConnectConcurrency, cfg.ConnectTimeout = -1, c.Threads, -1
		cfg.ConnectPerTx = p.ConnectPerTx
		cfg.ExitOnAbort = p.ExitOnAbort
		cfg.VerboseErrors = p.VerboseErrors
		cfg.Debug = p.Debug
		cfg.Log = runLogger
		if p.Log != nil {
			cfg.Log = notingLog{Logger: p.Log, rec: rec}
		}
		cfg.ConnectError = p.ConnectError
		cfg.OnNotice = p.OnNotice
		if cfg.OnNotice == nil {
			cfg.OnNotice = func(n *pgconn.Notice) { cfg.Log.Info(fmt.Sprintf("%s: %s", n.Severity, n.Message)) }
		}
		cfg.Stdout, cfg.Stderr = p.Stdout, p.Stderr
		if cfg.Stderr != nil {
			cfg.Stderr = &lockedWriter{w: cfg.Stderr} // several clients write at once
		}
		if cfg.Stdout == nil {
			cfg.Stdout = os.Stdout
		}
		return cfg
	}
	shellOut := c.ShellOut
	if shellOut == nil {
		shellOut = os.Stderr
	}
	shellOut = &lockedWriter{w: shellOut}
	cfg.Reconnect = true
	cfg.PrepareFailsCommand = true // the syntax error, not "prepared statement does not exist"
	cfg.ConnectRate = c.ConnectRate
	// A lost connection's message in the run's log: the cause first, as
	// every other connect error of pgtrial's (pgerr), not the driver's text.
	cfg.ConnectError = func(err error) string { return pgerr.Message(err) }
	cfg.Log = runLogger
	cfg.Stdout, cfg.Stderr = shellOut, shellOut
	cfg.OnNotice = func(n *pgconn.Notice) {
		runLogger.Info(fmt.Sprintf("%s: %s", n.Severity, n.Message))
	}
	if s := c.Segment; s != nil {
		if s.Rate > 0 {
			cfg.RateOf = &engine.RateShare{Rate: s.Rate, Groups: s.Threads} // the whole load's slot gap, bit for bit
		}
		cfg.StartAt = s.StartAt
	}
	return cfg
}

// NotStartedError is Run's error when the clients never ran: nothing was
// measured and the run directory is gone.
type NotStartedError struct {
	Interrupted bool  // ctx was cancelled (a signal) before the run started
	Err         error // what went wrong, for pgtrial's messages
	RunErr      error // the engine's error as it returned it (pgbench's messages); nil when it returned none
}

func (e *NotStartedError) Error() string {
	if e.Interrupted {
		return "interrupted before the run started; nothing was measured"
	}
	return e.Err.Error()
}

func (e *NotStartedError) Unwrap() error { return e.Err }

// removeRunDir removes what results.Create and the collectors made when the
// run never started: their files, and the directory unless it existed
// before (or holds other files).
func removeRunDir(dir string, existed bool) {
	for _, name := range []string{results.RunFile, results.LatencyFile, results.TimelineFile, results.EventsFile,
		results.WaitsFile, results.StatementsFile, results.ServerFile, results.OSFile} {
		os.Remove(filepath.Join(dir, name))
	}
	os.RemoveAll(filepath.Join(dir, "txlog")) // Run made it
	if !existed {
		os.Remove(dir)
		// Also the default parent (./pgtrial-runs) when it is now empty.
		if filepath.Base(filepath.Dir(dir)) == "pgtrial-runs" {
			os.Remove(filepath.Dir(dir))
		}
	}
}

// lockedWriter serializes writes (\shell output and debug() lines from
// several clients).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
