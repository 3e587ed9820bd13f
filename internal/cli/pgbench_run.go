package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgbenchfmt"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// pgbenchLog writes pgbench's messages to stderr with its prefixes
// ("pgbench: error: ", "pgbench: " for info and debug), one write per
// message so that concurrent clients do not interleave lines.
type pgbenchLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *pgbenchLog) write(prefix, msg string) {
	msg = strings.TrimSuffix(msg, "\n")
	l.mu.Lock()
	io.WriteString(l.w, prefix+msg+"\n")
	l.mu.Unlock()
}

func (l *pgbenchLog) Error(msg string)   { l.write("pgbench: error: ", msg) }
func (l *pgbenchLog) Info(msg string)    { l.write("pgbench: ", msg) }
func (l *pgbenchLog) Debug(msg string)   { l.write("pgbench: ", msg) }
func (l *pgbenchLog) Warning(msg string) { l.write("pgbench: warning: ", msg) }
func (l *pgbenchLog) Detail(msg string)  { l.write("pgbench: detail: ", msg) }
func (l *pgbenchLog) Hint(msg string)    { l.write("pgbench: hint: ", msg) }

// lockedWriter serializes writes (debug() lines from several clients).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// runPgbenchBench is pgbench's benchmarking mode on pgtrial's engine: the
// setup connection and its checks, the vacuum, the run, the report.
func runPgbenchBench(ctx context.Context, o *pgbenchfmt.Options, info BuildInfo, stdout, stderr io.Writer) int {
	log := &pgbenchLog{w: stderr}
	pgcfg, err := pgconn.ParseConfig(o.ConnString(os.LookupEnv))
	if err != nil {
		log.Error(pgbenchfmt.PQErrorMessage(err))
		return exitBadInput
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// The first signal cancels the run (in-flight queries are
		// cancelled, the report of what was measured is printed); restoring
		// the default handling makes a second one end the process at once.
		<-ctx.Done()
		stop()
	}()

	con, err := pgconn.ConnectConfig(ctx, pgcfg)
	if err != nil {
		log.Error(pgbenchfmt.PQErrorMessage(err))
		log.Error("could not create connection for setup")
		return exitBadInput
	}
	defer con.Close(context.Background())

	serverNum, _ := strconv.Atoi(con.ParameterStatus("server_version_num"))
	if serverNum == 0 {
		serverNum = serverVersionNum(con.ParameterStatus("server_version"))
	}
	io.WriteString(stdout, pgbenchfmt.Banner(info.Version, serverNum, con.ParameterStatus("server_version")))
	if o.Debug {
		what, n := "nxacts", o.Transactions
		if o.Duration > 0 {
			what, n = "duration", o.Duration
		}
		log.Debug(fmt.Sprintf("pghost: %s pgport: %d nclients: %d %s: %d dbName: %s",
			pgcfg.Host, pgcfg.Port, o.Clients, what, n, pgcfg.Database))
	}

	scale := o.Scale
	partMethod, partitions := "", 0
	if o.BuiltinUsed {
		var code int
		scale, partMethod, partitions, code = pgbenchTableInfo(ctx, con, o, pgcfg.Database, log)
		if code != exitOK {
			return code
		}
	}
	if !o.NoVacuum {
		io.WriteString(stderr, "starting vacuum...")
		tryExec(ctx, con, log, "vacuum pgbench_branches")
		tryExec(ctx, con, log, "vacuum pgbench_tellers")
		tryExec(ctx, con, log, "truncate pgbench_history")
		io.WriteString(stderr, "end.\n")
		if o.VacuumAll {
			io.WriteString(stderr, "starting vacuum pgbench_accounts...")
			tryExec(ctx, con, log, "vacuum analyze pgbench_accounts")
			io.WriteString(stderr, "end.\n")
		}
	}
	con.Close(ctx)

	// Programs, variables, streams.
	scripts := make([]*script.Script, len(o.Scripts))
	names := make([]string, len(o.Scripts))
	weights := make([]int, len(o.Scripts))
	ncmds := make([]int, len(o.Scripts))
	for i, s := range o.Scripts {
		scripts[i] = s.Parsed
		names[i] = s.Desc
		weights[i] = s.Weight
		ncmds[i] = len(s.Parsed.Commands)
	}
	prog := script.NewProgram(scripts...)
	vars := make([]trial.Var, len(o.Variables))
	for i, v := range o.Variables {
		vars[i] = trial.Var{Name: v.Name, Value: v.Value}
	}
	streams := prng.Derive(o.Seed.Value, o.Clients, o.Threads, trial.DefinesVar(vars, "default_seed"))
	setup := trial.ClientSetup(vars, scale, streams)

	layout := metrics.Layout{Scripts: len(scripts), LatencyLimit: o.LatencyLimit}
	if o.ReportPerCommand {
		layout.Commands = ncmds
	}
	set := metrics.NewSet(o.Clients, layout)

	// -l: one log per thread.
	var logs []*pgbenchfmt.TxLog
	if o.Log {
		pid := os.Getpid()
		for t := 0; t < o.Threads; t++ {
			sample := streams.Threads[t].Sample
			l, err := pgbenchfmt.OpenTxLog(o.LogPrefix, pid, t, o, &sample)
			if err != nil {
				for _, l := range logs {
					l.Close()
				}
				log.Error(err.Error())
				return exitBadInput
			}
			logs = append(logs, l)
		}
	}

	// --run-dir: pgtrial's run directory besides pgbench's output.
	var dir *results.Dir
	var run *results.Run
	var rec *trial.Recorder
	finishDir := func(res *engine.Result, runErr error) {}
	if o.RunDir != "" {
		run, dir, err = createPgbenchRunDir(ctx, o, pgcfg, info, scale, names, weights)
		if err != nil {
			for _, l := range logs {
				l.Close()
			}
			log.Error(err.Error())
			return exitBadInput
		}
		finishDir = func(res *engine.Result, runErr error) {
			if res != nil && !res.BenchStart.IsZero() {
				run.Phases = rec.Phases()
			}
			if res != nil {
				run.Interrupted = res.Interrupted
				run.Aborted = res.Aborted > 0
				if res.Interrupted {
					run.InterruptReason = "signal"
				}
			}
			if runErr != nil {
				run.Warnings = append(run.Warnings, runErr.Error())
			}
			if rec.Measured() {
				sum := results.Summarize(rec.Measure(), names, o.Rate)
				run.Summary = &sum
			}
			run.EndedAt = time.Now()
			if err := dir.Finish(run); err != nil {
				log.Warning(err.Error())
			}
		}
	}

	cfg := &engine.Config{
		Program:         prog,
		ScriptNames:     names,
		Weights:         weights,
		Mode:            o.QueryMode,
		Conn:            pgcfg,
		Clients:         o.Clients,
		Groups:          o.Threads,
		Transactions:    int64(o.Transactions),
		Duration:        time.Duration(o.Duration) * time.Second,
		ConnectPerTx:    o.Connect,
		MaxTries:        o.MaxTries,
		LatencyLimit:    time.Duration(o.LatencyLimit) * time.Microsecond,
		Rate:            o.Rate,
		Arrival:         engine.Poisson,
		Overload:        engine.Queue,
		ContinueOnError: o.ContinueOnError,
		ExitOnAbort:     o.ExitOnAbort,
		VerboseErrors:   o.VerboseErrors,
		Debug:           o.Debug,
		PerCommand:      o.ReportPerCommand,
		Log:             log,
		Stdout:          stdout,
		Stderr:          &lockedWriter{w: stderr},
		Streams:         streams,
		Setup:           setup,
		Metrics:         set,
		ConnectError:    pgbenchfmt.PQErrorMessage,
		OnNotice: func(n *pgconn.Notice) {
			log.mu.Lock()
			io.WriteString(stderr, pgbenchfmt.PQErrorMessage((*pgconn.PgError)(n)))
			log.mu.Unlock()
		},
	}
	if o.Log {
		cfg.OnTx = func(client, group int, txNo int64, tx *metrics.Tx, end time.Time) {
			logs[group].Log(client, txNo, tx, end)
		}
	}

	// The recorder takes the clients' records every second (so that memory
	// stays bounded however long the run), writes them to the run directory
	// under --run-dir, and every -P seconds a progress line is printed for
	// the ticks since the previous one.
	var progLine *pgbenchfmt.Progress
	progress := metrics.NewInterval(layout)
	var lastProgress time.Time
	rec = trial.NewRecorder(trial.RecorderConfig{
		Set: set, Dir: dir, ScriptNames: names, Interval: time.Second,
		OnWriteError: func(err error) { log.Warning(err.Error()) },
		OnInterval: func(t *trial.Tick) {
			if o.Progress <= 0 || t.Final {
				return
			}
			progress.Merge(t.Interval)
			if k := int(t.Elapsed.Round(time.Second) / time.Second); k > 0 && k%o.Progress == 0 {
				now := t.Interval.End
				io.WriteString(stderr, progLine.Line(now, &progress.Total.Stats, now.Sub(lastProgress)))
				progress = metrics.NewInterval(layout)
				lastProgress = now
			}
		},
	})
	cfg.OnStart = func(start, benchStart time.Time) {
		for _, l := range logs {
			l.SetStart(benchStart)
		}
		progLine = &pgbenchfmt.Progress{Opts: o, Start: start}
		lastProgress = start
		rec.Start(start, benchStart)
	}

	res, err := engine.Run(ctx, cfg)
	for _, l := range logs {
		if cerr := l.Close(); cerr != nil && err == nil {
			log.Error(cerr.Error())
		}
	}
	if err != nil {
		rec.Stop(time.Now())
		finishDir(res, err)
		var ice *engine.InitialConnectError
		if errors.As(err, &ice) {
			log.Error(pgbenchfmt.PQErrorMessage(ice.Err))
			log.Error(ice.Error())
			return exitBadInput
		}
		log.Error(err.Error())
		return exitBadInput
	}
	total, _ := rec.Stop(res.End)
	if res.Interrupted {
		rec.Interrupted(res.End, "signal")
	}
	if res.Aborted > 0 {
		rec.Aborted(res.End, res.Aborted, o.Clients)
	}
	finishDir(res, nil)
	if cfg.ExitOnAbort && res.AbortedGroup >= 0 {
		return exitRunFail
	}

	rep := &pgbenchfmt.Report{
		Opts:            o,
		Scale:           scale,
		PartitionMethod: partMethod,
		Partitions:      partitions,
		Total:           total.Total.Stats,
		Latency:         o.Progress > 0 || o.Rate > 0 || o.LatencyLimit > 0,
		BenchDuration:   res.End.Sub(res.BenchStart),
		ConnTime:        res.BenchStart.Sub(res.Start),
		Aborted:         res.Aborted > 0 || res.Interrupted,
	}
	if o.Connect {
		rep.ConnTime = res.ConnTime
	}
	for i := range total.Scripts {
		rep.Scripts = append(rep.Scripts, total.Scripts[i].Stats)
	}
	rep.Commands = total.Commands
	rep.Write(stdout)
	if o.Percentiles {
		writePercentiles(stdout, &total.Total, o.Rate > 0)
	}
	if res.Aborted > 0 || res.Interrupted {
		log.Error("Run was aborted; the above results are incomplete.")
		return exitRunFail
	}
	return exitOK
}

// tryExec is pgbench's tryExecuteStatement: an error is reported and ignored.
func tryExec(ctx context.Context, con *pgconn.PgConn, log *pgbenchLog, sql string) {
	_, err := con.Exec(ctx, sql).ReadAll()
	if err != nil {
		log.Error(pgbenchfmt.PQErrorMessage(err))
		log.Detail("(ignoring this error and continuing anyway)")
	}
}

// pgbenchTableInfo is pgbench's GetTableInfo: the scale from
// pgbench_branches, and how pgbench_accounts is partitioned.
func pgbenchTableInfo(ctx context.Context, con *pgconn.PgConn, o *pgbenchfmt.Options, db string, log *pgbenchLog) (scale int, method string, partitions int, code int) {
	res, err := con.Exec(ctx, "select count(*) from pgbench_branches").ReadAll()
	if err != nil {
		log.Error("could not count number of branches: " + pgbenchfmt.PQErrorMessage(err))
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" {
			log.Hint(fmt.Sprintf("Perhaps you need to do initialization (\"pgbench -i\") in database \"%s\".", db))
		}
		return 0, "", 0, exitBadInput
	}
	v := string(res[0].Rows[0][0])
	scale, _ = strconv.Atoi(v)
	if scale < 0 {
		log.Error(fmt.Sprintf("invalid count(*) from pgbench_branches: \"%s\"", v))
		return 0, "", 0, exitBadInput
	}
	if o.ScaleGiven {
		log.Warning(fmt.Sprintf("scale option ignored, using count from pgbench_branches table (%d)", scale))
	}
	const partQuery = `select o.n, p.partstrat, pg_catalog.count(i.inhparent) ` +
		`from pg_catalog.pg_class as c ` +
		`join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace) ` +
		`cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n) ` +
		`left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid) ` +
		`left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent) ` +
		`where c.relname = 'pgbench_accounts' and o.n is not null ` +
		`group by 1, 2 order by 1 asc limit 1`
	res, err = con.Exec(ctx, partQuery).ReadAll()
	if err != nil {
		log.Error("could not get partition information: " + pgbenchfmt.PQErrorMessage(err))
		return 0, "", 0, exitBadInput
	}
	if len(res) == 0 || len(res[0].Rows) == 0 {
		log.Error("no pgbench_accounts table found in \"search_path\"")
		log.Hint(fmt.Sprintf("Perhaps you need to do initialization (\"pgbench -i\") in database \"%s\".", db))
		return 0, "", 0, exitBadInput
	}
	row := res[0].Rows[0]
	switch string(row[1]) {
	case "":
	case "r":
		method = "range"
	case "h":
		method = "hash"
	default:
		log.Error(fmt.Sprintf("unexpected partition method: \"%s\"", row[1]))
		return 0, "", 0, exitBadInput
	}
	if method != "" {
		partitions, _ = strconv.Atoi(string(row[2]))
	}
	return scale, method, partitions, exitOK
}

// serverVersionNum turns "15.18 (Debian …)" into 150018.
func serverVersionNum(s string) int {
	f := strings.FieldsFunc(s, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
	if len(f) == 0 {
		return 0
	}
	parts := strings.Split(f[0], ".")
	major, _ := strconv.Atoi(parts[0])
	minor := 0
	if len(parts) > 1 {
		minor, _ = strconv.Atoi(parts[1])
	}
	if major >= 10 {
		return major*10000 + minor
	}
	return major*10000 + minor*100
}

// writePercentiles is --percentiles: HDR percentiles of the committed
// transactions after pgbench's report — response time (from the scheduled
// start under -R, as pgbench's latency), and under -R the service time and
// the schedule lag separately.
func writePercentiles(w io.Writer, h *metrics.Hists, rate bool) {
	line := func(name string, hist *hdrhistogram.Histogram) {
		fmt.Fprintf(w, "%s percentiles (ms): p50 = %.3f, p90 = %.3f, p95 = %.3f, p99 = %.3f, p99.9 = %.3f, max = %.3f\n", name,
			ms(metrics.Quantile(hist, 0.5)), ms(metrics.Quantile(hist, 0.9)), ms(metrics.Quantile(hist, 0.95)),
			ms(metrics.Quantile(hist, 0.99)), ms(metrics.Quantile(hist, 0.999)), ms(metrics.Quantile(hist, 1)))
	}
	line("latency", h.Response)
	if rate {
		line("service time", h.Service)
		line("schedule lag", h.Lag)
	}
}

func ms(us int64) float64 { return float64(us) / 1000 }

// createPgbenchRunDir makes --run-dir's directory and its first run.json
// for a pgbench command line.
func createPgbenchRunDir(ctx context.Context, o *pgbenchfmt.Options, pgcfg *pgconn.Config, info BuildInfo, scale int, names []string, weights []int) (*results.Run, *results.Dir, error) {
	con, err := pgconn.ConnectConfig(ctx, pgcfg)
	if err != nil {
		return nil, nil, fmt.Errorf("--run-dir: %s", strings.TrimSuffix(pgbenchfmt.PQErrorMessage(err), "\n"))
	}
	tgt, err := trial.ReadTarget(ctx, con, pgcfg)
	con.Close(context.Background())
	if err != nil {
		return nil, nil, fmt.Errorf("--run-dir: %w", err)
	}
	wl := results.Workload{Name: strings.Join(names, "+"), Scale: scale}
	for i, n := range names {
		wl.Scripts = append(wl.Scripts, results.ScriptWeight{Name: n, Weight: weights[i]})
	}
	model := results.Model{
		Kind: results.ModelClosed, Clients: o.Clients, Threads: o.Threads,
		LatencyLimitMs: float64(o.LatencyLimit) / 1000, DurationS: float64(o.Duration),
	}
	if o.Duration == 0 {
		model.Transactions = int64(o.Transactions)
	}
	if o.Rate > 0 {
		model.Kind, model.Rate = results.ModelOpen, o.Rate
		model.Arrival, model.Overload = engine.Poisson.String(), engine.Queue.String()
	}
	run := &results.Run{
		Tool:        info.tool(),
		CommandLine: results.RedactArgs(os.Args),
		StartedAt:   time.Now(),
		Target:      tgt,
		Workload:    wl,
		Model:       model,
	}
	dir, err := results.Create(o.RunDir, run)
	if err != nil {
		return nil, nil, err
	}
	return run, dir, nil
}
