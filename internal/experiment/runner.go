package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/capacity"
	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/loader"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/serverctl"
	"github.com/pgtrial/pgtrial/internal/trial"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// Env is what Execute needs besides the spec: the resolved target and where
// to write.
type Env struct {
	ConnString string              // the target (ResolveTarget)
	Restarter  serverctl.Restarter // nil: settings that need a restart are refused
	// LocalCluster: the target is pgtrial's own local cluster, so the
	// collectors create the extensions they read (pg_stat_statements,
	// pg_wait_sampling) in the database on first use.
	LocalCluster bool
	LocalName    string // the local cluster's name when LocalCluster (recorded for --restore)
	Dir          string // the experiment directory; created, must not hold an experiment
	Tool         results.Tool
	// CommandLine is recorded in every run.json (passwords redacted).
	CommandLine []string
	// Out receives progress and messages, one line each; nil: none.
	Out func(line string)
	// Status receives the live status of the running run each interval;
	// nil: none.
	Status func(line string)
	// Interrupt says why ctx was cancelled (e.g. "SIGINT"), for run.json.
	Interrupt func() (string, time.Time)
	// Urgent, when closed (a second signal), shortens the putting back of
	// the server's settings and the teardown to urgentRestoreTimeout; nil:
	// never.
	Urgent <-chan struct{}
	// Force starts the experiment even though the server's
	// postgresql.auto.conf holds another experiment's unrestored values
	// (serverctl.MarkerSetting).
	Force bool
	// Explain is the findings' settings (--explain), for every run's
	// findings and the experiment's; nil: the defaults.
	Explain *explain.Config
	// OnRun, if set, is called with each run's config just before the run,
	// to add hooks of its own (the live metrics, `--metrics-addr`); it must
	// keep the hooks it finds (call them from its own).
	OnRun func(tc *trial.Config)
}

// restoreTimeout bounds putting a variant back (teardown SQL, settings,
// reload or restart); urgentRestoreTimeout does once Env.Urgent is closed.
const (
	restoreTimeout       = 5 * time.Minute
	urgentRestoreTimeout = 20 * time.Second
)

// runner is one execution of a spec.
type runner struct {
	spec              *Spec
	env               Env
	rec               *Record
	scripts           []trial.Script
	target            results.Target
	scale             int  // pgbench scale of the tables; 0: no pgbench tables
	loaded            bool // the tables are there at scale already: nothing to load
	window            time.Duration
	checkpointTimeout time.Duration
	seed              uint64
	context           map[string]string // pg_settings.context of the variants' settings

	current int // the variant in effect (index), -1 for none
	applied *serverctl.Applied
	// pending is restore.json's content while the server holds a variant's
	// changes (written before them, removed once they are undone); nil: none.
	pending *results.RestoreState
	// foreign is another experiment's marker found on the server (--force):
	// it stays, and this experiment writes none of its own.
	foreign string
	n       int // runs made

	tpccWarehouses int               // builtin tpcc: tpcc_meta's warehouses (runner_tpcc.go)
	tpccProbe      []trial.Var       // builtin tpcc: the mix's probe variables the file does not define
	tpccProbeGot   map[string]string // builtin tpcc: every probe variable as the clients get it (run.json's workload.probe)
	tpccLoad       bool              // builtin tpcc: load workload.warehouses before the runs

	scenarios []trial.Scenario // the file's concurrent scenarios (runner_scenarios.go); nil: none
}

func (r *runner) out(format string, args ...any) {
	if r.env.Out != nil {
		r.env.Out(fmt.Sprintf(format, args...))
	}
}

// Execute runs the experiment: checks everything it can before touching
// the database (the preflight: scripts, server settings and their
// contexts, tables of the injections, the window against
// checkpoint_timeout), loads the workload's tables when the file gives a
// scale, then runs the protocol: every variant Repeats times, interleaved
// A B A B … (or A A … B B …), each run after its warm-up, with the
// variant's settings applied (ALTER SYSTEM and reload, or restart) and its
// setup SQL run before its runs and undone after them. It writes
// experiment.json after every run and returns the Record (also when an
// error or ctx ends the experiment early: Record.Error and Interrupted say
// so). The server's settings are restored on every way out.
func Execute(ctx context.Context, spec *Spec, env Env) (*Record, error) {
	if env.Dir == "" || env.ConnString == "" {
		return nil, errors.New("experiment: no directory or target")
	}
	r := &runner{spec: spec, env: env, current: -1}
	return r.execute(ctx, r.protocol, nil)
}

// execute is the frame of an experiment: the preflight, the directory and
// experiment.json, the tables, then body (the runs), the server restored
// whatever happened, the analysis with conclude's additions (nil: none),
// and the final experiment.json.
func (r *runner) execute(ctx context.Context, body func(context.Context) error, conclude func()) (*Record, error) {
	env := r.env
	if err := r.preflight(ctx); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(env.Dir, File)); err == nil {
		return nil, fmt.Errorf("%s already holds an experiment; choose a new directory", env.Dir)
	}
	if err := results.MakeDirs("experiment directory", env.Dir, filepath.Join(env.Dir, RunsDir)); err != nil {
		return nil, err
	}
	r.rec = r.newRecord()
	if err := r.rec.write(env.Dir); err != nil {
		return nil, err
	}
	defer r.restore()

	err := r.loadTables(ctx)
	if err == nil {
		err = r.shapeData(ctx) // spec_data.go
	}
	if err == nil {
		err = r.ageData(ctx) // spec_data.go
	}
	if err == nil {
		err = body(ctx)
	}
	r.restore()
	r.analyse()
	if conclude != nil {
		conclude()
	}
	r.rec.EndedAt = time.Now()
	if err != nil {
		if ctx.Err() != nil {
			r.rec.Interrupted = true
			if r.env.Interrupt != nil {
				r.rec.Reason, _ = r.env.Interrupt()
			}
			if r.rec.Reason == "" {
				r.rec.Reason = context.Cause(ctx).Error()
			}
		}
		r.rec.Error = err.Error()
	}
	r.rec.Unrestored = r.pending != nil
	if werr := r.rec.write(env.Dir); werr != nil && err == nil {
		err = werr
	}
	return r.rec, err
}

// preflight checks the spec against the server without changing anything.
func (r *runner) preflight(ctx context.Context) error {
	s := r.spec
	if err := checkLocalListen(s, r.env); err != nil {
		return err
	}
	// Scripts.
	if s.Workload.TPCCMode != "" {
		sc, err := tpccScripts(s.Workload.Builtin) // runner_tpcc.go
		if err != nil {
			return err
		}
		r.scripts = sc
	} else if s.Workload.Builtin != "" {
		sc, err := trial.LoadScript(true, s.Workload.Builtin, 1)
		if err != nil {
			return err
		}
		r.scripts = []trial.Script{sc}
	}
	for _, f := range s.Workload.Scripts {
		sc, err := trial.LoadScript(false, f.Path, f.Weight)
		if err != nil {
			return fmt.Errorf("%s:%d:%d: workload.scripts: %w", s.File, f.Pos.Line, f.Pos.Column, err)
		}
		r.scripts = append(r.scripts, sc)
	}
	if err := r.loadScenarios(); err != nil { // runner_scenarios.go
		return err
	}
	if err := trial.PrepareScripts(r.scripts, s.Workload.Protocol); err != nil {
		return err
	}

	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	tgt, _, err := trial.Inspect(cctx, r.env.ConnString, false)
	if err != nil {
		return err
	}
	r.target = tgt
	conn, err := ownConnect(cctx, r.env.ConnString)
	if err != nil {
		return pgerr.Connect(err, nil)
	}
	defer conn.Close(context.Background())

	// Another experiment's values still on the server (serverctl.MarkerSetting).
	if m, err := serverctl.UnrestoredMarker(cctx, conn); err != nil {
		return err
	} else if m != "" {
		msg := fmt.Sprintf("the server's postgresql.auto.conf still holds settings that the experiment in %s did not put back (%s = '%s')", m, serverctl.MarkerSetting, m)
		if !r.env.Force {
			return fmt.Errorf("%s; nothing was changed: run `pgtrial experiment --restore %s`, or give --force to start anyway", msg, m)
		}
		r.out("pgtrial: warning: %s; starting anyway (--force): this experiment's \"before\" is the server as it is now, and the marker stays for `pgtrial experiment --restore %s`", msg, m)
		r.foreign = m
	}

	var ckptS int64
	if err := conn.QueryRow(cctx, "SELECT setting::bigint FROM pg_catalog.pg_settings WHERE name = 'checkpoint_timeout'").Scan(&ckptS); err != nil {
		return fmt.Errorf("read checkpoint_timeout: %w", err)
	}
	r.checkpointTimeout = time.Duration(ckptS) * time.Second
	r.window = s.Protocol.WindowFor(r.checkpointTimeout)
	if err := s.CheckWindow(r.window); err != nil {
		return err
	}

	// Settings: known to this server, and restartable when they must be.
	r.context = map[string]string{}
	for vi, v := range s.Variants {
		for _, st := range v.Settings {
			var name, context string
			err := conn.QueryRow(cctx, "SELECT name, context FROM pg_catalog.pg_settings WHERE lower(name) = lower($1)", st.Name).Scan(&name, &context)
			where := fmt.Sprintf("%s:%d:%d: variants[%d].settings.%s", s.File, st.Pos.Line, st.Pos.Column, vi, st.Name)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				return fmt.Errorf("%s: the server (PostgreSQL %s) has no setting %q", where, tgt.ServerVersion, st.Name)
			case err != nil:
				return fmt.Errorf("%s: %w", where, err)
			case context == "internal":
				return fmt.Errorf("%s: %s is read-only (fixed when the server was built or initialised)", where, name)
			case context == "postmaster" && r.env.Restarter == nil && s.Target.URL == "" && !r.env.LocalCluster:
				// The server came from the libpq environment (PGHOST, …): restart_command goes with target.url.
				return fmt.Errorf("%s: %s needs a server restart, and the target comes from the libpq environment, which pgtrial cannot restart; give the server as target.url with target.restart_command, or leave the setting out", where, name)
			case context == "postmaster" && r.env.Restarter == nil:
				return fmt.Errorf("%s: %s needs a server restart, and the target is remote without target.restart_command; give one, or leave the setting out", where, name)
			}
			r.context[strings.ToLower(st.Name)] = context
		}
	}

	// The workload's tables: loaded below when the file gives a scale (or
	// builtin tpcc's warehouses), else they must be there.
	if s.Workload.TPCCMode != "" {
		if err := r.tpccPreflight(cctx, conn); err != nil { // runner_tpcc.go
			return err
		}
	}
	needs := trial.NeedsPgbench(r.scripts)
	if s.Workload.Scale > 0 {
		branches := int64(-1)
		var exists bool
		err := conn.QueryRow(cctx, "SELECT to_regclass('pgbench_branches') IS NOT NULL").Scan(&exists)
		if err == nil && exists {
			err = conn.QueryRow(cctx, "SELECT count(*) FROM pgbench_branches").Scan(&branches)
		}
		if err != nil {
			return fmt.Errorf("read the scale from pgbench_branches: %w", err)
		}
		r.scale = s.Workload.Scale
		r.loaded = branches == int64(s.Workload.Scale)
	} else if needs {
		_, scale, err := trial.Inspect(cctx, r.env.ConnString, true)
		if err != nil {
			return err
		}
		r.scale, r.loaded = scale, true
	}

	// Tables of the injections (pgbench's are made by the load when missing).
	for _, inj := range s.Injections {
		if inj.Table == "" {
			continue
		}
		if s.Workload.Scale > 0 && strings.HasPrefix(inj.Table, "pgbench_") || r.tpccLoads(inj.Table) {
			continue
		}
		var ok bool
		if err := conn.QueryRow(cctx, "SELECT to_regclass($1) IS NOT NULL", inj.Table).Scan(&ok); err != nil || !ok {
			return fmt.Errorf("%s:%d:%d: injections: table %q does not exist in database %q", s.File, inj.Pos.Line, inj.Pos.Column, inj.Table, conn.Config().Database)
		}
	}

	if s.Seed != nil {
		r.seed = *s.Seed
	} else {
		r.seed = prng.TimeSeed().Value
	}
	return nil
}

// ownConnect opens one of pgtrial's own sessions for the preflight's short
// queries: statement_timeout and the other timeouts of its own
// (pgsession.Own), not the role's.
func ownConnect(ctx context.Context, connString string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, err
	}
	pgsession.Own(&cfg.Config, pgsession.NameSetup, pgsession.Short)
	return pgx.ConnectConfig(ctx, cfg)
}

// loadTables loads the pgbench tables when the file gives a scale that the
// database does not have (as `pgtrial init -s`: tables pgtrial did not
// create are never dropped), and builtin tpcc's when the file gives
// warehouses that the database does not have (loadTPCC).
func (r *runner) loadTables(ctx context.Context) error {
	if err := r.loadTPCC(ctx); err != nil { // runner_tpcc.go
		return err
	}
	if r.loaded || r.scale == 0 {
		return nil
	}
	pgcfg, err := pgconn.ParseConfig(r.env.ConnString)
	if err != nil {
		return err
	}
	pgsession.Own(pgcfg, pgsession.NameInit, pgsession.Unbounded) // COPY and index builds: as long as they take
	steps, err := loader.ParseSteps(loader.DefaultSteps, false, false)
	if err != nil {
		return err
	}
	r.out("pgtrial: loading the pgbench tables at scale %d (pgtrial init -s %d)", r.scale, r.scale)
	res, err := loader.Run(ctx, loader.Config{
		Conn:     pgcfg,
		Schema:   workload.Pgbench{Scale: int64(r.scale), Fillfactor: 100},
		Steps:    steps,
		Format:   workload.CopyBinary,
		Out:      discard{},
		Progress: loader.ProgressQuiet,
	})
	if err != nil {
		return fmt.Errorf("load the pgbench tables: %w", err)
	}
	r.out("pgtrial: %s", res.Summary())
	r.rec.Scale = r.scale
	r.rec.Loaded = &TablesLoaded{Workload: "pgbench", Scale: r.scale, Command: fmt.Sprintf("pgtrial init -s %d", r.scale), DurationS: res.Total.Seconds()}
	return nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func (r *runner) newRecord() *Record {
	s := r.spec
	rec := &Record{
		Schema: SchemaVersion, Name: s.Name, Description: s.Description, File: s.File,
		StartedAt: time.Now(), Tool: r.env.Tool, Target: r.target,
		Workload: r.workloadName(), Scale: r.scale, // runner_tpcc.go
		Model: s.Model().String(), Clients: s.Load.Clients, Rate: s.Load.Rate,
		WarmupS: s.Protocol.Warmup.Seconds(), WindowS: r.window.Seconds(),
		Repeats: s.Protocol.Repeats, Interleave: s.Protocol.Interleave, Seed: r.seed,
	}
	for _, v := range s.Variants {
		vr := VariantRecord{Name: v.Name, Setup: v.Setup, Teardown: v.Teardown}
		if len(v.Settings) > 0 {
			vr.Settings = map[string]string{}
			for _, st := range v.Settings {
				vr.Settings[st.Name] = st.Value
			}
		}
		rec.Variants = append(rec.Variants, vr)
	}
	rec.Scenarios = r.scenarioRecords() // runner_scenarios.go
	for _, inj := range s.Injections {
		rec.Injections = append(rec.Injections, InjectionPlanned{Kind: inj.Kind.String(), AtS: inj.At.Seconds(), Table: inj.Table, DurationS: inj.Duration.Seconds()})
	}
	return rec
}

// planned is one run of the protocol.
type planned struct {
	variant, repeat int
}

// order is the protocol's sequence of runs: interleaved, repeat by repeat
// (A B A B …), or variant by variant (A A … B B …).
func (r *runner) order() []planned {
	var out []planned
	s := r.spec
	if s.Protocol.Interleave {
		for rep := 1; rep <= s.Protocol.Repeats; rep++ {
			for vi := range s.Variants {
				out = append(out, planned{vi, rep})
			}
		}
		return out
	}
	for vi := range s.Variants {
		for rep := 1; rep <= s.Protocol.Repeats; rep++ {
			out = append(out, planned{vi, rep})
		}
	}
	return out
}

// protocol runs every planned run.
func (r *runner) protocol(ctx context.Context) error {
	s := r.spec
	if s.Search != nil {
		return r.search(ctx)
	}
	if s.Protocol.Calibrate.Runs > 0 && s.Load.Ramp == nil {
		if err := r.calibrate(ctx); err != nil {
			return err
		}
		s = r.spec // adjust may have raised the repeats
	}
	plan := r.order()
	for i, p := range plan {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.useVariant(ctx, p.variant); err != nil {
			return err
		}
		r.out("pgtrial: run %d of %d: variant %s, repeat %d", i+1, len(plan), s.Variants[p.variant].Name, p.repeat)
		if s.Load.Ramp != nil {
			if err := r.ramp(ctx, p); err != nil {
				return err
			}
			continue
		}
		_, err := r.run(ctx, runPlan{variant: p.variant, repeat: p.repeat, clients: s.Load.Clients, rate: s.Load.Rate,
			warmup: s.Protocol.Warmup, duration: r.window, injections: true})
		if err != nil {
			return err
		}
	}
	return nil
}

// ramp runs the levels of one repeat, lowest first: a warm-up before the
// first level only.
func (r *runner) ramp(ctx context.Context, p planned) error {
	s := r.spec
	rp := s.Load.Ramp
	step := rp.Step(r.window)
	for li, level := range rp.Levels() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rn := runPlan{variant: p.variant, repeat: p.repeat, clients: s.Load.Clients, rate: s.Load.Rate,
			duration: step, phase: "step", level: level}
		if li == 0 {
			rn.warmup = s.Protocol.Warmup
		}
		if rp.By == RampClients {
			rn.clients = int(level)
		} else {
			rn.rate = level
		}
		if _, err := r.run(ctx, rn); err != nil {
			return err
		}
	}
	return nil
}

// runPlan is one trial run.
type runPlan struct {
	variant, repeat int
	clients         int
	rate            float64 // 0: closed
	warmup          time.Duration
	duration        time.Duration
	phase           string
	level           float64
	injections      bool
	noLimit         bool // no latency limit, whatever the spec says
	calibration     bool // an A/A calibration run (Record.Calibration)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.+-]+`)

// run makes one run and records it.
func (r *runner) run(ctx context.Context, p runPlan) (*RunRecord, error) {
	s := r.spec
	r.n++
	v := s.Variants[p.variant]
	name := fmt.Sprintf("%03d-%s-r%d", r.n, unsafeName.ReplaceAllString(v.Name, "_"), p.repeat)
	if p.phase != "" {
		name += "-" + p.phase
	}
	if p.level > 0 {
		name += "-" + strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.1f", p.level), "0"), ".")
	}
	rel := filepath.Join(RunsDir, name)
	// The run's load: a ramp's level, a search's rate; the rules of
	// `pgtrial run`'s flags.
	load := engine.Load{Clients: p.clients, Threads: s.Load.Threads, Rate: p.rate, Arrival: s.Load.Arrival,
		Overload: s.Load.Overload, LatencyLimit: s.Load.LatencyLimit}
	if p.noLimit {
		load.LatencyLimit = 0
	}
	if errs := load.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("run %s: %w", name, errors.Join(errs...))
	}
	threads := load.Groups()
	seed := r.seed + uint64(p.repeat-1)
	vars := make([]trial.Var, len(s.Workload.Variables))
	for i, x := range s.Workload.Variables {
		vars[i] = trial.Var{Name: x.Name, Value: x.Value}
	}
	kinds := s.Collect.Kinds
	tc := &trial.Config{
		Explain:         r.env.Explain,
		ConnString:      r.env.ConnString,
		Target:          r.target,
		Scale:           r.scale,
		Scripts:         r.scripts,
		Mode:            s.Workload.Protocol,
		Clients:         p.clients,
		Threads:         threads,
		Rate:            p.rate,
		Arrival:         s.Load.Arrival,
		Overload:        s.Load.Overload,
		Duration:        p.duration,
		Warmup:          p.warmup,
		LatencyLimit:    s.Load.LatencyLimit,
		Interval:        s.Interval,
		MaxTries:        s.Workload.MaxTries,
		ContinueOnError: s.Workload.ContinueOnError,
		Vars:            vars,
		Seed:            prng.Seed{Value: seed, Explicit: true},
		Collect: trial.Collect{Off: s.Collect.Off, Kinds: kinds, WaitInterval: s.Collect.WaitInterval,
			WaitSource: s.Collect.WaitSource, NodeExporter: s.Target.NodeExporter, CreateExtensions: r.env.LocalCluster},
		Dir:         filepath.Join(r.env.Dir, rel),
		Tool:        r.env.Tool,
		CommandLine: r.env.CommandLine,
		Labels: map[string]string{"experiment": s.Name, "variant": v.Name, "repeat": fmt.Sprint(p.repeat),
			"run": fmt.Sprint(r.n)},
		Out:       r.env.Out,
		Interrupt: r.env.Interrupt,
		Urgent:    r.env.Urgent,
	}
	if p.phase != "" {
		tc.Labels["phase"] = p.phase
	}
	if m, ok := workload.FindMix(s.Workload.Builtin); ok {
		tc.Tables = m.Tables() // its own tables, not pgbench's (its scripts are Builtin)
	}
	if s.Workload.TPCCMode != "" {
		r.addTPCC(tc) // runner_tpcc.go
	}
	if err := r.useScenarios(tc, &p); err != nil { // runner_scenarios.go
		return nil, fmt.Errorf("run %s: %w", name, err)
	}
	if p.noLimit {
		tc.LatencyLimit = 0
	}
	if r.env.Status != nil {
		rate := p.rate
		tc.OnInterval = func(t *trial.Tick) { r.env.Status(statusLine(name, t, rate)) }
	}
	// Injections, timed from the measured phase's start.
	var sched *serverctl.Scheduled
	injCtx, cancelInj := context.WithCancel(ctx)
	defer cancelInj()
	if p.injections && len(s.Injections) > 0 {
		list := make([]serverctl.Injection, len(s.Injections))
		for i, inj := range s.Injections {
			list[i] = serverctl.Injection{Kind: inj.Kind, At: inj.At, Table: inj.Table, Duration: inj.Duration}
		}
		tc.OnPhase = func(phase string, at time.Time) {
			if phase == results.PhaseMeasure && sched == nil {
				sched = serverctl.Schedule(injCtx, r.env.ConnString, at, list)
			}
		}
	}
	// The injections end with the run (a lock still held is released) and
	// go into its events.jsonl before its checklist is made.
	var injected []serverctl.Injected
	var injDone bool
	endInjections := func() {
		if injDone {
			return
		}
		injDone = true
		cancelInj()
		if sched != nil {
			injected = sched.Wait()
		}
	}
	tc.AfterRun = func() []results.Event {
		endInjections()
		return injectionEvents(injected)
	}
	var res *trial.Result
	var err error
	if n := segmentsOf(&s.Load); n > 1 {
		res, err = r.runSegments(ctx, tc, n, name) // runner_segments.go
	} else {
		if r.env.OnRun != nil {
			r.env.OnRun(tc)
		}
		res, err = trial.Run(ctx, tc)
	}
	endInjections()
	rr := RunRecord{N: r.n, Variant: v.Name, Repeat: p.repeat, Phase: p.phase, Level: p.level,
		Clients: p.clients, Rate: p.rate, Dir: rel, Seed: seed, Injected: injected}
	if err != nil {
		rr.Error = err.Error()
		r.keep(rr, p.calibration)
		r.rec.write(r.env.Dir)
		return nil, fmt.Errorf("run %s: %w", name, err)
	}
	fillRunRecord(&rr, res)
	rr.Scenarios = scenarioRuns(res.Run) // runner_scenarios.go
	out := r.keep(rr, p.calibration)
	if err := r.rec.write(r.env.Dir); err != nil {
		r.out("pgtrial: warning: %v", err)
	}
	r.out("pgtrial: %s: %.1f tps, p50 %s ms, p99 %s ms%s", name, rr.TPS, format.Ms(rr.P50), format.Ms(rr.P99), skippedText(rr.SkippedShare))
	r.outScenarios(out)
	if res.Interrupted {
		return out, fmt.Errorf("run %s interrupted by %s", name, res.Reason)
	}
	if err := tpccFailed(name, res.Run.TPCC); err != nil {
		return out, err
	}
	return out, nil
}

// keep adds a run to the record: to its runs, or a calibration run to the
// calibration's (left out of every comparison). It returns the record kept.
func (r *runner) keep(rr RunRecord, calibration bool) *RunRecord {
	if calibration && r.rec.Calibration != nil {
		c := r.rec.Calibration
		c.RunRecords = append(c.RunRecords, rr)
		return &c.RunRecords[len(c.RunRecords)-1]
	}
	r.rec.Runs = append(r.rec.Runs, rr)
	return &r.rec.Runs[len(r.rec.Runs)-1]
}

func skippedText(share float64) string {
	if share <= 0 {
		return ""
	}
	return ", skipped+dropped " + format.Share(share)
}

// fillRunRecord copies a run's figures into its record.
func fillRunRecord(rr *RunRecord, res *trial.Result) {
	run := res.Run
	rr.StartedAt = run.StartedAt
	t := res.Summary.Total
	rr.TPS, rr.P50, rr.P90, rr.P95, rr.P99, rr.P999, rr.Max = t.TPS, t.Response.P50, t.Response.P90, t.Response.P95, t.Response.P99, t.Response.P999, t.Response.Max
	rr.ServiceP99, rr.LagP99 = t.Service.P99, t.Lag.P99
	rr.Started = t.Committed + t.Failed + t.Unfinished // the count the rate_achieved item judges
	if sched := t.Committed + t.Skipped + t.Failed + t.Dropped; sched > 0 {
		rr.SkippedShare = float64(t.Skipped+t.Dropped) / float64(sched)
		rr.FailedShare = float64(t.Failed) / float64(sched)
	}
	rr.Interrupted, rr.Aborted = res.Interrupted, res.Aborted > 0
	if res.Err != nil {
		rr.Error = res.Err.Error()
	}
	rr.Checks = checks.Worst(run.Checks)
	if run.Model.Kind == results.ModelOpen {
		timeline, _ := results.ReadTimeline(res.Dir)
		events, _ := results.ReadEvents(res.Dir)
		rr.LagGrowing, _ = checks.LagGrowing(run, timeline, events)
	}
}

// injectionEvents are the run's events of its injections (at their start).
func injectionEvents(list []serverctl.Injected) []results.Event {
	var out []results.Event
	for _, in := range list {
		data := map[string]any{"kind": in.Kind, "planned": in.Planned}
		msg := in.Kind
		if in.Table != "" {
			data["table"] = in.Table
			msg += " " + in.Table
		}
		if !in.Acquired.IsZero() {
			data["acquired"] = in.Acquired
			data["held_ms"] = float64(in.End.Sub(in.Acquired).Microseconds()) / 1000
		}
		if !in.End.IsZero() {
			data["end"] = in.End
		}
		at := in.Start
		if at.IsZero() {
			at = in.Planned
		}
		if in.Err != "" {
			data["error"] = in.Err
			msg += ": " + in.Err
		} else if !in.Start.IsZero() && !in.End.IsZero() {
			msg += fmt.Sprintf(" (%.3g s)", in.End.Sub(in.Start).Seconds())
		}
		out = append(out, results.Event{Time: at, Kind: results.EventInjection, Message: "injected " + msg, Data: data})
	}
	return out
}

// statusLine is the live status of a run.
func statusLine(name string, t *trial.Tick, rate float64) string {
	st := &t.Interval.Total.Stats
	tps := 0.0
	if d := t.Interval.Duration().Seconds(); d > 0 {
		tps = float64(st.Count) / d
	}
	s := fmt.Sprintf("%s  %6.1f s  %-7s  %9.1f tps", name, t.Elapsed.Seconds(), t.Phase, tps)
	if rate > 0 {
		s += fmt.Sprintf(" of %.0f", rate)
	}
	return s
}

// search runs the capacity search for each variant in turn.
func (r *runner) search(ctx context.Context) error {
	s := r.spec
	if len(s.Variants) > 1 {
		r.rec.Warnings = append(r.rec.Warnings, "capacity search runs the variants one after the other (a search is sequential); compare their capacities with care")
	}
	for vi := range s.Variants {
		if err := r.useVariant(ctx, vi); err != nil {
			return err
		}
		pr := &prober{r: r, variant: vi}
		cfg := capacity.Config{
			Quantile: s.Search.SLO.Quantile, Limit: s.Search.SLO.Limit, Fractions: s.Search.Fractions,
			CeilingRepeats: s.Search.CeilingRepeats, BracketRepeats: s.Search.BracketRepeats, Precision: s.Search.Precision, MaxSteps: s.Search.MaxSteps,
			OnProbe: func(st capacity.Step) {
				if st.Probe.Kind == capacity.KindOpen {
					ok := "meets"
					if !st.Pass {
						ok = "misses"
					}
					r.out("pgtrial: %s at %.0f tx/s %s the SLO: %s", st.Phase, st.Probe.Rate, ok, st.Why)
				}
			},
		}
		res, err := capacity.Search(ctx, pr, cfg)
		if vi == 0 || r.rec.Search == nil {
			r.rec.Search = res
		}
		if res != nil {
			r.out("pgtrial: variant %s: %s", s.Variants[vi].Name, capacity.Conclusion(res))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// prober makes the search's runs.
type prober struct {
	r       *runner
	variant int
}

func (p *prober) Closed(ctx context.Context, n int) (capacity.Probe, error) {
	s := p.r.spec
	rr, err := p.r.run(ctx, runPlan{variant: p.variant, repeat: n, clients: s.Load.Clients,
		warmup: s.Protocol.Warmup, duration: p.r.window, phase: capacity.PhaseCeiling})
	if err != nil {
		return capacity.Probe{}, err
	}
	return p.probe(rr)
}

func (p *prober) Open(ctx context.Context, rate float64, n int) (capacity.Probe, error) {
	s := p.r.spec
	rr, err := p.r.run(ctx, runPlan{variant: p.variant, repeat: n, clients: s.Load.Clients, rate: rate,
		warmup: s.Protocol.Warmup, duration: p.r.window, phase: "open"})
	if err != nil {
		return capacity.Probe{}, err
	}
	return p.probe(rr)
}

func (p *prober) probe(rr *RunRecord) (capacity.Probe, error) {
	q := p.r.spec.Search.SLO.Quantile
	ms, err := quantileOf(rr, q)
	if err != nil {
		return capacity.Probe{}, fmt.Errorf("the search's SLO: %w", err)
	}
	return capacity.Probe{
		Rate: rr.Rate, Achieved: rr.TPS, Quantile: time.Duration(ms * float64(time.Millisecond)),
		LagGrowing: rr.LagGrowing, SkippedShare: rr.SkippedShare, FailedShare: rr.FailedShare, Dir: rr.Dir,
		WindowS: p.r.window.Seconds(), Started: float64(rr.Started), Uniform: p.r.spec.Load.Arrival == engine.Uniform,
	}, nil
}

// quantileOf is a run's response-time quantile q in ms: one of
// metrics.Quantiles, the quantiles a RunRecord keeps; an error for any
// other (an SLO's quantile comes from the same list).
func quantileOf(rr *RunRecord, q float64) (float64, error) {
	switch q {
	case 0.5:
		return rr.P50, nil
	case 0.9:
		return rr.P90, nil
	case 0.95:
		return rr.P95, nil
	case 0.99:
		return rr.P99, nil
	case 0.999:
		return rr.P999, nil
	}
	return 0, fmt.Errorf("a run record keeps the response time's %s, not the %g quantile", strings.Join(metrics.QuantileNames(), ", "), q)
}
