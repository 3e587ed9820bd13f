package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// scriptNames are the workload's script names in run.json's order.
func (r *runReport) scriptNames() []string {
	var names []string
	for _, s := range r.run.Workload.Scripts {
		names = append(names, s.Name)
	}
	return names
}

// measuredHists is latency.hlog's intervals of the measured window merged
// by tag ("total/response", "tpcb-like/service", …), with the merged
// interval's span (that of the "total/response" intervals) and their count.
// A window that is not known (no phase at all) takes every interval. ok is
// false when the log could not be read or holds no such interval.
func (r *runReport) measuredHists() (hists map[string]*hdrhistogram.Histogram, from, to time.Time, n int, ok bool) {
	m := r.merged
	if m == nil {
		return nil, from, to, 0, false
	}
	return m.hists, m.from, m.to, m.n, m.n > 0
}

// merged is mergeHists' result, computed once (by read).
type merged struct {
	hists    map[string]*hdrhistogram.Histogram
	from, to time.Time
	n        int
}

// mergeHists reads latency.hlog: the tags the report shows, merged over the
// measured window (results.MergeLatency, the rule results.MeasuredResponse
// uses). A log that could not be read to its end gives the merges of what
// was read, and the error.
func (r *runReport) mergeHists() (*merged, error) {
	// The tags the report shows: the total's three kinds, and every kind of
	// the scripts only when run.json has no summary (merging costs).
	want := map[string]bool{}
	for _, k := range []string{metrics.KindResp, metrics.KindService, metrics.KindLag} {
		want[metrics.TagTotal+"/"+k] = true
	}
	names := r.scriptNames()
	for _, tag := range metrics.ScriptTags(names, len(names)) {
		want[tag+"/"+metrics.KindResp] = true
		if r.run.Summary == nil {
			want[tag+"/"+metrics.KindService] = true
			want[tag+"/"+metrics.KindLag] = true
		}
	}
	byTag, err := results.MergeLatency(r.dir, r.window(), func(tag string) bool { return want[tag] })
	if byTag == nil {
		return nil, err
	}
	m := &merged{hists: make(map[string]*hdrhistogram.Histogram, len(byTag))}
	for tag, mt := range byTag {
		m.hists[tag] = mt.Hist
	}
	if total := byTag[metrics.TagTotal+"/"+metrics.KindResp]; total != nil {
		m.from, m.to, m.n = total.From, total.To, total.Intervals
	}
	return m, err
}

// computedSummary is the summary of a run whose run.json has none (it
// crashed or was killed): the percentiles from latency.hlog's measured
// intervals, the counts of the total from timeline.csv's rows of the same
// window (failures by class are not in either file). nil when the log has no
// measured interval.
func (r *runReport) computedSummary() *results.Summary {
	hists, from, to, n, ok := r.measuredHists()
	if !ok {
		return nil
	}
	names := r.scriptNames()
	tags := metrics.ScriptTags(names, len(names))
	hist := func(tag, kind string) *hdrhistogram.Histogram {
		if h := hists[tag+"/"+kind]; h != nil {
			return h
		}
		return metrics.NewHistogram()
	}
	hs := func(tag string) metrics.Hists {
		h := metrics.Hists{Response: hist(tag, metrics.KindResp), Service: hist(tag, metrics.KindService), Lag: hist(tag, metrics.KindLag)}
		h.Stats.Count = h.Service.TotalCount()
		h.Stats.Outcome[metrics.Committed] = h.Stats.Count
		return h
	}
	iv := &metrics.Interval{Start: from, End: to, Total: hs(metrics.TagTotal)}
	for _, t := range tags {
		iv.Scripts = append(iv.Scripts, hs(t))
	}
	// The total's counts from timeline.csv (the rows whose interval lies in
	// the merged one).
	var committed, failed, skipped, dropped, retried int64
	rows := 0
	win := results.Window{From: from.Add(-time.Millisecond), To: to.Add(time.Millisecond)}
	for _, row := range r.timeline {
		if !win.Holds(row.Time, time.Duration(r.interval*float64(time.Second))) {
			continue
		}
		rows++
		committed += row.Committed
		failed += row.Failed
		skipped += row.Skipped
		dropped += row.Dropped
		retried += row.Retried
	}
	if rows > 0 {
		iv.Total.Stats.Count = committed
		iv.Total.Stats.Outcome[metrics.Committed] = committed
		iv.Total.Stats.Outcome[metrics.Skipped] = skipped
		iv.Total.Stats.Outcome[metrics.Dropped] = dropped
		iv.Total.Stats.Retried = retried
	}
	s := results.Summarize(iv, names, r.run.Model.Rate)
	s.Total.Failed = failed // by class: unknown (not in timeline.csv)
	clear(s.Total.FailedBy)
	if taken := committed + skipped + failed; taken > 0 {
		s.Total.FailedShare = float64(failed) / float64(taken)
		s.Total.SkippedShare = float64(skipped) / float64(taken)
		s.Total.RetriedShare = float64(retried) / float64(taken)
		s.AchievedRate = float64(committed+failed) / s.Duration
	}
	r.measuredIntervals = n
	r.summaryFromLog = true
	return &s
}

// view is the RunView of report.Run's blocks, from run.json alone.
func (r *runReport) view(s *results.Summary) *RunView {
	run := r.run
	v := &RunView{
		Workload:      r.workloadName(),
		Scale:         run.Workload.Scale,
		ServerVersion: run.Target.ServerVersion,
		LatencyLimit:  time.Duration(run.Model.LatencyLimitMs * float64(time.Millisecond)),
		Closed:        run.Model.Kind != results.ModelOpen,
		Summary:       s,
		Run:           run,
		Dir:           r.dir,
		Measured:      s != nil,
	}
	if !r.warmStart.IsZero() && r.measure.After(r.warmStart) {
		v.Warmup = r.measure.Sub(r.warmStart)
	}
	for _, sw := range run.Workload.Scripts {
		v.Scripts = append(v.Scripts, RunScript{Name: sw.Name, Weight: sw.Weight})
	}
	return v
}

// summary is the latency table of every script (when there are several)
// and of the total, as the terminal summary has them.
func (r *runReport) summary() []Block {
	s := r.run.Summary
	if s == nil {
		s = r.computedSummary()
	}
	if s == nil {
		why := r.fileReason("", results.LatencyFile)
		if why == "" {
			why = results.LatencyFile + " holds no interval of the measured window"
		}
		return []Block{&Table{Title: "summary", Head: []string{"latency ms", "p50", "p90", "p95", "p99", "p99.9", "max"},
			Rows: [][]Cell{{Text("response"), Absent(why), Absent(why), Absent(why), Absent(why), Absent(why), Absent(why)}}}}
	}
	v := r.view(s)
	var blocks []Block
	for i, ss := range summaries(s) {
		title := "summary, total"
		if ss != &s.Total {
			title = fmt.Sprintf("summary, script %d: %s (weight %d)", i+1, ss.Name, v.script(i).Weight)
		}
		t := v.latencyTable(title, ss)
		if r.summaryFromLog && ss != &s.Total {
			// Per script only the histograms are known: no counts.
			t.Notes = []string{"skipped, dropped, failed and retried per script: " + format.Missing + " (run.json has no summary; the interval files count them for the total only)"}
		}
		blocks = append(blocks, t)
	}
	blocks = append(blocks, ScenarioBlocks(r.run.Scenarios, r.run.Summary, v.LatencyLimit, "summary, ")...) // scenarios.go
	var lines []string
	if v.Closed {
		lines = append(lines, "closed model: achieved "+format.Rate(s.AchievedRate)+" tx/s; its latency understates what users see (a stall lowers the load instead of showing as latency).")
	} else {
		share := 0.0
		if s.TargetRate > 0 {
			share = s.AchievedRate / s.TargetRate
		}
		line := fmt.Sprintf("target %s tx/s, achieved %s tx/s (%s)", format.Rate(s.TargetRate), format.Rate(s.AchievedRate), format.Share(share))
		if s.TargetRate == 0 { // pgtrial analyze of a -R log: the rate is not in it
			line = "target rate unknown, achieved " + format.Rate(s.AchievedRate) + " tx/s"
		}
		lines = append(lines, line)
	}
	blocks = append(blocks, &Lines{Lines: lines, Attached: true})
	if r.summaryFromLog {
		note := fmt.Sprintf("summary computed from %s's %d measured intervals (run.json has none); failures by class are not in the interval files",
			results.LatencyFile, r.measuredIntervals)
		if len(r.failureClasses) > 0 {
			note += " (events name the classes seen: " + strings.Join(r.failureClasses, ", ") + ")"
		}
		blocks = append(blocks, &Notes{Prefix: "note: ", Lines: []string{note}})
	}
	blocks = append(blocks, YCSBBlocks(r.run)...) // ycsb.go
	return blocks
}
