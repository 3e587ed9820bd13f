// Package resultstest writes synthetic run directories for tests and
// benchmarks of what reads them (reports, checks): run.json, latency.hlog
// with real HDR histograms, timeline.csv, events.jsonl (phases,
// checkpoints, autovacuum, an injected lock, a first error), and the
// collectors' waits.csv, server.csv, os.csv and statements.csv. Every file is
// written through internal/results' writers (Create, WriteInterval, Event,
// Create*/CSVWriter, Finish), so a directory here is one a run could have
// written. The figures are seeded: the same Options give the same files
// (but for the start time, which is fixed too unless Options.Start is set).
package resultstest

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// XSS is a string that must show as text wherever a report shows it.
const XSS = `</script><img src=x onerror=alert(1)>`

// Password is the password in the default command line; no report may show it.
const Password = "s3cr3t-Pa55"

// Options shape a synthetic run.
type Options struct {
	Scripts  int           // number of scripts (default 1)
	Duration time.Duration // measured window (default 60 s)
	Warmup   time.Duration // warm-up before it (default 5 s; negative: none)
	Interval time.Duration // interval of the timeline and the collectors (default 1 s)
	Rate     float64       // open model's rate, tx/s (default 200); negative: the closed model
	Clients  int           // default 8
	Seed     uint64
	Start    time.Time // run's start (default 2026-01-02T03:04:05Z)

	// Stall is the injected lock on Table: its start from the measured
	// window's start and its length (defaults: a third in, 5 s; negative
	// length: none). Latency rises during it.
	StallAt, StallFor time.Duration
	// Table is the workload's table the stall locks and autovacuum visits
	// (default "pgbench_branches").
	Table string
	// Query is the text of the first statement of statements.csv (default
	// an UPDATE of pgbench_branches).
	Query string
	// CommandLine is run.json's command line (default one with a password
	// in a conninfo: Password).
	CommandLine []string

	Interrupted  bool // SIGINT at 60 % of the window: run.json says so
	Crashed      bool // killed at 60 % of the window: run.json stays Create's
	NoCollectors bool // --no-collect: no waits, server, os or statements files

	// Scenarios, if any, split the scripts into concurrent scenarios: scenario i
	// ("s1", "s2", …, closed, 1 client each) runs the scripts of Scenarios[i];
	// run.json records them with their summaries.
	Scenarios [][]int
}

func (o *Options) defaults() {
	if o.Scripts <= 0 {
		o.Scripts = 1
	}
	if o.Duration <= 0 {
		o.Duration = 60 * time.Second
	}
	if o.Warmup == 0 {
		o.Warmup = 5 * time.Second
	}
	if o.Warmup < 0 {
		o.Warmup = 0
	}
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Rate == 0 {
		o.Rate = 200
	}
	if o.Clients <= 0 {
		o.Clients = 8
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	if o.StallAt == 0 {
		o.StallAt = o.Duration / 3
	}
	if o.StallFor == 0 {
		o.StallFor = 5 * time.Second
	}
	if o.Table == "" {
		o.Table = "pgbench_branches"
	}
	if o.Query == "" {
		o.Query = "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2"
	}
	if o.CommandLine == nil {
		o.CommandLine = []string{"pgtrial", "run", "--url", "host=db user=bench password=" + Password + " dbname=bench",
			"--rate", "200", "-T", "60"}
	}
}

// ScriptNames are the names of n scripts: the built-in workloads', then
// "scriptN".
func ScriptNames(n int) []string {
	base := []string{"tpcb-like", "select-only", "simple-update"}
	out := make([]string, n)
	for i := range out {
		if i < len(base) {
			out[i] = base[i]
		} else {
			out[i] = "script" + strconv.Itoa(i+1)
		}
	}
	return out
}

// WriteRun writes a synthetic run into dir (which must not hold one) and
// returns its run.json as written (for Crashed: as Create wrote it).
func WriteRun(dir string, o Options) (*results.Run, error) {
	o.defaults()
	g := &gen{o: o, rnd: rand.New(rand.NewPCG(o.Seed, 0x5eed)), names: ScriptNames(o.Scripts)}
	return g.write(dir)
}

type gen struct {
	o     Options
	rnd   *rand.Rand
	names []string
}

func (g *gen) write(dir string) (*results.Run, error) {
	o := g.o
	bench := o.Start.Add(1500 * time.Millisecond) // connecting took 1.5 s
	measure := bench.Add(o.Warmup)
	end := measure.Add(o.Duration)
	if o.Interrupted || o.Crashed {
		end = measure.Add(time.Duration(0.6 * float64(o.Duration)).Truncate(o.Interval))
	}
	stallFrom, stallTo := measure.Add(o.StallAt), measure.Add(o.StallAt+o.StallFor)
	if o.StallFor < 0 {
		stallFrom, stallTo = time.Time{}, time.Time{}
	}
	open := o.Rate > 0

	run := &results.Run{
		Tool:        results.Tool{Name: "pgtrial", Version: "0.9.0", Commit: "abc1234", Go: "go1.26.0"},
		CommandLine: o.CommandLine,
		StartedAt:   o.Start,
		BenchStart:  bench,
		Target: results.Target{Host: "db", Port: 5432, Database: "bench", User: "bench", ServerVersion: "17.2",
			Settings: map[string]string{"shared_buffers": "128MB", "max_wal_size": "1GB"}},
		Workload: results.Workload{Name: "tpcb-like", Scale: 10},
		Model:    results.Model{Kind: results.ModelClosed, Clients: o.Clients, Threads: 1, DurationS: o.Duration.Seconds()},
	}
	for _, n := range g.names {
		run.Workload.Scripts = append(run.Workload.Scripts, results.ScriptWeight{Name: n, Weight: 1})
	}
	if len(g.names) > 1 {
		run.Workload.Name = "mix"
	}
	if open {
		run.Model.Kind, run.Model.Rate, run.Model.Arrival, run.Model.Overload = results.ModelOpen, o.Rate, "poisson", "queue"
	}
	d, err := results.Create(dir, run)
	if err != nil {
		return nil, err
	}
	ev := func(e results.Event) {
		if err == nil {
			err = d.Event(e)
		}
	}
	if o.Warmup > 0 {
		ev(results.Event{Time: bench, Kind: results.EventPhase, Phase: results.PhaseWarmup, Message: "warm-up"})
	}
	ev(results.Event{Time: measure, Kind: results.EventPhase, Phase: results.PhaseMeasure, Message: "measured window"})
	if err != nil {
		return nil, err
	}

	// The intervals: transactions per script, latency higher in the stall.
	layout := metrics.Layout{Scripts: len(g.names)}
	set := metrics.NewSet(1, layout)
	rec := set.Recorder(0)
	merged := metrics.NewInterval(layout)
	perSec := o.Rate
	if !open {
		perSec = 300
	}
	var ivEnds []time.Time
	firstErr := false
	for t := bench; t.Before(end); t = t.Add(o.Interval) {
		ivEnd := t.Add(o.Interval)
		inStall := !stallFrom.IsZero() && ivEnd.After(stallFrom) && !t.After(stallTo)
		n := int(perSec*o.Interval.Seconds()*(0.9+0.2*g.rnd.Float64()) + 0.5)
		if inStall && !open {
			n /= 10 // the closed model slows down instead
		}
		for range n {
			sc := g.rnd.IntN(len(g.names))
			service := int64(800*(1+sc)) + int64(g.rnd.ExpFloat64()*1500)
			lag := int64(g.rnd.ExpFloat64() * 80)
			if inStall {
				service += int64(g.rnd.Float64() * 4e6)
				lag += int64(g.rnd.Float64() * 2e6)
			}
			if !open {
				lag = 0
			}
			tx := metrics.Tx{Script: sc, Outcome: metrics.Committed, Tries: 1, Response: service + lag, Service: service, Lag: lag}
			if g.rnd.IntN(500) == 0 {
				tx = metrics.Tx{Script: sc, Outcome: metrics.FailedSerialization, Tries: 2}
			}
			rec.Record(&tx)
		}
		iv := set.Tick(t, ivEnd)
		phase := results.PhaseMeasure
		if ivEnd.Compare(measure) <= 0 {
			phase = results.PhaseWarmup
		} else {
			merged.Merge(iv)
		}
		if err := d.WriteInterval(phase, iv, g.names); err != nil {
			return nil, err
		}
		if !firstErr && iv.Total.Stats.Failed() > 0 {
			firstErr = true
			ev(results.Event{Time: ivEnd, Kind: results.EventError, Phase: phase, Message: "first serialization failure (1 in the interval)",
				Data: map[string]any{"class": "serialization", "count": 1, "interval_start": t}})
		}
		set.Recycle(iv)
		ivEnds = append(ivEnds, ivEnd)
	}

	// Server events: a checkpoint a quarter in, autovacuum of the table,
	// the injection, and a checkpoint still running at the end.
	ckStart := measure.Add(o.Duration / 4).Truncate(time.Second)
	ckEnd := ckStart.Add(o.Duration / 5)
	if !o.NoCollectors {
		ev(results.Event{Time: ckStart.Add(time.Second), Kind: results.EventCheckpointStart,
			Data: map[string]any{"kind": "timed", "checkpoints": 1, "from": ckStart.Add(-time.Second).UTC().Format(time.RFC3339Nano)}})
		if ckEnd.Before(end) {
			ev(results.Event{Time: ckEnd, Kind: results.EventCheckpoint,
				Data: map[string]any{"kind": "timed", "write_ms": 4000.0, "sync_ms": 12.5, "checkpoint_time": ckStart.UTC().Format(time.RFC3339)}})
		}
		if av := measure.Add(o.Duration / 2); av.Before(end) {
			ev(results.Event{Time: av, Kind: results.EventAutovacuum, Data: map[string]any{"table": o.Table, "vacuums": 1, "analyzes": 1}})
		}
	}
	if !stallFrom.IsZero() && stallTo.Before(end) {
		ev(results.Event{Time: stallFrom, Kind: results.EventInjection,
			Message: fmt.Sprintf("injected lock %s (%.3g s)", o.Table, o.StallFor.Seconds()),
			Data: map[string]any{"kind": "lock", "table": o.Table, "planned": stallFrom, "acquired": stallFrom,
				"held_ms": float64(o.StallFor.Milliseconds()), "end": stallTo}})
	}
	if o.Interrupted {
		ev(results.Event{Time: end, Kind: results.EventInterrupt, Message: "run interrupted by SIGINT", Data: map[string]any{"reason": "SIGINT"}})
	}
	if err != nil {
		return nil, err
	}
	if !o.NoCollectors {
		if err := g.collectors(dir, bench, measure, end, ivEnds, stallFrom, stallTo); err != nil {
			return nil, err
		}
	}
	if o.Crashed {
		if err := d.Close(); err != nil {
			return nil, err
		}
		return run, nil
	}

	run.EndedAt = end.Add(300 * time.Millisecond)
	if o.Warmup > 0 {
		run.Phases = append(run.Phases, results.Phase{Name: results.PhaseWarmup, Start: bench, End: measure})
	}
	run.Phases = append(run.Phases, results.Phase{Name: results.PhaseMeasure, Start: measure, End: end})
	sum := results.Summarize(merged, g.names, max(o.Rate, 0))
	run.Summary = &sum
	for i, scripts := range o.Scenarios {
		sc := results.Scenario{Name: "s" + strconv.Itoa(i+1), Scripts: scripts, Kind: results.ModelClosed, Clients: 1, Threads: 1}
		ss := results.SummarizeScenario(merged, &sc, g.names)
		sc.Summary = &ss
		run.Scenarios = append(run.Scenarios, sc)
	}
	if o.Interrupted {
		run.Interrupted, run.InterruptReason = true, "SIGINT"
	}
	g.info(run, measure, end, ckStart, ckEnd)
	run.Checks = []results.Check{
		{Name: "steady state", Status: "pass", Value: 0.012, Message: "tps trend 1.2 % over the window"},
		{Name: "load generator CPU", Status: "warn", Value: 0.81, Message: "pgtrial used 81 % of a CPU"},
		{Name: "achieved rate", Status: "fail", Value: "97.5 %", Message: "achieved 97.5 % of the target rate"},
	}
	if err := d.Finish(run); err != nil {
		return nil, err
	}
	return results.Load(dir)
}

// info fills run.json's collector parts: server, host, evidence.
func (g *gen) info(run *results.Run, from, to, ckStart, ckEnd time.Time) {
	o := g.o
	ev := &results.Evidence{From: from, To: to}
	run.Evidence = ev
	if o.NoCollectors {
		for _, k := range []string{results.EvidenceWaits, results.EvidenceStatements, results.EvidenceServer, results.EvidenceOS} {
			ev.SetMissing(k, fmt.Sprintf("not collected (the %s collector did not run, --no-collect)", k))
		}
		return
	}
	run.Collectors = []string{results.EvidenceWaits, results.EvidenceStatements, results.EvidenceServer, results.EvidenceOS}
	run.Server = &results.ServerInfo{
		Version: "PostgreSQL 17.2 on x86_64-pc-linux-gnu", VersionNum: 170002,
		Settings: map[string]string{
			"shared_buffers": "128MB", "checkpoint_timeout": "5min", "max_wal_size": "1GB", "synchronous_commit": "on",
			"work_mem": "4MB", "fsync": "on", "full_page_writes": "on", "wal_compression": "off",
			"application_name": o.Table + " " + XSS,
		},
		DatabaseBytes: 160 << 20,
		Tables: []results.TableSize{
			{Name: "pgbench_accounts", TotalBytes: 150 << 20, HeapBytes: 130 << 20, Rows: 1_000_000},
			{Name: o.Table, TotalBytes: 40 << 10, HeapBytes: 8 << 10, Rows: 10},
		},
		Extensions: map[string]string{"pg_stat_statements": "1.11"},
	}
	run.Host = &results.Host{Local: true, Hostname: "bench", CPUs: 4, MemoryBytes: 8 << 30, Kernel: "6.1.0"}
	committed := run.Summary.Total.Committed
	ev.Checkpoints = 1
	ev.CheckpointSpans = []results.CheckpointSpan{{Start: ckStart, StartFrom: ckStart.Add(-time.Second), End: ckEnd, Kind: "timed"}}
	ev.CheckpointsTimed = 1
	ev.CheckpointWriteMs, ev.CheckpointSyncMs = 4000, 12.5
	ev.WALBytes, ev.WALRecords, ev.WALFPI = committed*900, committed*6, committed/2
	ev.WALBytesPerTx, ev.FPIShare = 900, 1.0/12
	ev.BlocksHit, ev.BlocksRead, ev.HitRatio = committed*40, committed/10, 0.9975
	ev.Waits = []results.WaitShare{
		{Type: "CPU", Event: "CPU", Samples: 900, Share: 0.6, AvgSessions: 2.4},
		{Type: "Lock", Event: "transactionid", Samples: 300, Share: 0.2, AvgSessions: 0.8},
		{Type: "IO", Event: "WalSync", Samples: 300, Share: 0.2, AvgSessions: 0.8},
	}
	ev.WaitTypes = map[string]float64{"CPU": 0.6, "Lock": 0.2, "IO": 0.2}
	ev.Calls, ev.Rows = committed*5, committed*5
	ev.Statements = []results.StatementCost{{Query: o.Query, Calls: committed, Rows: committed, TotalMs: float64(committed) * 0.8, MeanMs: 0.8, Share: 0.5}}
	ev.Autovacuum = []results.TableVacuum{{Table: o.Table, Vacuums: 1, Analyzes: 1}}
	ev.CPU = &results.CPUShare{User: 0.4, System: 0.1, Idle: 0.45, IOWait: 0.05}
	ev.BusiestDisk = &results.DiskStats{Name: "nvme0n1", WritesPerS: 300, WriteKBPerS: 4000, AwaitMs: 0.4, QueueSize: 0.2, Util: 0.35}
	ev.ClientCPU = 0.3
}

// collectors writes waits.csv, server.csv, os.csv and statements.csv on
// the intervals' grid (ends).
func (g *gen) collectors(dir string, zero, measure, end time.Time, ends []time.Time, stallFrom, stallTo time.Time) error {
	o := g.o
	inStall := func(t time.Time) bool {
		return !stallFrom.IsZero() && t.After(stallFrom) && !t.Add(-o.Interval).After(stallTo)
	}
	el := func(t time.Time) string { return results.FormatElapsed(zero, t) }
	elapsed := func(t time.Time) float64 { return t.Sub(zero).Seconds() }
	waits, err := results.CreateWaits(dir)
	if err != nil {
		return err
	}
	server, err := results.CreateServer(dir)
	if err != nil {
		return errors.Join(err, waits.Close())
	}
	disks := []string{"sda", "nvme0n1"}
	osw, err := results.CreateOS(dir, disks)
	if err != nil {
		return errors.Join(err, waits.Close(), server.Close())
	}
	ticks := int64(10 * o.Interval.Seconds()) // 10 samples a second
	for _, t := range ends {
		st := inStall(t)
		type w struct{ typ, ev string }
		sessions := map[w]float64{{"CPU", "CPU"}: 2 + g.rnd.Float64(), {"IO", "WalSync"}: 0.5 * g.rnd.Float64(), {"LWLock", "WALWrite"}: 0.2 * g.rnd.Float64()}
		if st {
			sessions[w{"Lock", "relation"}] = float64(o.Clients) - 1
		}
		keys := make([]w, 0, len(sessions))
		for k := range sessions {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b w) int { return cmp.Compare(a.typ+a.ev, b.typ+b.ev) })
		for _, k := range keys {
			row := results.WaitRow{Time: t, Elapsed: elapsed(t), Source: "activity", Class: "client", Type: k.typ, Event: k.ev,
				Samples: int64(sessions[k]*float64(ticks) + 0.5), Ticks: ticks}
			if err := waits.Write(row.Record()); err != nil {
				return err
			}
		}
		if err := waits.Write(results.WaitRow{Time: t, Elapsed: elapsed(t), Source: "activity", Class: "background", Type: "Activity",
			Event: "CheckpointerMain", Samples: ticks, Ticks: ticks}.Record()); err != nil {
			return err
		}

		tx := int64(max(o.Rate, 300) * o.Interval.Seconds())
		fpi := tx / 20
		if ck := measure.Add(o.Duration / 4); t.After(ck) && !t.After(ck.Add(10*time.Second)) {
			fpi = tx * 2 // full-page images after the checkpoint
		}
		walBytes := tx*700 + fpi*8192
		iv := func(n int64) string { return strconv.FormatInt(n, 10) }
		srow := []string{results.FormatTime(t), el(t), "0", "0", "0", "", "",
			iv(walBytes), iv(tx * 6), iv(fpi), iv(walBytes),
			iv(g.rnd.Int64N(5)), iv(tx * 40), iv(tx / 10), iv(tx), "0", "0", "0", "1", ""}
		if err := server.Write(srow); err != nil {
			return err
		}

		r := results.OSRow{Time: t, ElapsedS: elapsed(t), Source: "proc", R: float64(1 + g.rnd.IntN(4)),
			US: 30 + 10*g.rnd.Float64(), SY: 8 + 2*g.rnd.Float64(), WA: 2 * g.rnd.Float64(), ST: 0, MemAvailableKB: 6 << 20, ClientCPU: 0.3}
		r.ID = 100 - r.US - r.SY - r.WA - r.ST
		if st {
			r.US, r.ID = 5, 100-5-r.SY-r.WA
		}
		r.Disks = []results.DiskRow{
			{Name: "sda", WritesPerS: 2, WriteKBPerS: 10, AwaitMs: 3, Util: 1 + g.rnd.Float64()},
			{Name: "nvme0n1", WritesPerS: 300, WriteKBPerS: 4000, AwaitMs: 0.3 + 0.2*g.rnd.Float64(), AquSz: 0.2, Util: 30 + 10*g.rnd.Float64()},
		}
		if err := osw.Write(r.Record()); err != nil {
			return err
		}
	}
	if err := errors.Join(waits.Close(), server.Close(), osw.Close()); err != nil {
		return err
	}
	return g.statements(dir, zero, measure, end)
}

// statements writes the measured phase's statements: o.Query first, then
// enough others that a report has to cut them, and the other sessions' row.
func (g *gen) statements(dir string, zero, measure, end time.Time) error {
	o := g.o
	w, err := results.CreateStatements(dir)
	if err != nil {
		return err
	}
	if g.o.Crashed {
		return w.Close() // the phase's rows are written at its end
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	iv := func(n int64) string { return strconv.FormatInt(n, 10) }
	row := func(qid int64, sessions, query string, calls int64, meanMs float64) []string {
		total := meanMs * float64(calls)
		key := []string{iv(qid), "10", "5", "true"}
		if sessions == results.SessionsOthers {
			key = []string{"", "", "", ""}
		}
		r := []string{results.FormatTime(end), results.FormatElapsed(zero, end), results.PhaseMeasure, results.FormatTime(measure)}
		r = append(r, key...)
		return append(r, sessions, iv(calls), iv(calls), f(total), f(meanMs), "0",
			iv(calls*4), iv(calls/20), iv(calls/10), "0", "0", "0", iv(calls*3), iv(calls/10), iv(calls*300), "0", "0", query)
	}
	calls := int64(o.Rate * o.Duration.Seconds())
	if calls <= 0 {
		calls = int64(300 * o.Duration.Seconds())
	}
	rows := [][]string{row(1001, results.SessionsRun, o.Query, calls, 5)}
	for i := range 29 {
		mean := 0.05 + 2*math.Pow(0.8, float64(i)) + g.rnd.Float64()*0.01
		rows = append(rows, row(int64(2000+i), results.SessionsRun,
			fmt.Sprintf("SELECT abalance FROM pgbench_accounts WHERE aid = $1 /* q%d */", i), calls/int64(1+i%5), mean))
	}
	rows = append(rows, row(0, results.SessionsOthers, "", 50, 2.0))
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			return errors.Join(err, w.Close())
		}
	}
	return w.Close()
}
