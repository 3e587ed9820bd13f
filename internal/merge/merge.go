// Package merge makes one run directory of the run directories of the
// segments of one load (`pgtrial merge DIR… -o OUT`; segments are `run
// --segment i/n`, the union of whose schedules is one generator's), so that
// report, compare, the checklist and the findings read it as any other run:
//
//   - one clock: every time of segment i is shifted by its clock offset
//     against the server (the mean of its start and end readings) less
//     segment 0's, onto segment 0's clock corrected to the server's
//     (results.Merge);
//   - latency.hlog: each segment's interval goes into the interval of
//     segment 0's grid that holds its midpoint on that clock (the grid is
//     extended by whole intervals for one that lies outside), and the HDR
//     histograms of each tag add exactly there; timeline.csv's counts are
//     the sums of the segments' rows of the interval (sessions too: the
//     sum of the segments' peaks bounds the whole load's from above);
//   - run.json's summary: counts summed (committed, failed by class,
//     skipped, dropped, retried, unstarted, unfinished, late, per script and
//     per command), means pooled from the segments' exact sums,
//     percentiles from the union of the segments' measured histograms,
//     rates from the sums over segment 0's measured window; never an average of
//     percentiles or rates;
//   - events.jsonl: every segment's events in time order on the common
//     clock, each with Data "segment"; the server's events (checkpoints,
//     autovacuum) only from segment 0, whose collectors' files (waits,
//     statements, server, os, activity, plans, …) are the merged run's: the
//     server is watched once. Another segment's os.csv (its own machine) is
//     kept as segments/NNN/os.csv;
//   - slow.csv: the segments' slowest transactions on the common clock,
//     client numbers of the whole load;
//   - txlog/: every segment's transaction logs, as segNNN.NAME.
//
// Segments that are not of one load are refused: a different workload,
// script text, schedule (model, rate, whole-load clients and threads,
// duration, warm-up, interval, start), seed or segment count, a duplicate
// or missing index, a directory that is not a segment's, a crashed segment,
// and an interrupted one unless Config.AllowPartial.
package merge

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// Config is what to merge and how.
type Config struct {
	Dirs []string // the segments' run directories, any order
	Out  string   // the run directory to create
	// AllowPartial merges interrupted or aborted segments too, with a
	// warning in run.json that the result is not the whole load.
	AllowPartial bool
	// Tool and CommandLine are run.json's (the merging pgtrial's); the
	// zero Tool keeps segment 0's.
	Tool        results.Tool
	CommandLine []string
}

// RefusalError is a refusal of the inputs: segments that are not of one
// load, or not complete (`pgtrial merge` exits 1 with it).
type RefusalError struct{ msg string }

func (e *RefusalError) Error() string { return e.msg }

func refuse(format string, args ...any) error {
	return &RefusalError{msg: fmt.Sprintf(format, args...)}
}

// Dirs merges the run directories of the segments of one load into the run
// directory out. Mismatches are returned as *RefusalError that say which
// directory differs from which in what.
func Dirs(dirs []string, out string) (*results.Run, error) {
	return Merge(Config{Dirs: dirs, Out: out})
}

// maxExtend bounds the intervals added to segment 0's grid for the
// intervals of other segments outside it (a clock far off).
const maxExtend = 10000

// serverEvents are the event kinds of the server's collectors: taken from
// segment 0 only, which watched the same server as the others.
var serverEvents = map[string]bool{
	results.EventCheckpoint: true, results.EventCheckpointStart: true, results.EventAutovacuum: true,
}

// Merge merges cfg.Dirs into cfg.Out.
func Merge(cfg Config) (*results.Run, error) {
	if len(cfg.Dirs) == 0 {
		return nil, refuse("merge: no run directories given")
	}
	if cfg.Out == "" {
		return nil, refuse("merge: no output directory (-o)")
	}
	var warnings []string
	segs := make([]*segment, 0, len(cfg.Dirs))
	for _, d := range cfg.Dirs {
		if sameDir(d, cfg.Out) {
			return nil, refuse("merge: the output directory %s is one of the segments", cfg.Out)
		}
		s, w, err := load(d, cfg.AllowPartial)
		if err != nil {
			return nil, err
		}
		segs = append(segs, s)
		warnings = append(warnings, w...)
	}
	segs, err := check(segs)
	if err != nil {
		return nil, err
	}
	s0 := segs[0]
	L, err := intervalLength(s0)
	if err != nil {
		return nil, err
	}
	var notes []string

	// The clocks: shift_i = offset_i − offset_0.
	off0, ok0 := s0.clockOffset()
	for _, s := range segs {
		off, ok := s.clockOffset()
		if !ok {
			warnings = append(warnings, fmt.Sprintf("segment %d (%s) has no reading of the server's clock: its times are taken as they are", s.run.Segment.Index, s.dir))
			off = off0
		}
		if !ok0 {
			off = 0
		}
		s.offsetMs = off
		s.shift = time.Duration(math.Round((off - off0) * float64(time.Millisecond)))
	}
	// How far apart the bench starts were on the server's clock.
	var lo, hi time.Time
	for i, s := range segs {
		t := s.run.BenchStart.Add(time.Duration(s.offsetMs * float64(time.Millisecond)))
		if i == 0 || t.Before(lo) {
			lo = t
		}
		if i == 0 || t.After(hi) {
			hi = t
		}
	}
	spread := hi.Sub(lo)
	d0 := s0.run.Summary.Duration
	notes = append(notes, fmt.Sprintf("the %d segments' bench starts were %s apart on the server's clock (each bench start + its clock offset)",
		len(segs), spread.Round(time.Microsecond)))
	if d0 > 0 && spread.Seconds() > 0.01*d0 {
		warnings = append(warnings, fmt.Sprintf("the segments started %s apart on the server's clock, more than 1 %% of the %.3g s window: they did not run one schedule together (give them one --start-at); the merged rates and intervals mix different moments",
			spread.Round(time.Millisecond), d0))
	}
	for _, s := range segs[1:] {
		if d := s.run.Summary.Duration; d0 > 0 && math.Abs(d-d0) > 0.01*d0 {
			warnings = append(warnings, fmt.Sprintf("segment %d measured %.3f s, segment 0 %.3f s: the merged rates are over segment 0's window", s.run.Segment.Index, d, d0))
		}
	}

	names := make([]string, len(s0.run.Workload.Scripts))
	for i, sc := range s0.run.Workload.Scripts {
		names[i] = sc.Name
	}
	tagNames := tags(names)

	// The grid: segment 0's intervals, extended for the others'.
	g := &grid{L: L}
	for _, iv := range s0.ivs {
		g.slots = append(g.slots, slot{start: iv.start, end: iv.end, phase: iv.phase})
	}
	if len(g.slots) == 0 {
		return nil, refuse("merge: %s (segment 0) recorded no interval", s0.dir)
	}
	unknownTags := map[string]bool{}
	phaseMismatch := 0
	for _, s := range segs {
		for j := range s.ivs {
			iv := &s.ivs[j]
			mid := iv.start.Add(iv.end.Sub(iv.start) / 2).Add(s.shift)
			k, err := g.find(mid, iv.phase)
			if err != nil {
				return nil, refuse("merge: %s: interval %d: %v", s.dir, j+1, err)
			}
			sl := &g.slots[k]
			if sl.phase != iv.phase {
				phaseMismatch++
			}
			sl.add(iv, tagNames, unknownTags)
		}
	}
	if phaseMismatch > 0 {
		warnings = append(warnings, fmt.Sprintf("%d intervals of the segments fell into an interval of another phase (warm-up or measured) of the merged grid: the segments' phases were not aligned", phaseMismatch))
	}
	for t := range unknownTags {
		warnings = append(warnings, fmt.Sprintf("latency.hlog tag %q is not one of the workload's scripts: left out", t))
	}

	// The measured phase: the union of each segment's measured intervals
	// (by its own phase), its counts from the segments' summaries.
	measure := metrics.NewInterval(metrics.Layout{Scripts: len(names)})
	sumStats := make([]metrics.Stats, len(names))
	var totalStats metrics.Stats
	var commands [][]metrics.CommandStats
	var mseg []results.MergedSegment
	clientCPU := 0.0
	var peakConnected int64
	for _, s := range segs {
		var total int64
		for j := range s.ivs {
			iv := &s.ivs[j]
			if iv.phase != results.PhaseMeasure {
				continue
			}
			for k, tag := range tagNames {
				h := &measure.Total
				if k < len(names) {
					h = &measure.Scripts[k]
				}
				addHists(h, iv.hists, tag)
			}
			if h := iv.hists[metrics.TagTotal+"/"+metrics.KindResp]; h != nil {
				total += h.TotalCount()
			}
		}
		sum := s.run.Summary
		if c := sum.Total.Response.Count; c > 0 && c != total {
			warnings = append(warnings, fmt.Sprintf("segment %d (%s): its summary's response histogram holds %d values, its measured intervals in latency.hlog %d", s.run.Segment.Index, s.dir, c, total))
		}
		for k := range names {
			if k < len(sum.Scripts) {
				st := stats(&sum.Scripts[k])
				sumStats[k].Merge(&st)
				commands = mergeCommands(commands, k, sum.Scripts[k].Commands)
			}
		}
		st := stats(&sum.Total)
		totalStats.Merge(&st)
		peakConnected += sum.PeakConnected // each segment's own peak: their sum bounds the whole's
		ms := results.MergedSegment{
			Dir: s.dir, Index: s.run.Segment.Index, RunID: runID(s.dir),
			StartedAt: s.run.StartedAt, BenchStart: s.run.BenchStart, Clock: s.run.Segment.Clock,
			OffsetMs: s.offsetMs, ShiftMs: float64(s.shift) / float64(time.Millisecond),
			Committed: sum.Total.Committed, Started: sum.Total.Committed + sum.Total.Failed,
			Interrupted: s.run.Interrupted || s.run.Aborted,
		}
		mseg = append(mseg, ms)
		if ev := s.run.Evidence; ev != nil {
			clientCPU = max(clientCPU, ev.ClientCPU)
		}
	}
	for k := range names {
		measure.Scripts[k].Stats = sumStats[k]
	}
	measure.Total.Stats = totalStats
	measure.Commands = commands
	var from, to time.Time
	for _, p := range s0.run.Phases {
		if p.Name == results.PhaseMeasure {
			from, to = p.Start, p.End
		}
	}
	measure.Start, measure.End = from, to
	measure.Sessions.ConnectedMax = peakConnected
	summary := results.Summarize(measure, names, s0.run.Segment.Rate)
	if d0 > 0 {
		// Segment 0's window length, as its own summary's (the phase's
		// times are its interval ends at full precision).
		rescale(&summary, d0)
	}

	run := &results.Run{
		Tool:        s0.run.Tool,
		CommandLine: cfg.CommandLine,
		StartedAt:   s0.run.StartedAt,
		BenchStart:  s0.run.BenchStart,
		Target:      s0.run.Target,
		Workload:    s0.run.Workload,
		Model:       s0.run.Model,
		Phases:      s0.run.Phases,
		Summary:     &summary,
		Collectors:  s0.run.Collectors,
		Server:      s0.run.Server,
		Host:        s0.run.Host,
		Tallies:     mergeTallies(segs, &notes),
		// The server's values at the window's start and end: segment 0's.
		WindowValues: s0.run.WindowValues,
	}
	if cfg.Tool.Name != "" {
		run.Tool = cfg.Tool
	}
	seg := s0.run.Segment
	run.Model.Clients, run.Model.Threads, run.Model.Rate = seg.Clients, seg.Threads, seg.Rate
	for _, s := range segs {
		end := s.run.EndedAt.Add(s.shift)
		if end.After(run.EndedAt) {
			run.EndedAt = end
		}
		if s.run.Interrupted {
			run.Interrupted = true
			run.InterruptReason = cmp.Or(run.InterruptReason, fmt.Sprintf("segment %d: %s", s.run.Segment.Index, s.run.InterruptReason))
		}
		run.Aborted = run.Aborted || s.run.Aborted
		for _, w := range s.run.Warnings {
			run.Warnings = append(run.Warnings, fmt.Sprintf("segment %d: %s", s.run.Segment.Index, w))
		}
		if s.run.TPCC != nil {
			warnings = append(warnings, fmt.Sprintf("segment %d has TPC-C-like figures: they are not merged (run check -w tpcc on the server)", s.run.Segment.Index))
		}
	}
	run.Warnings = append(run.Warnings, warnings...)
	notes = append(notes,
		"times are on segment 0's clock corrected to the server's: segment i's times + shift_ms (its clock offset − segment 0's)",
		"histograms merged exactly per interval and tag; counts summed; rates over segment 0's measured window; percentiles from the merged histograms",
		"the collectors' files are segment 0's (the server is watched once); other segments' os.csv are in segments/NNN/; the transaction logs in txlog/segNNN.*")

	// The directory.
	d, err := results.Create(cfg.Out, run)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	var writeErrs []error
	note := func(err error) {
		if err != nil {
			writeErrs = append(writeErrs, err)
		}
	}
	for _, e := range mergeEvents(segs) {
		note(d.Event(e))
	}
	for i := range g.slots {
		note(d.WriteInterval(g.slots[i].phase, g.slots[i].interval(len(names), tagNames), names))
	}
	note(writeSlow(cfg.Out, segs))
	note(copyFiles(cfg.Out, segs, mseg))
	run.Merge = &results.Merge{Segments: mseg, StartSpreadMs: float64(spread) / float64(time.Millisecond), IntervalS: L.Seconds(), Notes: notes}

	if !from.IsZero() {
		run.Evidence = collect.Summarize(cfg.Out, from, to, L, summary.Total.Committed)
		run.Evidence.ClientCPU = clientCPU // the busiest generator's
	}
	if len(writeErrs) > 0 {
		run.Warnings = append(run.Warnings, "writing the merged run directory: "+errors.Join(writeErrs...).Error())
	}
	timeline, err := results.ReadTimeline(cfg.Out)
	if err != nil {
		run.Warnings = append(run.Warnings, "checklist: "+err.Error())
	}
	events, err := results.ReadEvents(cfg.Out)
	if err != nil {
		run.Warnings = append(run.Warnings, "checklist: "+err.Error())
	}
	run.Checks = checks.RunChecks(run, timeline, events)
	run.Findings = explain.Run(cfg.Out, run, explain.Defaults())
	if err := d.Finish(run); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if len(writeErrs) > 0 {
		return run, fmt.Errorf("merge: %w", errors.Join(writeErrs...))
	}
	return run, nil
}

// rescale sets the summary's rates over a window of dur seconds.
func rescale(s *results.Summary, dur float64) {
	s.Duration = dur
	t := &s.Total
	s.AchievedRate = float64(t.Committed+t.Failed) / dur
	t.TPS = float64(t.Committed) / dur
	for i := range s.Scripts {
		s.Scripts[i].TPS = float64(s.Scripts[i].Committed) / dur
	}
}

// grid is the merged run's intervals: segment 0's, extended by whole
// intervals of length L.
type grid struct {
	L     time.Duration
	slots []slot
}

// find is the slot that holds the instant m (start < m ≤ end, the rule of
// results.Window), extending the grid when m lies outside it.
func (g *grid) find(m time.Time, phase string) (int, error) {
	for n := 0; !m.After(g.slots[0].start); n++ {
		if n > maxExtend {
			return 0, fmt.Errorf("it lies more than %d intervals before segment 0's first: are the clocks far apart?", maxExtend)
		}
		first := g.slots[0].start
		g.slots = slices.Insert(g.slots, 0, slot{start: first.Add(-g.L), end: first, phase: phase})
	}
	for n := 0; m.After(g.slots[len(g.slots)-1].end); n++ {
		if n > maxExtend {
			return 0, fmt.Errorf("it lies more than %d intervals after segment 0's last: are the clocks far apart?", maxExtend)
		}
		last := g.slots[len(g.slots)-1].end
		g.slots = append(g.slots, slot{start: last, end: last.Add(g.L), phase: phase})
	}
	i, _ := slices.BinarySearchFunc(g.slots, m, func(s slot, t time.Time) int {
		if !t.After(s.end) {
			return 1 // s ends at or after t: s or an earlier one
		}
		return -1
	})
	return i, nil
}

// slot is one interval of the merged run.
type slot struct {
	start, end time.Time
	phase      string
	hists      map[string]*hdrhistogram.Histogram
	row        results.TimelineRow // the sums of the segments' counts
}

// add merges a segment's interval into s.
func (s *slot) add(iv *interval, tagNames []string, unknown map[string]bool) {
	if s.hists == nil {
		s.hists = map[string]*hdrhistogram.Histogram{}
	}
	for tag, h := range iv.hists {
		prefix, _, _ := metrics.SplitTag(tag)
		if !slices.Contains(tagNames, prefix) {
			unknown[tag] = true
			continue
		}
		if s.hists[tag] == nil {
			s.hists[tag] = metrics.NewHistogram()
		}
		s.hists[tag].Merge(h)
	}
	r, o := &s.row, &iv.row
	r.Committed += o.Committed
	r.Failed += o.Failed
	r.Retried += o.Retried
	r.Skipped += o.Skipped
	r.Dropped += o.Dropped
	r.Unstarted += o.Unstarted
	r.Unfinished += o.Unfinished
	// The segments' sessions at the interval's end add up; the sum of
	// their peaks bounds the whole load's peak from above (the segments'
	// peaks within one interval need not be at one instant).
	r.Connected += o.Connected
	r.ConnectedMax += o.ConnectedMax
	r.Busy += o.Busy
	r.Idle += o.Idle
}

// interval is s as a metrics.Interval for Dir.WriteInterval: the merged
// histograms per script and total, and the total's counts (a failure's
// class per interval is not in timeline.csv: they count as "other").
func (s *slot) interval(scripts int, tagNames []string) *metrics.Interval {
	iv := metrics.NewInterval(metrics.Layout{Scripts: scripts})
	iv.Start, iv.End = s.start, s.end
	for k, tag := range tagNames {
		h := &iv.Total
		if k < scripts {
			h = &iv.Scripts[k]
		}
		addHists(h, s.hists, tag)
	}
	st := &iv.Total.Stats
	st.Count = s.row.Committed
	st.Outcome[metrics.Committed] = s.row.Committed
	st.Outcome[metrics.FailedOther] = s.row.Failed
	st.Outcome[metrics.Skipped] = s.row.Skipped
	st.Outcome[metrics.Dropped] = s.row.Dropped
	st.Outcome[metrics.Unstarted] = s.row.Unstarted
	st.Outcome[metrics.Unfinished] = s.row.Unfinished
	st.Retried = s.row.Retried
	iv.Sessions = metrics.SessionCounts{Connected: s.row.Connected, ConnectedMax: s.row.ConnectedMax, Busy: s.row.Busy, Idle: s.row.Idle}
	return iv
}

// addHists merges the histograms of prefix's three kinds from hists into h.
func addHists(h *metrics.Hists, hists map[string]*hdrhistogram.Histogram, prefix string) {
	for _, k := range []struct {
		kind string
		dst  *hdrhistogram.Histogram
	}{{metrics.KindResp, h.Response}, {metrics.KindService, h.Service}, {metrics.KindLag, h.Lag}} {
		if src := hists[prefix+"/"+k.kind]; src != nil {
			k.dst.Merge(src)
		}
	}
}

// stats is a summary's counts and exact sums as metrics.Stats, so that the
// segments' add up and results.Summarize words the merge as a run's: the
// sums of committed latencies are n·mean and n·(sd² + mean²) (µs), exact
// up to the float64 rounding of the means in run.json.
func stats(s *results.ScriptSummary) metrics.Stats {
	var st metrics.Stats
	st.Count = s.Committed
	st.Outcome[metrics.Committed] = s.Committed
	st.Outcome[metrics.Skipped] = s.Skipped
	st.Outcome[metrics.Dropped] = s.Dropped
	st.Outcome[metrics.Unstarted] = s.Unstarted
	st.Outcome[metrics.Unfinished] = s.Unfinished
	for o := metrics.Outcome(0); o < metrics.NumOutcomes; o++ {
		if o.Failed() {
			st.Outcome[o] = s.FailedBy[o.String()]
		}
	}
	st.Retried, st.Retries, st.Late = s.Retried, s.Retries, s.Late
	sum := func(p *results.Percentiles) metrics.Summary {
		n := float64(s.Committed)
		m, sd := p.Mean*1000, p.Stddev*1000
		return metrics.Summary{N: s.Committed, Sum: n * m, Sum2: n * (sd*sd + m*m), Max: p.Max * 1000}
	}
	if s.Committed > 0 {
		st.Latency, st.Service, st.Lag = sum(&s.Response), sum(&s.Service), sum(&s.Lag)
	}
	return st
}

// mergeCommands adds a script's per-command figures (pooled means,
// the largest maximum, summed counts) to cs[script].
func mergeCommands(cs [][]metrics.CommandStats, script int, cmds []results.CommandSummary) [][]metrics.CommandStats {
	if len(cmds) == 0 {
		return cs
	}
	for len(cs) <= script {
		cs = append(cs, nil)
	}
	for _, c := range cmds {
		for len(cs[script]) <= c.Index {
			cs[script] = append(cs[script], metrics.CommandStats{})
		}
		o := metrics.CommandStats{Failures: c.Failures, Retries: c.Retries,
			Elapsed: metrics.Summary{N: c.Count, Sum: float64(c.Count) * c.MeanMs * 1000, Max: c.MaxMs * 1000}}
		cs[script][c.Index].Merge(&o)
	}
	return cs
}

// mergeTallies adds up the \tally counts: draws summed; the distinct
// values and the hottest values' counts cannot be merged from the
// segments' (the values are not recorded), so Distinct is the largest
// segment's (a lower bound, Capped) and TopCounts are left out.
func mergeTallies(segs []*segment, notes *[]string) []results.Tally {
	var out []results.Tally
	for _, s := range segs {
		for _, t := range s.run.Tallies {
			i := slices.IndexFunc(out, func(o results.Tally) bool { return o.Name == t.Name })
			if i < 0 {
				out = append(out, results.Tally{Name: t.Name, Capped: true})
				i = len(out) - 1
			}
			out[i].Draws += t.Draws
			out[i].Distinct = max(out[i].Distinct, t.Distinct)
		}
	}
	if len(out) > 0 {
		*notes = append(*notes, "\\tally: draws summed; distinct values are the largest segment's (a lower bound) and the hottest values' counts are not merged (the segments record counts, not which values)")
	}
	return out
}

// mergeEvents are the segments' events in time order on the common clock,
// each with Data "segment"; the server's events only from segment 0.
func mergeEvents(segs []*segment) []results.Event {
	var out []results.Event
	for _, s := range segs {
		i := s.run.Segment.Index
		for _, e := range s.events {
			if i > 0 && serverEvents[e.Kind] {
				continue
			}
			data := make(map[string]any, len(e.Data)+1)
			for k, v := range e.Data {
				data[k] = v
			}
			data["segment"] = i
			e.Data = data
			e.Time = e.Time.Add(s.shift)
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b results.Event) int { return a.Time.Compare(b.Time) })
	return out
}

// writeSlow writes slow.csv: every segment's rows on the common clock (its
// seconds from segment 0's zero; clients numbered in the whole load), in
// order of their ends.
func writeSlow(out string, segs []*segment) error {
	var rows []results.SlowRow
	found := false
	for _, s := range segs {
		rs, err := results.ReadSlow(s.dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		found = true
		zero0 := segs[0].run.BenchStart
		d := s.run.BenchStart.Add(s.shift).Sub(zero0).Seconds()
		for _, r := range rs {
			r.Time = r.Time.Add(s.shift)
			r.Elapsed = r.Time.Sub(zero0).Seconds()
			r.IntendedS += d
			r.StartS += d
			r.EndS += d
			r.Client += s.run.Segment.FirstClient
			rows = append(rows, r)
		}
	}
	if !found {
		return nil
	}
	slices.SortStableFunc(rows, func(a, b results.SlowRow) int { return cmp.Compare(a.EndS, b.EndS) })
	w, err := results.CreateSlow(out)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := w.Write(r.Record()); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// made are the files a merge makes itself rather than copies from
// segment 0 (and the reports, which `pgtrial report` makes again).
var made = map[string]bool{
	results.RunFile: true, results.LatencyFile: true, results.TimelineFile: true, results.EventsFile: true,
	results.SlowFile: true, "report.html": true, "report.md": true,
}

// copyFiles copies segment 0's other files (the collectors': waits.csv,
// statements.csv, server.csv, os.csv, activity.csv, plans.json, …), the
// other segments' os.csv into segments/NNN/, and every segment's
// transaction logs into txlog/ as segNNN.NAME.
func copyFiles(out string, segs []*segment, ms []results.MergedSegment) error {
	var errs []error
	entries, err := os.ReadDir(segs[0].dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || made[name] || strings.HasPrefix(name, ".") {
			continue
		}
		errs = append(errs, results.CopyFile(filepath.Join(segs[0].dir, name), filepath.Join(out, name)))
	}
	for i, s := range segs {
		idx := fmt.Sprintf("%03d", s.run.Segment.Index)
		if i > 0 {
			if fi, err := os.Lstat(filepath.Join(s.dir, results.OSFile)); err == nil && fi.Mode().IsRegular() {
				sub := filepath.Join("segments", idx)
				if err := results.MakeDirs("merged run directory", filepath.Join(out, sub)); err != nil {
					errs = append(errs, err)
				} else {
					errs = append(errs, results.CopyFile(filepath.Join(s.dir, results.OSFile), filepath.Join(out, sub, results.OSFile)))
					ms[i].OSFile = filepath.Join(sub, results.OSFile)
				}
			}
		}
		logs, err := os.ReadDir(filepath.Join(s.dir, "txlog"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := results.MakeDirs("merged run directory", filepath.Join(out, "txlog")); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, l := range logs {
			if l.Type().IsRegular() {
				errs = append(errs, results.CopyFile(filepath.Join(s.dir, "txlog", l.Name()), filepath.Join(out, "txlog", "seg"+idx+"."+l.Name())))
			}
		}
	}
	return errors.Join(errs...)
}

// sameDir reports whether a and b name one directory.
func sameDir(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
