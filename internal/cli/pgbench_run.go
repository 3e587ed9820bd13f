package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgbenchfmt"
	"github.com/pgtrial/pgtrial/internal/results"
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

// runPgbenchBench is pgbench's benchmarking mode on pgtrial's engine: the
// setup connection and its checks, the vacuum, the run (through
// trial.Run, like `pgtrial run`), the report.
func runPgbenchBench(ctx context.Context, o *pgbenchfmt.Options, info BuildInfo, stdout, stderr io.Writer) int {
	log := &pgbenchLog{w: stderr}
	// --segment's refusals before anything connects (pgbenchSegment again
	// on the real config below).
	if err := pgbenchSegment(o, &trial.Config{Clients: o.Clients, Threads: o.Threads, Rate: o.Rate, Transactions: int64(o.Transactions), Seed: o.Seed}); err != nil {
		log.Error(err.Error())
		return exitBadInput
	}
	live, err := startLiveMetrics(metricsOptions{addr: o.MetricsAddr, allowRemote: o.MetricsAllowRemote}, func(line string) {
		log.mu.Lock()
		io.WriteString(stderr, line+"\n")
		log.mu.Unlock()
	})
	if err != nil {
		log.Error(err.Error())
		return exitBadInput
	}
	defer live.close()
	connString := o.ConnString(os.LookupEnv)
	pgcfg, err := pgconn.ParseConfig(connString)
	if err != nil {
		log.Error(pgbenchfmt.PQErrorMessage(err))
		return exitBadInput
	}
	// The first signal cancels the run (in-flight queries are cancelled,
	// the report of what was measured is printed); a second one ends the
	// process at once.
	ctx, sigs, stopSignals := notifySignals(ctx, nil, signalPlan{})
	defer stopSignals()

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
	// --run-dir: run.json's target, from the setup connection.
	var target results.Target
	if o.RunDir != "" {
		if target, err = trial.ReadTarget(ctx, con, pgcfg); err != nil {
			log.Error("--run-dir: " + err.Error())
			return exitBadInput
		}
	}
	con.Close(ctx)

	tc := pgbenchTrialConfig(o, connString, scale, log, stdout, stderr)
	if err := pgbenchSegment(o, tc); err != nil {
		log.Error(err.Error())
		return exitBadInput
	}
	tc.Target = target
	tc.Tool = info.tool()
	tc.CommandLine = os.Args
	tc.Interrupt = sigs.get
	tc.Urgent = sigs.Urgent()
	live.attach(tc)
	r, err := trial.Run(ctx, tc)
	if err != nil {
		// The run did not start (a client could not connect, a signal
		// during the connections) or could not be set up (-l's files,
		// --run-dir): pgbench's messages of the engine's own error.
		var nse *trial.NotStartedError
		if errors.As(err, &nse) && nse.RunErr != nil {
			err = nse.RunErr
		}
		var ice *engine.InitialConnectError
		if errors.As(err, &ice) {
			log.Error(pgbenchfmt.PQErrorMessage(ice.Err))
			log.Error(ice.Error())
			return exitBadInput
		}
		log.Error(err.Error())
		return exitBadInput
	}
	for _, err := range r.LogErrors {
		log.Error(err.Error())
	}
	res := r.Engine
	if r.Err != nil || res == nil {
		if r.Err == nil {
			r.Err = errors.New("the run returned no result")
		}
		log.Error(r.Err.Error())
		return exitBadInput
	}
	if o.ExitOnAbort && res.AbortedGroup >= 0 {
		return exitRunFail
	}

	total := r.Measure
	ro := o
	if tc.Segment != nil {
		// A segment reports what it ran: its clients and threads.
		seg := *o
		seg.Clients, seg.Threads = tc.Clients, tc.Threads
		ro = &seg
	}
	rep := &pgbenchfmt.Report{
		Opts:            ro,
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

// pgbenchSegment makes tc the segment --segment names (as run's
// segmentRun); nil without --segment. The error is the message alone.
func pgbenchSegment(o *pgbenchfmt.Options, tc *trial.Config) error {
	if o.Segment == "" {
		if o.StartAt != "" {
			return errors.New("--start-at goes with --segment=I/N: it is the instant the segments begin together")
		}
		return nil
	}
	if err := segmentRun(tc, o.Segment, o.StartAt, time.Now()); err != nil {
		if u := errors.Unwrap(err); u != nil {
			return u
		}
		return err
	}
	return nil
}

// pgbenchTrialConfig is the run of a pgbench command line: pgbench's
// options, its engine behaviour and messages (trial.Pgbench), its -l logs
// (trial.Config.Log) and its -P progress lines (OnStart, OnInterval). With
// --run-dir the run directory and every collector, as `pgtrial run`;
// without, nothing is written but pgbench's own files.
func pgbenchTrialConfig(o *pgbenchfmt.Options, connString string, scale int, log *pgbenchLog, stdout, stderr io.Writer) *trial.Config {
	scripts := make([]trial.Script, len(o.Scripts))
	names := make([]string, len(o.Scripts))
	for i, s := range o.Scripts {
		scripts[i] = trial.Script{Name: s.Desc, Builtin: s.Builtin != "", Weight: s.Weight, Parsed: s.Parsed}
		names[i] = s.Desc
	}
	vars := make([]trial.Var, len(o.Variables))
	for i, v := range o.Variables {
		vars[i] = trial.Var{Name: v.Name, Value: v.Value}
	}
	tc := &trial.Config{
		ConnString:      connString,
		Scale:           scale,
		Scripts:         scripts,
		Workload:        strings.Join(names, "+"),
		Mode:            o.QueryMode,
		Clients:         o.Clients,
		Threads:         o.Threads,
		Rate:            o.Rate,
		Arrival:         engine.Poisson,
		Overload:        engine.Queue,
		Duration:        time.Duration(o.Duration) * time.Second,
		Transactions:    int64(o.Transactions),
		LatencyLimit:    time.Duration(o.LatencyLimit) * time.Microsecond,
		Interval:        time.Second,
		MaxTries:        int(o.MaxTries),
		ContinueOnError: o.ContinueOnError,
		PerCommand:      o.ReportPerCommand,
		Vars:            vars,
		Seed:            o.Seed,
		Collect:         trial.Collect{Off: true},
		Out: func(line string) {
			log.mu.Lock()
			io.WriteString(stderr, line+"\n")
			log.mu.Unlock()
		},
		Pgbench: &trial.Pgbench{
			ConnectPerTx:  o.Connect,
			ExitOnAbort:   o.ExitOnAbort,
			VerboseErrors: o.VerboseErrors,
			Debug:         o.Debug,
			Log:           log,
			ConnectError:  pgbenchfmt.PQErrorMessage,
			OnNotice: func(n *pgconn.Notice) {
				log.mu.Lock()
				io.WriteString(stderr, pgbenchfmt.PQErrorMessage((*pgconn.PgError)(n)))
				log.mu.Unlock()
			},
			Stdout: stdout,
			Stderr: stderr, // trial serializes the clients' writes
		},
	}
	if o.Log {
		tc.Log = &trial.TxLogSpec{Prefix: o.LogPrefix, Format: o}
	}
	if o.RunDir != "" {
		tc.Dir = o.RunDir
		tc.Collect = trial.Collect{WaitInterval: 100 * time.Millisecond, WaitSource: collect.WaitSourceAuto}
	}
	if o.Progress > 0 {
		progress := &pgbenchProgress{opts: o, w: stderr}
		tc.OnStart = progress.start
		tc.OnInterval = progress.interval
	}
	return tc
}

// pgbenchProgress prints -P's progress lines: the recorder's 1 s intervals
// are summed, and every -P seconds of the bench a line is printed for the
// intervals since the previous one.
type pgbenchProgress struct {
	opts *pgbenchfmt.Options
	w    io.Writer

	// Set by start (before the recorder's first interval), then owned by
	// the recorder's goroutine.
	line *pgbenchfmt.Progress
	sum  metrics.Stats // the intervals since the previous line
	last time.Time     // the previous line's time (the engine's start at first)
}

func (p *pgbenchProgress) start(start, bench time.Time) {
	p.line = &pgbenchfmt.Progress{Opts: p.opts, Start: start}
	p.last = start
}

func (p *pgbenchProgress) interval(t *trial.Tick) {
	if t.Final {
		return
	}
	p.sum.Merge(&t.Interval.Total.Stats)
	if k := int(t.Elapsed.Round(time.Second) / time.Second); k > 0 && k%p.opts.Progress == 0 {
		now := t.Interval.End
		io.WriteString(p.w, p.line.Line(now, &p.sum, now.Sub(p.last)))
		p.sum = metrics.Stats{}
		p.last = now
	}
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
