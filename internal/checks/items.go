package checks

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// series is one per-interval metric of the measured window: x elapsed
// seconds, y values.
type series struct {
	name string
	x, y []float64
}

// steadySeries are the metrics the warm-up is judged on (§4.7: throughput
// and a latency percentile). In the open model the schedule sets the
// throughput, so a cold start shows in latency only.
func (in *input) steadySeries() []series {
	var out []series
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if in.run.Model.Kind != results.ModelOpen {
		s := series{name: "tps"}
		for _, r := range in.win.rows {
			if finite(r.TPS) && finite(r.Elapsed) {
				s.x, s.y = append(s.x, r.Elapsed), append(s.y, r.TPS)
			}
		}
		out = append(out, s)
	}
	s := series{name: "response p50"}
	for _, r := range in.win.rows {
		if r.Committed > 0 && finite(r.ResponseP50) && finite(r.Elapsed) {
			s.x, s.y = append(s.x, r.Elapsed), append(s.y, r.ResponseP50)
		}
	}
	return append(out, s)
}

// drift judges the series' least-squares drift s = b·T/|ȳ| against its own
// standard error (fitLine: t on the effective sample size of autocorrelated
// intervals): bad when s is significant (p < trendAlpha) and larger than
// driftTolerance. text says the drift, its standard error, the test and
// n_eff; ok is false when the series cannot be fitted.
func (s series) drift() (text string, dr float64, bad, ok bool) {
	f, ok := fitLine(s.x, s.y)
	if !ok {
		return "", 0, false, false
	}
	dr = f.Drift
	if f.NEff <= 2 {
		return fmt.Sprintf("%s drift %s not tested: its %d intervals are too autocorrelated (n_eff %.2g, lag-1 autocorrelation %.2f)", s.name, format.SignedPct(dr), f.N, f.NEff, f.Rho1), dr, false, true
	}
	if f.P < trendAlpha && math.Abs(dr) > driftTolerance {
		return fmt.Sprintf("%s drifts %s (s.e. %s) across the window (R² %.2f, %s; %s)", s.name, format.SignedPct(dr), format.Pct(f.DriftSE), f.R2, fmtP(f.P), fitTest(f)), dr, true, true
	}
	return fmt.Sprintf("%s drift %s (s.e. %s, %s; %s)", s.name, format.SignedPct(dr), format.Pct(f.DriftSE), fmtP(f.P), fitTest(f)), dr, false, true
}

// warmup: a warm-up was discarded and the window is steady.
func (in *input) warmup() results.Check {
	c := results.Check{Name: ItemWarmup}
	w := &in.win
	var problems, fine []string
	departure, tested := 0.0, false
	usable := 0 // the most intervals with a value in one series
	for _, s := range in.steadySeries() {
		usable = max(usable, len(s.y))
		if len(s.y) < minSteadyIntervals {
			continue
		}
		tested = true
		// MSER-5 (stats.SteadyState) with at least 4 batches; its overall
		// minimiser, also past the middle (then there is no steady state).
		st := stats.SteadyState(s.y)
		ok := st.Batches >= 4
		if cut := st.Minimum; ok && cut > 0 {
			head, rest := stats.Mean(s.y[:cut]), stats.Mean(s.y[cut:])
			if rest != 0 {
				rel := (head - rest) / math.Abs(rest)
				departure = max(departure, math.Abs(rel))
				switch {
				case math.Abs(rel) <= steadyTolerance:
					fine = append(fine, fmt.Sprintf("%s: the first %d intervals differ by %s from the rest", s.name, cut, format.SignedPct(rel)))
				case !st.Steady:
					problems = append(problems, fmt.Sprintf("%s has no steady state (MSER-5 would cut %d of %d intervals; they differ by %s from the rest)", s.name, cut, len(s.y), format.SignedPct(rel)))
				default:
					problems = append(problems, fmt.Sprintf("%s of the first %d intervals differs by %s from the rest (MSER-5)", s.name, cut, format.SignedPct(rel)))
				}
			}
		} else if ok {
			fine = append(fine, s.name+": MSER-5 cuts nothing")
		}
		if text, dr, bad, ok := s.drift(); ok && bad {
			departure = max(departure, math.Abs(dr))
			problems = append(problems, text)
		} else if ok {
			fine = append(fine, text)
		}
	}
	if tested {
		c.Value = departure
	} else {
		c.Value = w.warmup
	}
	var b strings.Builder
	switch {
	case !w.hasWarmup:
		c.Status = Warn
		b.WriteString("no warm-up phase: the measured window starts with cold caches and new connections; give a warm-up (--warmup 60s, longer when the data is larger than shared_buffers)")
		if len(problems) > 0 {
			b.WriteString("; and " + strings.Join(problems, "; "))
		}
	case len(problems) > 0:
		c.Status = Warn
		fmt.Fprintf(&b, "warm-up of %s discarded, but the measured window is not steady: %s; lengthen the warm-up (or the window) until it is, or report the run as drifting",
			format.Seconds(w.warmup), strings.Join(problems, "; "))
	default:
		c.Status = Pass
		fmt.Fprintf(&b, "warm-up of %s discarded", format.Seconds(w.warmup))
		switch {
		case tested:
			fmt.Fprintf(&b, "; the measured window is steady (%s)", strings.Join(fine, "; "))
		case usable < len(w.rows):
			// The series leave out intervals without a value (nothing committed: no response p50).
			fmt.Fprintf(&b, "; only %d of the %d measured intervals have a value (the others committed nothing): too few to test for a steady state (need %d)", usable, len(w.rows), minSteadyIntervals)
		case len(w.rows) > 0:
			fmt.Fprintf(&b, "; %d measured intervals are too few to test for a steady state (need %d)", len(w.rows), minSteadyIntervals)
		default:
			b.WriteString("; no timeline to test for a steady state")
		}
	}
	c.Message = b.String()
	return c
}

// checkpoints counts the checkpoints completed in the window: from the
// events (a "counters" event may stand for several), or the evidence's
// count, whichever is larger (they come from the same events; either may be
// missing). observed is false when nothing watched for checkpoints.
func (in *input) checkpoints() (n int, observed bool) {
	for _, e := range in.events {
		if e.Kind != results.EventCheckpoint || !in.win.inWindow(e.Time) {
			continue
		}
		if k := results.DataInt(e.Data["checkpoints"]); k > 0 {
			n += int(k)
		} else {
			n++
		}
	}
	if ev := in.run.Evidence; ev != nil {
		n = max(n, ev.Checkpoints)
	}
	return n, n > 0 || in.serverWatched()
}

// serverWatched reports whether the server collector ran: run.json lists
// it, or its events are there.
func (in *input) serverWatched() bool {
	if in.collected(collectorServer) {
		return true
	}
	return slices.ContainsFunc(in.events, func(e results.Event) bool {
		return e.Kind == results.EventCheckpoint || e.Kind == results.EventCheckpointStart || e.Kind == results.EventAutovacuum
	})
}

// unfinishedCheckpoints are the checkpoints that ran in the window but did
// not complete in it (results.UnfinishedCheckpoints), from the start and
// completion events (results.CheckpointSpans), else from the evidence's
// spans. Empty when the window is unknown.
func (in *input) unfinishedCheckpoints() []results.CheckpointSpan {
	w := &in.win
	if !w.known {
		return nil
	}
	spans := results.CheckpointSpans(in.events)
	if len(spans) == 0 && in.run.Evidence != nil {
		spans = in.run.Evidence.CheckpointSpans
	}
	return results.UnfinishedCheckpoints(spans, w.start, w.end)
}

// checkpointInWindow: the window contains a checkpoint (completed in it, or
// started in it and completed after it), or is long enough to.
func (in *input) checkpointInWindow() results.Check {
	c := results.Check{Name: ItemCheckpoint}
	w := &in.win
	n, observed := in.checkpoints()
	running := in.unfinishedCheckpoints()
	var when []string
	for _, sp := range running {
		when = append(when, results.DescribeCheckpoint(sp, w.start, w.end))
	}
	c.Value = n + len(running)
	var timeout time.Duration
	tset, ok := in.setting("checkpoint_timeout")
	if ok {
		d, err := parseDuration(tset, time.Second)
		if err == nil && d > 0 {
			timeout = d
		}
	}
	why := "none completed"
	if !observed {
		why = "not observed: the server collector did not run"
	}
	switch {
	case n > 0:
		c.Status = Pass
		c.Message = fmt.Sprintf("%d checkpoint%s completed in the %s measured window: its I/O is part of the figures", n, plural(n), format.Seconds(w.seconds))
		if len(running) > 0 {
			c.Message += fmt.Sprintf("; %d more ran in it (%s)", len(running), strings.Join(when, "; "))
		}
	case len(running) > 0:
		c.Status = Pass
		c.Message = fmt.Sprintf("a checkpoint ran in the %s measured window (%s): its I/O is part of the figures", format.Seconds(w.seconds), strings.Join(when, "; "))
	case !(w.seconds > 0):
		c.Status = Warn
		c.Message = "the measured window is unknown (no phases or timeline), so whether it covers a checkpoint is too"
	case timeout > 0 && w.seconds >= 2*timeout.Seconds():
		c.Status = Pass
		c.Message = fmt.Sprintf("no checkpoint seen (%s), but the %s window lasts at least 2 × checkpoint_timeout (%s)", why, format.Seconds(w.seconds), tset)
	case timeout > 0:
		c.Status = Warn
		c.Message = fmt.Sprintf("no checkpoint in the %s measured window (%s; checkpoint_timeout = %s): the figures leave out checkpoint I/O; measure at least 2 × checkpoint_timeout = %s, or lower checkpoint_timeout for the test",
			format.Seconds(w.seconds), why, tset, format.Seconds(2*timeout.Seconds()))
	default:
		c.Status = Warn
		c.Message = fmt.Sprintf("no checkpoint in the %s measured window (%s) and checkpoint_timeout is unknown: the figures may leave out checkpoint I/O; measure at least 2 × checkpoint_timeout", format.Seconds(w.seconds), why)
	}
	return c
}

// totals are the measured phase's counts: from the summary, else the sum
// of the measured timeline rows (an interrupted run).
type totals struct {
	committed, failed, skipped, dropped int64
	unstarted, unfinished               int64   // cut at the window's end (counted apart, in the percentiles as lower bounds)
	tps, achieved, target               float64 // per second
	seconds                             float64
}

func (in *input) totals() (totals, bool) {
	var t totals
	if s := in.run.Summary; s != nil {
		t = totals{
			committed: s.Total.Committed, failed: s.Total.Failed, skipped: s.Total.Skipped, dropped: s.Total.Dropped,
			unstarted: s.Total.Unstarted, unfinished: s.Total.Unfinished,
			tps: s.Total.TPS, achieved: s.AchievedRate, target: s.TargetRate, seconds: s.Duration,
		}
	} else {
		if len(in.win.all) == 0 {
			return t, false
		}
		for _, r := range in.win.all {
			t.committed += r.Committed
			t.failed += r.Failed
			t.skipped += r.Skipped
			t.dropped += r.Dropped
			t.unstarted += r.Unstarted
			t.unfinished += r.Unfinished
		}
		t.seconds = in.win.seconds
		if t.seconds > 0 {
			t.tps = float64(t.committed) / t.seconds
			t.achieved = float64(t.committed+t.failed) / t.seconds
		}
	}
	if t.target == 0 {
		t.target = in.run.Model.Rate
	}
	return t, true
}

// openModelLatency: latency percentiles come from an open-model run.
func (in *input) openModelLatency() results.Check {
	c := results.Check{Name: ItemOpenModel}
	m := &in.run.Model
	switch m.Kind {
	case results.ModelOpen:
		c.Status, c.Value = Pass, m.Rate
		c.Message = fmt.Sprintf("open model at %.6g tx/s: latency runs from each transaction's intended start, so a stall shows in it", m.Rate)
		if m.Rate == 0 { // pgtrial analyze of a -R log: the rate is not in it
			c.Message = "open model (the rate is not recorded): latency runs from each transaction's intended start, so a stall shows in it"
		}
	case results.ModelClosed:
		c.Status = Warn
		t, ok := in.totals()
		if ok && t.tps > 0 && m.Clients > 0 {
			little := float64(m.Clients) / t.tps * 1000
			c.Value = little
			c.Message = fmt.Sprintf("closed model: mean latency = clients/tps = %d/%.1f = %.3g ms by Little's law, set by the client count, and a stall hides most of its victims (coordinated omission); measure latency in an open-model run (--rate) at a fraction of this run's throughput",
				m.Clients, t.tps, little)
		} else {
			c.Message = "closed model: its latency is set by the client count (Little's law: mean = clients/tps) and hides stalls (coordinated omission); measure latency in an open-model run (--rate)"
		}
	default:
		c.Status = Warn
		c.Message = fmt.Sprintf("load model %q unknown: latency percentiles are trustworthy only from an open-model run", m.Kind)
	}
	return c
}

// skippedDropped: the share of the scheduled transactions the latency
// figures leave out.
func (in *input) skippedDropped() results.Check {
	c := results.Check{Name: ItemSkippedDropped}
	t, ok := in.totals()
	if !ok {
		c.Status = Warn
		c.Message = "no summary or timeline: the skipped and dropped counts are unknown"
		return c
	}
	scheduled := t.committed + t.failed + t.skipped + t.dropped + t.unstarted + t.unfinished
	var x float64
	if scheduled > 0 {
		x = float64(t.skipped+t.dropped) / float64(scheduled)
	}
	c.Value = x
	failed := ""
	if t.failed > 0 {
		failed = fmt.Sprintf("; failed %s (also left out of the latency)", format.Pct(float64(t.failed)/float64(scheduled)))
	}
	if t.unstarted+t.unfinished > 0 {
		failed += fmt.Sprintf("; %d unstarted and %d unfinished at the window's end (in the percentiles with their wait so far)", t.unstarted, t.unfinished)
	}
	counts := fmt.Sprintf("skipped %d, dropped %d of %d scheduled = %s%s", t.skipped, t.dropped, scheduled, format.Pct(x), failed)
	switch {
	case x > excludedFail:
		c.Status = Fail
		c.Message = fmt.Sprintf("%s: the latency percentiles leave out more than %s of the load offered and describe the transactions that ran, not the schedule; lower the rate or raise --latency-limit", counts, format.Pct(excludedFail))
	case x > excludedWarn:
		c.Status = Warn
		c.Message = fmt.Sprintf("%s (above %s): print this share with every latency figure; the server is near or past its capacity at this rate", counts, format.Pct(excludedWarn))
	default:
		c.Status = Pass
		c.Message = counts + ", printed with the latency figures"
	}
	return c
}

// failedShare: how many transactions failed, and whether anything
// committed at all.
func (in *input) failedShare() results.Check {
	c := results.Check{Name: ItemFailed}
	t, ok := in.totals()
	if !ok {
		c.Status = Warn
		c.Message = "no summary or timeline: the failed count is unknown"
		return c
	}
	taken := t.committed + t.skipped + t.failed
	f := 1.0
	if taken > 0 {
		f = float64(t.failed) / float64(taken)
	}
	c.Value = f
	counts := fmt.Sprintf("failed %d of %d taken = %s", t.failed, taken, format.Pct(f))
	if taken == 0 {
		counts = "no transaction ended in the window"
	}
	if by := in.failedBy(); by != "" {
		counts += " (" + by + ")"
	}
	cut := t.unstarted + t.unfinished
	if cut > 0 {
		counts += fmt.Sprintf("; %d unfinished and %d unstarted at its end", t.unfinished, t.unstarted)
	}
	switch {
	case t.committed == 0 && t.failed == 0 && cut > 0:
		c.Status = Fail
		c.Message = fmt.Sprintf("nothing committed: %s: the server did not answer within the window (a stall, or transactions longer than it); "+
			"the percentiles hold only their waits so far", counts)
	case t.committed == 0:
		c.Status = Fail
		c.Message = fmt.Sprintf("nothing committed: %s; the run measured no transaction, so its figures describe nothing: "+
			"find the error (a run without --continue-on-error stops at the first and prints it) before reading it", counts)
	case f > failedFail:
		c.Status = Fail
		c.Message = fmt.Sprintf("%s: more than %s of the transactions failed, and the figures describe the few that committed; "+
			"find the error (a run without --continue-on-error stops at the first and prints it)", counts, format.Pct(failedFail))
	case f > failedWarn:
		c.Status = Warn
		c.Message = fmt.Sprintf("%s (above %s): failed transactions are left out of the latency and the throughput; print this share with every figure", counts, format.Pct(failedWarn))
	default:
		c.Status = Pass
		c.Message = counts
	}
	return c
}

// failedBy lists the summary's failures by class ("other 3901,
// serialization 2"), largest first; "" without a summary or failures.
func (in *input) failedBy() string {
	s := in.run.Summary
	if s == nil {
		return ""
	}
	type kv struct {
		k string
		n int64
	}
	var list []kv
	for k, n := range s.Total.FailedBy {
		if n > 0 {
			list = append(list, kv{k, n})
		}
	}
	slices.SortFunc(list, func(a, b kv) int {
		if a.n != b.n {
			return cmp.Compare(b.n, a.n)
		}
		return strings.Compare(a.k, b.k)
	})
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = fmt.Sprintf("%s %d", e.k, e.n)
	}
	return strings.Join(parts, ", ")
}

// dataVsMemory: which memory the data fits in.
func (in *input) dataVsMemory() results.Check {
	c := results.Check{Name: ItemDataVsMemory}
	var data int64
	if s := in.run.Server; s != nil {
		data = s.DatabaseBytes
		if data <= 0 {
			for _, t := range s.Tables {
				data += max(t.TotalBytes, 0)
			}
		}
	}
	var sb int64
	sbSet, sbOK := in.setting("shared_buffers")
	if sbOK {
		if v, err := parseBytes(sbSet, blockSize); err == nil && v > 0 {
			sb = v
		}
	}
	var ram int64
	if h := in.run.Host; h != nil {
		ram = h.MemoryBytes
	}
	if data > 0 {
		c.Value = data
	}
	switch {
	case data <= 0 || sb <= 0:
		c.Status = Warn
		var unknown []string
		if data <= 0 {
			unknown = append(unknown, "the data size")
		}
		if sb <= 0 {
			unknown = append(unknown, "shared_buffers")
		}
		c.Message = strings.Join(unknown, " and ") + " unknown (run with the server collector): the result cannot say whether it measured memory or the disk"
	case data <= sb:
		c.Status = Pass
		c.Message = fmt.Sprintf("data %s fits in shared_buffers %s (%.2g×): a memory benchmark; reads never reach the operating system", format.Bytes(data), format.Bytes(sb), float64(data)/float64(sb))
	case ram <= 0:
		c.Status = Warn
		c.Message = fmt.Sprintf("data %s = %.2g × shared_buffers %s, and the server's RAM is unknown: reads come from the page cache or the disk, which one cannot be told", format.Bytes(data), float64(data)/float64(sb), format.Bytes(sb))
	case data <= ram:
		c.Status = Pass
		c.Message = fmt.Sprintf("data %s = %.2g × shared_buffers %s but %.2g × RAM %s: reads come from the page cache, not the disk (not a disk benchmark)", format.Bytes(data), float64(data)/float64(sb), format.Bytes(sb), float64(data)/float64(ram), format.Bytes(ram))
	default:
		c.Status = Pass
		c.Message = fmt.Sprintf("data %s = %.2g × RAM %s (shared_buffers %s): reads reach the disk", format.Bytes(data), float64(data)/float64(ram), format.Bytes(ram), format.Bytes(sb))
	}
	return c
}

// isTPCB reports whether the workload runs pgbench's tpcb-like script
// (pgtrial's name "tpcb-like", pgbench's description "<builtin: TPC-B (sort
// of)>"), the one that updates a pgbench_branches row per transaction.
func isTPCB(w *results.Workload) bool {
	is := func(name string) bool {
		n := strings.ToLower(name)
		return strings.Contains(n, "tpcb-like") || strings.Contains(n, "tpc-b (sort of)")
	}
	for _, s := range w.Scripts {
		if s.Weight > 0 && is(s.Name) {
			return true
		}
	}
	return len(w.Scripts) == 0 && is(w.Name)
}

// scaleVsClients: tpcb-like with fewer branches than clients measures row
// lock contention.
func (in *input) scaleVsClients() results.Check {
	c := results.Check{Name: ItemScaleVsClients}
	w, clients := &in.run.Workload, in.run.Model.Clients
	switch {
	case !isTPCB(w):
		c.Status = Pass
		c.Message = "not tpcb-like: no per-branch row to contend on"
	case w.Scale <= 0:
		c.Status = Warn
		c.Message = fmt.Sprintf("tpcb-like with an unknown scale and %d clients: with scale < clients the clients queue on pgbench_branches row locks", clients)
	case w.Scale < clients:
		c.Status, c.Value = Warn, w.Scale
		c.Message = fmt.Sprintf("tpcb-like at scale %d with %d clients: every transaction updates one of %d pgbench_branches rows, so clients queue on row locks and the run measures that contention; use scale ≥ clients", w.Scale, clients, w.Scale)
	default:
		c.Status, c.Value = Pass, w.Scale
		c.Message = fmt.Sprintf("tpcb-like at scale %d ≥ %d clients", w.Scale, clients)
	}
	return c
}

// clientCPU: the load generator is below saturation.
func (in *input) clientCPU() results.Check {
	c := results.Check{Name: ItemClientCPU}
	var cpu float64
	known := false
	if ev := in.run.Evidence; ev != nil && (in.collected(collectorOS) || ev.CPU != nil || ev.ClientCPU > 0) {
		cpu, known = ev.ClientCPU, true
	} else if in.osClientCPU != nil {
		cpu, known = *in.osClientCPU, true
	}
	if !known || math.IsNaN(cpu) || math.IsInf(cpu, 0) {
		c.Status = Warn
		c.Message = "pgtrial's own CPU was not measured (the OS collector did not run): a saturated load generator would measure itself"
		if in.osErr != nil {
			c.Message = fmt.Sprintf("pgtrial's own CPU is unknown (%v): a saturated load generator would measure itself", in.osErr)
		}
		return c
	}
	c.Value = cpu
	threads := in.run.Model.Threads
	hostCPUs := 0
	if h := in.run.Host; h != nil && h.Local {
		hostCPUs = h.CPUs
	}
	var limits []string
	status := Pass
	raise := func(s string) {
		if s == Fail || (s == Warn && status == Pass) {
			status = s
		}
	}
	if threads > 0 {
		share := cpu / float64(threads)
		limits = append(limits, fmt.Sprintf("%s of its %d thread%s", format.Pct(share), threads, plural(threads)))
		switch {
		case share > cpuThreadFail:
			raise(Fail)
		case share > cpuThreadWarn:
			raise(Warn)
		}
	}
	if hostCPUs > 0 {
		share := cpu / float64(hostCPUs)
		limits = append(limits, fmt.Sprintf("%s of the %d CPUs it shares with the server", format.Pct(share), hostCPUs))
		switch {
		case share > cpuHostFail:
			raise(Fail)
		case share > cpuHostWarn:
			raise(Warn)
		}
	}
	c.Status = status
	used := fmt.Sprintf("pgtrial used %.2f CPU", cpu)
	if len(limits) > 0 {
		used += " (" + strings.Join(limits, ", ") + ")"
	}
	switch status {
	case Fail:
		c.Message = used + ": the load generator is saturated and the figures measure it, not the server; add threads (-j), or run pgtrial on another machine"
	case Warn:
		c.Message = fmt.Sprintf("%s: near saturation (warn above %s of the threads or %s of a shared machine); add threads (-j) or run pgtrial on another machine", used, format.Pct(cpuThreadWarn), format.Pct(cpuHostWarn))
	default:
		c.Message = used + ": below saturation"
		if len(limits) == 0 {
			c.Message = used + ", with its threads and the machine's CPUs unknown: not judged against a limit"
			c.Status = Warn
		}
	}
	return c
}

// rateAchieved: the open model's schedule was kept up with.
func (in *input) rateAchieved() results.Check {
	c := results.Check{Name: ItemRateAchieved}
	m := &in.run.Model
	switch m.Kind {
	case results.ModelOpen:
	case results.ModelClosed:
		c.Status = Pass
		c.Message = "closed model: no target rate"
		return c
	default:
		c.Status = Pass
		c.Message = fmt.Sprintf("load model %q: no target rate to check", m.Kind)
		return c
	}
	t, ok := in.totals()
	if m.Rate == 0 && in.run.Logs != nil {
		c.Status = Warn // pgtrial analyze: pgbench's -R is not in its log
		c.Message = "open model, but the target rate is not in the pgbench log: whether it was achieved is unknown"
		return c
	}
	if !ok || !(t.target > 0) || !(t.seconds > 0) {
		c.Status = Fail
		c.Message = "open model, but the achieved rate is unknown (no summary or timeline, or no target rate)"
		return c
	}
	expected := t.target * t.seconds
	started := t.achieved*t.seconds + float64(t.unfinished) // the unfinished had started
	share := started / expected
	c.Value = share
	// stats.RateAchieved is the rule, shared with the capacity search.
	poisson := m.Arrival != "uniform"
	margin := stats.RateTolerance(expected, poisson)
	noise := ""
	if poisson && margin > stats.RateShortfall*expected {
		noise = fmt.Sprintf(", %g√E for Poisson arrivals", float64(stats.RatePoissonSigmas))
	}
	rateOK := stats.RateAchieved(expected, started, poisson)
	rate := fmt.Sprintf("achieved %.1f of %.6g tx/s (%s; %.0f of %.0f scheduled started, tolerance %.0f = max(1 %% of E%s)",
		t.achieved, t.target, format.Pct(share), started, expected, margin, noise)
	if t.skipped+t.dropped > 0 {
		rate += fmt.Sprintf("; %d skipped, %d dropped", t.skipped, t.dropped)
	}
	if t.unstarted > 0 {
		rate += fmt.Sprintf("; %d due by the window's end never started", t.unstarted)
	}
	rate += ")"
	lag, lagGrowing := in.lagTrend()
	switch {
	case !rateOK && lagGrowing:
		c.Status = Fail
		c.Message = rate + " and " + lag + ": the server cannot keep this rate; lower it (pgtrial capacity finds the highest that holds)"
	case !rateOK:
		c.Status = Fail
		c.Message = rate + ": the schedule was not kept; lower the rate, add clients, or check the load generator's CPU"
	case lagGrowing:
		c.Status = Fail
		c.Message = rate + ", but " + lag + ": a queue is building, so the run is not sustainable and its latency grows with its length"
	default:
		c.Status = Pass
		c.Message = rate + "; " + lag
	}
	return c
}

// lagTrend tests the measured lag p99 for growth: a one-sided slope with
// p < trendAlpha, a fitted rise b·T above lagRiseMs, and the median of the
// last quarter of the intervals above the first quarter's by more than
// lagRiseMs (so one late spike, such as a checkpoint at the end, does not
// count as a queue that keeps building).
func (in *input) lagTrend() (string, bool) {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	var x, y []float64
	for _, r := range in.win.rows {
		if finite(r.LagP99) && finite(r.Elapsed) {
			x, y = append(x, r.Elapsed), append(y, r.LagP99)
		}
	}
	f, ok := fitLine(x, y)
	if !ok || len(y) < 8 {
		return fmt.Sprintf("lag trend not tested (%d intervals)", len(y)), false
	}
	rise := f.Slope * (slices.Max(x) - slices.Min(x)) // b·T, ms
	pUp := pRising(f)
	q := len(y) / 4
	firstQ, lastQ := stats.Median(y[:q]), stats.Median(y[len(y)-q:])
	desc := fmt.Sprintf("lag p99 %.3g → %.3g ms (first → last quarter; fitted rise %+.3g ms, one-sided %s)", firstQ, lastQ, rise, fmtP(pUp))
	growing := pUp < trendAlpha && rise > lagRiseMs && lastQ-firstQ > lagRiseMs
	if growing {
		return "the lag grows: " + desc, true
	}
	return "lag not growing: " + desc, false
}

// autovacuum: autovacuum runs in the window are noted by table.
func (in *input) autovacuum() results.Check {
	c := results.Check{Name: ItemAutovacuum}
	byTable := map[string]*results.TableVacuum{}
	var order []string
	add := func(table string, v, a int64) {
		tv := byTable[table]
		if tv == nil {
			tv = &results.TableVacuum{Table: table}
			byTable[table] = tv
			order = append(order, table)
		}
		tv.Vacuums += v
		tv.Analyzes += a
	}
	for _, e := range in.events {
		if e.Kind == results.EventAutovacuum && in.win.inWindow(e.Time) {
			name, _ := e.Data["table"].(string)
			add(name, results.DataInt(e.Data["vacuums"]), results.DataInt(e.Data["analyzes"]))
		}
	}
	if len(byTable) == 0 && in.run.Evidence != nil {
		for _, tv := range in.run.Evidence.Autovacuum {
			add(tv.Table, tv.Vacuums, tv.Analyzes)
		}
	}
	slices.Sort(order)
	var runs int64
	var names []string
	for _, t := range order {
		tv := byTable[t]
		runs += tv.Vacuums + tv.Analyzes
		var what []string
		if tv.Vacuums > 0 {
			what = append(what, fmt.Sprintf("%d vacuum%s", tv.Vacuums, plural(tv.Vacuums)))
		}
		if tv.Analyzes > 0 {
			what = append(what, fmt.Sprintf("%d analyze%s", tv.Analyzes, plural(tv.Analyzes)))
		}
		name := t
		if name == "" {
			name = "?"
		}
		names = append(names, name+" ("+strings.Join(what, ", ")+")")
	}
	c.Value = runs
	switch {
	case len(names) > 0:
		c.Status = Warn
		c.Message = "autovacuum ran in the measured window: " + strings.Join(names, ", ") + "; its I/O and locks are part of the figures (production-like, but compare variants only when each saw it, or VACUUM ANALYZE before the runs)"
	case in.serverWatched():
		c.Status = Pass
		c.Message = "no autovacuum or autoanalyze finished in the measured window"
	default:
		c.Status = Warn
		c.Message = "autovacuum not observed: the server collector did not run"
	}
	return c
}

func plural[T int | int64](n T) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// LagGrowing says whether the measured schedule lag p99 of a run grows (the
// rule of the rate_achieved item: a one-sided rising slope with p below
// 0.01 that rises by more than lagRiseMs, first to last quarter too), with
// the figures that decided it.
func LagGrowing(run *results.Run, timeline []results.TimelineRow, events []results.Event) (bool, string) {
	desc, growing := newInput(run, timeline, events).lagTrend()
	return growing, desc
}
