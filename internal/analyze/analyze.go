// Package analyze makes a run directory from pgbench's -l logs (`pgtrial
// analyze LOG…`): per-transaction logs (with and without the lag and
// retries columns, skipped and failed lines of pgbench 15–19, one file per
// thread) and aggregate logs (--aggregate-interval), gzip-compressed or not,
// become run.json (with what the logs can tell and what they cannot,
// results.LogSource), latency.hlog and timeline.csv, written through
// internal/results' writers, so that report, compare and the findings work
// on pgbench results of the past.
//
// Files are read in parallel: GOMAXPROCS workers, each dealt files in turn
// and reading its files interleaved by interval (read.go), so that it packs
// an interval once for all of them. Memory is bounded by histograms, not by
// the logs' size: per interval (1 s by default), worker and script the HDR
// bucket counts of response, service and lag, packed (metrics.Packed, a few
// bytes a bucket used), and
// for the total an exact count per distinct µs latency (exact), so that the
// summary's percentiles of the total are those of the sorted latencies (the
// nearest rank, v[⌈n·q⌉ − 1]) to the µs.
package analyze

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgbenchfmt"
	"github.com/pgtrial/pgtrial/internal/results"
)

// Config is what to analyse and where to write it.
type Config struct {
	Files []string // the logs
	Dir   string   // the run directory to create
	// Interval is the timeline's interval for per-transaction logs
	// (default 1 s; whole µs). An aggregate log's intervals are its own.
	Interval time.Duration
	// SamplingRate is pgbench's --sampling-rate of the run (0: none), which
	// the log cannot tell: it is recorded, and counts are not scaled.
	SamplingRate float64
	// Col7Retries reads the 7th column of 7-column lines as retries
	// (pgbench with --max-tries ≠ 1 and without -R) instead of the
	// schedule lag (-R without --max-tries).
	Col7Retries bool
	// Workers bounds the files read at once (default GOMAXPROCS).
	Workers int
	// Tool is the pgtrial that analyses (run.json's logs.analyzed_by);
	// CommandLine its command line.
	Tool        results.Tool
	CommandLine []string
}

// Result is what Analyze made.
type Result struct {
	Run *results.Run // as written to Dir/run.json
	Dir string
	// Committed latencies, exact (µs): the nearest-rank percentiles.
	P50, P95, P99, Max int64
	Mean               float64 // µs
	Lines              int64   // lines read, all files
}

// maxIntervals bounds the intervals of a run directory (11.6 days at 1 s).
const maxIntervals = 1_000_000

// quantiles are the exact quantiles the summary holds, in increasing order.
var quantiles = []float64{0.50, 0.90, 0.95, 0.99, 0.999, 1}

// Analyze reads cfg.Files and writes the run directory cfg.Dir.
func Analyze(ctx context.Context, cfg Config) (*Result, error) {
	if len(cfg.Files) == 0 {
		return nil, errors.New("analyze: no log files given")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Interval < time.Millisecond {
		return nil, fmt.Errorf("analyze: interval %v is shorter than 1 ms", cfg.Interval)
	}
	if cfg.SamplingRate < 0 || cfg.SamplingRate > 1 {
		return nil, fmt.Errorf("analyze: sampling rate %g is not in (0, 1]", cfg.SamplingRate)
	}
	workers := cmp.Or(cfg.Workers, runtime.GOMAXPROCS(0))
	workers = max(1, min(workers, len(cfg.Files)))

	sh := &shared{intervals: map[int64]*acc{}}
	// The files are dealt to the workers in turn (a pgbench run's threads'
	// logs are about the same size).
	groups := make([][]string, workers)
	for i, f := range cfg.Files {
		groups[i%workers] = append(groups[i%workers], f)
	}
	ws := make([]*worker, workers)
	got := make([][]*fileInfo, workers)
	errs := make([]error, workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i := range ws {
		w := newWorker(&cfg, sh)
		ws[i] = w
		wg.Go(func() {
			got[i], errs[i] = w.files(ctx, groups[i])
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	// The first error, not the cancellations it caused in the other workers.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	infos := make([]*fileInfo, 0, len(cfg.Files)) // in the order given
	for i := range cfg.Files {
		infos = append(infos, got[i%workers][i/workers])
	}
	return assemble(&cfg, sh, infos, ws)
}

// assemble merges the workers' figures and writes the run directory.
func assemble(cfg *Config, sh *shared, infos []*fileInfo, ws []*worker) (*Result, error) {
	kind := pgbenchfmt.LogUnknown
	for _, in := range infos {
		if in.kind == pgbenchfmt.LogUnknown {
			continue // an empty file
		}
		if kind != pgbenchfmt.LogUnknown && in.kind != kind {
			return nil, fmt.Errorf("analyze: %s is an %s log and another file a %s log: analyse them apart", in.path, in.kind, kind)
		}
		kind = in.kind
	}
	if kind == pgbenchfmt.LogUnknown || len(sh.intervals) == 0 {
		return nil, errors.New("analyze: the logs hold no line")
	}
	ex := &ws[0].exact // the others' are merged into the first's
	w0 := &worker{}
	first := true
	var clients []bool
	for i, w := range ws {
		if i > 0 {
			ex.merge(&w.exact)
			w.exact = exact{}
		}
		if w.seen {
			if first || w.minStart < w0.minStart {
				w0.minStart = w.minStart
			}
			if first || w.maxEnd > w0.maxEnd {
				w0.maxEnd = w.maxEnd
			}
			first = false
		}
		w0.lagSeen = w0.lagSeen || w.lagSeen
		w0.retriesSeen = w0.retriesSeen || w.retriesSeen
		w0.aggLagNonZero = w0.aggLagNonZero || w.aggLagNonZero
		w0.failedPlain += w.failedPlain
		w0.outOfOrder += w.outOfOrder
		for i, c := range w.clients {
			if c {
				for i >= len(clients) {
					clients = append(clients, false)
				}
				clients[i] = true
			}
		}
	}

	src := &results.LogSource{AnalyzedBy: cfg.Tool, Format: kind.String(), SamplingRate: cfg.SamplingRate, Missing: map[string]string{}}
	var lines int64
	for _, in := range infos {
		src.Files = append(src.Files, results.LogFile{Path: in.path, Compressed: in.compressed, Lines: in.lines})
		lines += in.lines
	}

	// The intervals' length and the window.
	ivUS := cfg.Interval.Microseconds()
	if kind == pgbenchfmt.LogAggregate {
		ivUS = aggInterval(infos) * 1_000_000
	}
	from, to := w0.minStart, w0.maxEnd
	if kind == pgbenchfmt.LogAggregate {
		to += ivUS
	}
	if to <= from {
		to = from + 1
	}
	src.IntervalS = float64(ivUS) / 1e6
	gridFrom := from - mod(from, ivUS) // per-transaction intervals are on the epoch's grid
	if kind == pgbenchfmt.LogAggregate {
		gridFrom = from // an aggregate log's on its first start
	}
	if n := (to - gridFrom) / ivUS; n > maxIntervals {
		return nil, fmt.Errorf("analyze: the logs span %v, %d intervals of %v: more than %d (a line with a wrong time?); choose a longer --interval", time.Duration(to-from)*time.Microsecond, n, time.Duration(ivUS)*time.Microsecond, maxIntervals)
	}

	scripts := 1
	for _, a := range sh.intervals {
		scripts = max(scripts, len(a.scripts))
	}
	names := make([]string, scripts)
	for i := range names {
		names[i] = "script" + strconv.Itoa(i+1) // pgbench's report numbers script_no 0 as 1
	}

	start, end := time.UnixMicro(from), time.UnixMicro(to)
	run := &results.Run{
		Tool:        results.Tool{Name: "pgbench"},
		CommandLine: cfg.CommandLine,
		StartedAt:   start,
		BenchStart:  start,
		EndedAt:     end,
		Workload:    results.Workload{Name: "pgbench log"},
		Model:       results.Model{Kind: results.ModelClosed, Clients: countTrue(clients), DurationS: end.Sub(start).Seconds()},
		Logs:        src,
	}
	for _, n := range names {
		run.Workload.Scripts = append(run.Workload.Scripts, results.ScriptWeight{Name: n})
	}
	lagKnown := w0.lagSeen || w0.aggLagNonZero
	if lagKnown {
		run.Model.Kind = results.ModelOpen
	}
	d, err := results.Create(cfg.Dir, run)
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	if err := d.Event(results.Event{Time: start, Kind: results.EventPhase, Phase: results.PhaseMeasure,
		Message: "measured window: the logs' first intended start to their last end"}); err != nil {
		_ = d.Close()
		return nil, fmt.Errorf("analyze: %w", err)
	}

	// The intervals, in time order on the grid of ivUS from the window's
	// start, the first and last clipped to the window; empty ones are rows
	// of zeros (no transaction ended in them).
	layout := metrics.Layout{Scripts: scripts}
	var phase [][3]metrics.BucketCounts = make([][3]metrics.BucketCounts, scripts)
	var phaseStats = make([]metrics.Stats, scripts)
	var writeErr error
	// In batches, two at a time: the intervals of the next batch are made
	// from their packed counts in parallel while those of this one are
	// written in order (each encoded in parallel by the interval log's
	// writer). Only this goroutine touches sh.intervals.
	nb := runtime.GOMAXPROCS(0)
	sets := [2][]*slot{}
	for h := range sets {
		for range nb {
			sets[h] = append(sets[h], &slot{iv: metrics.NewInterval(layout), unions: make([][3]metrics.Packed, scripts),
				phase: make([][3]metrics.BucketCounts, scripts)})
		}
	}
	var wgs [2]sync.WaitGroup
	counts := [2]int{}
	launch := func(h int, b0 int64) {
		n := 0
		for ; n < nb && b0+int64(n)*ivUS < to; n++ {
			sl, k := sets[h][n], b0+int64(n)*ivUS
			a := sh.intervals[k]
			wgs[h].Go(func() { sl.make(a, max(k, from), min(k+ivUS, to)) })
		}
		counts[h] = n
	}
	batch := int64(nb) * ivUS
	launch(0, gridFrom)
	for h, b0 := 0, gridFrom; b0 < to; h, b0 = 1-h, b0+batch {
		wgs[h].Wait()
		if b0+batch < to {
			launch(1-h, b0+batch)
		}
		for i, sl := range sets[h][:counts[h]] {
			delete(sh.intervals, b0+int64(i)*ivUS) // the packed counts are not needed any more
			if sl.err != nil && writeErr == nil {
				writeErr = sl.err
			}
			for s := range scripts {
				phaseStats[s].Merge(&sl.iv.Scripts[s].Stats)
			}
			if err := d.WriteInterval(results.PhaseMeasure, sl.iv, names); err != nil && writeErr == nil {
				writeErr = err
			}
		}
	}
	for _, set := range sets {
		for _, sl := range set {
			for s := range sl.phase {
				for j := range sl.phase[s] {
					if err := phase[s][j].Add(sl.phase[s][j].Pack(nil)); err != nil && writeErr == nil {
						writeErr = err
					}
				}
			}
		}
	}

	// The measured phase: the sums, and the histograms from the packed
	// counts of every interval.
	merged := metrics.NewInterval(layout)
	merged.Start, merged.End = start, end
	for s := range phase {
		merged.Scripts[s].Stats = phaseStats[s]
		merged.Total.Stats.Merge(&phaseStats[s])
		for j := range phase[s] {
			p := phase[s][j].Pack(nil)
			if err := errors.Join(p.AddTo(hist(&merged.Scripts[s], j)), p.AddTo(hist(&merged.Total, j))); err != nil && writeErr == nil {
				writeErr = err
			}
		}
	}
	sum := results.Summarize(merged, names, 0)
	res := &Result{Dir: cfg.Dir, Lines: lines}
	if kind == pgbenchfmt.LogTransactions {
		q := ex.quantiles(quantiles)
		r := &sum.Total.Response
		r.P50, r.P90, r.P95, r.P99, r.P999, r.Max = ms(q[0]), ms(q[1]), ms(q[2]), ms(q[3]), ms(q[4]), ms(q[5])
		r.Count = ex.n
		src.ExactPercentiles = true
		res.P50, res.P95, res.P99, res.Max = q[0], q[2], q[3], q[5]
		if ex.n > 0 {
			res.Mean = ex.sum / float64(ex.n)
		}
	} else {
		// No percentiles: an aggregate line keeps count, Σ, Σ², min and max.
		st := &merged.Total.Stats.Latency
		sum.Total.Response.Max = st.Max / 1000
		res.Max, res.Mean = int64(st.Max), st.Mean()
	}
	run.Summary = &sum
	run.Phases = []results.Phase{{Name: results.PhaseMeasure, Start: start, End: end}}
	describe(run, src, kind, w0, lagKnown)
	run.Evidence = &results.Evidence{From: start, To: end}
	for _, g := range []string{results.EvidenceWaits, results.EvidenceStatements, results.EvidenceServer, results.EvidenceOS} {
		run.Evidence.SetMissing(g, "the run directory was made from pgbench's logs (pgtrial analyze), which hold the clients' transactions only")
	}
	if writeErr != nil {
		run.Warnings = append(run.Warnings, "writing the run directory: "+writeErr.Error())
	}
	// The checklist and the findings, from what was written.
	timeline, err := results.ReadTimeline(cfg.Dir)
	if err != nil {
		run.Warnings = append(run.Warnings, "checklist: "+err.Error())
	}
	events, err := results.ReadEvents(cfg.Dir)
	if err != nil {
		run.Warnings = append(run.Warnings, "checklist: "+err.Error())
	}
	run.Checks = checks.RunChecks(run, timeline, events)
	run.Findings = explain.Run(cfg.Dir, run, explain.Defaults())
	if err := d.Finish(run); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	res.Run = run
	if writeErr != nil {
		return res, fmt.Errorf("analyze: %w", writeErr)
	}
	return res, nil
}

// slot is one interval being made from its packed counts.
type slot struct {
	iv      *metrics.Interval
	scratch metrics.BucketCounts
	unions  [][3]metrics.Packed       // per script: response, service, lag of all files
	phase   [][3]metrics.BucketCounts // per script: of every interval the slot made
	err     error
}

// make fills s.iv, the interval [from, to), from a (nil: empty).
func (s *slot) make(a *acc, from, to int64) {
	resetInterval(s.iv)
	s.err = nil
	s.iv.Start, s.iv.End = time.UnixMicro(from), time.UnixMicro(to)
	for i := range s.unions {
		for j := range s.unions[i] {
			s.unions[i][j] = s.unions[i][j][:0]
		}
	}
	if a == nil {
		return
	}
	for i := range a.scripts {
		as := &a.scripts[i]
		h := &s.iv.Scripts[i]
		h.Stats.Merge(&as.stats)
		s.iv.Total.Stats.Merge(&as.stats)
		for j, ps := range as.hists {
			if len(ps) == 0 {
				continue
			}
			for _, p := range ps {
				_ = s.scratch.Add(p) // packed by read.go: well formed
			}
			u := s.scratch.Pack(s.unions[i][j])
			s.unions[i][j] = u
			if err := errors.Join(u.AddTo(hist(h, j)), u.AddTo(hist(&s.iv.Total, j)), s.phase[i][j].Add(u)); err != nil && s.err == nil {
				s.err = err
			}
		}
	}
}

// describe fills what the logs tell and cannot tell, and the warnings.
func describe(run *results.Run, src *results.LogSource, kind pgbenchfmt.LogKind, w *worker, lagKnown bool) {
	miss := func(k, why string) { src.Missing[k] = why }
	src.Tells = append(src.Tells, "transactions by outcome (committed, skipped, failed) per script and per interval",
		"the response time of committed transactions (pgbench's latency: from the scheduled start under -R)")
	if kind == pgbenchfmt.LogTransactions {
		if w.lagSeen {
			src.Columns = append(src.Columns, "schedule_lag")
		}
		if w.retriesSeen {
			src.Columns = append(src.Columns, "retries")
		}
		src.Tells = append(src.Tells, "exact percentiles of the total's response time (every latency counted by its µs value)",
			"the number of clients (distinct client ids)")
		if w.failedPlain > 0 {
			miss("failure_class", fmt.Sprintf("%d lines say \"failed\" without a class (pgbench ran without --failures-detailed): counted as other failures", w.failedPlain))
		}
		if w.outOfOrder > 0 {
			run.Warnings = append(run.Warnings, fmt.Sprintf("%d times a line ended before the previous line's interval (files concatenated, or a clock step): each counted in its own interval", w.outOfOrder))
		}
	} else {
		src.Columns = append(src.Columns, "skipped", "retried_retries", "failures")
		miss("percentiles", "an aggregate log (--aggregate-interval) keeps per interval only the count, Σ, Σ², minimum and maximum of the latency: the mean, standard deviation and maximum are exact, the percentiles (and latency.hlog's histograms, and the timeline's percentile columns, 0) are not known")
		miss("failures", "without --failures-detailed, pgbench 15 and later write 0 in the aggregate log's failure columns, whatever failed")
		miss("service", "an aggregate log has no service time (latency − lag of each transaction)")
	}
	switch {
	case lagKnown:
		src.Tells = append(src.Tells, "the schedule lag (-R): response = latency, service = latency − lag")
		miss("target_rate", "pgbench's -R rate is not in the log: the target rate is unknown (0), the achieved rate is the logged transactions over the window")
	case kind == pgbenchfmt.LogTransactions:
		miss("lag", "no schedule-lag column: pgbench ran without -R (the closed model), so latency is the service time and the lag 0")
	default:
		miss("lag", "every lag column is 0: pgbench ran without -R (the closed model), or with a lag always below 0.5 µs")
	}
	if src.SamplingRate > 0 && src.SamplingRate < 1 {
		run.Warnings = append(run.Warnings, fmt.Sprintf("--sampling-rate %g: the counts and rates are of the logged transactions; the run's were about %.4g times as many", src.SamplingRate, 1/src.SamplingRate))
	} else if kind == pgbenchfmt.LogTransactions && src.SamplingRate == 0 {
		miss("sampling_rate", "not given: the counts are those of every transaction if pgbench ran without --sampling-rate (the log does not say)")
	}
	miss("latency_limit", "pgbench's -L is not in the log (skipped lines show that one was set): late transactions are not counted")
	miss("scripts", "the scripts' text, names and weights are not in the log: scripts are named by their number")
	miss("settings", "the server, its version and settings, the scale and the client machine are not in the log")
	miss("warmup", "the whole log is the measured window: a warm-up, if any, is inside it")
}

func hist(h *metrics.Hists, j int) *hdrhistogram.Histogram {
	switch j {
	case 0:
		return h.Response
	case 1:
		return h.Service
	}
	return h.Lag
}

func resetInterval(iv *metrics.Interval) {
	for i := range iv.Scripts {
		resetHists(&iv.Scripts[i])
	}
	resetHists(&iv.Total)
}

func resetHists(h *metrics.Hists) {
	h.Stats = metrics.Stats{}
	h.Response.Reset()
	h.Service.Reset()
	h.Lag.Reset()
}

// aggInterval is an aggregate log's interval, seconds: the smallest gap
// between two consecutive starts of a file (pgbench writes empty intervals
// as zero rows), 1 when no file has two lines.
func aggInterval(infos []*fileInfo) int64 {
	best := int64(0)
	for _, in := range infos {
		for i := 1; i < len(in.aggStarts); i++ {
			if d := in.aggStarts[i] - in.aggStarts[i-1]; d > 0 && (best == 0 || d < best) {
				best = d
			}
		}
	}
	return cmp.Or(best, 1)
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

func ms(us int64) float64 { return float64(us) / 1000 }
