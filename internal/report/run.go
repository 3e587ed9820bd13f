package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// RunView is what the summary of `pgtrial run` shows: the run's results and
// the few facts of its command line the results do not hold. The cli fills
// it; nothing in it is the cli's.
type RunView struct {
	Workload      string // "select-only", "s.sql", "tpcb-like+select-only"
	Scale         int    // pgbench's scale of a built-in workload; 0: not shown
	Server        string // "host:port/database" or "socket /dir:port/database"
	ServerVersion string // "15.8"; "" when unknown
	Model         string // the load model in one line ("closed model, 4 clients, …")
	Warmup        time.Duration
	LatencyLimit  time.Duration // 0: none (no "late" counts)
	Closed        bool          // the closed model: no schedule, no lag
	Scripts       []RunScript   // in the order of Summary.Scripts
	Summary       *results.Summary
	// Run is run.json: interruption, evidence, collectors, checks and
	// warnings. It may be nil (nothing of it is shown then).
	Run      *results.Run
	Dir      string // the run directory
	Measured bool   // false: the run ended during the warm-up
}

// RunScript is one script of the run as the summary names it.
type RunScript struct {
	Name     string
	Weight   int
	Commands []string // each command's first line, by index (for -r's table)
}

// summaries are the latency summaries a run shows: each script's when
// there are several, then the total.
func summaries(s *results.Summary) []*results.ScriptSummary {
	var out []*results.ScriptSummary
	if len(s.Scripts) > 1 {
		for i := range s.Scripts {
			out = append(out, &s.Scripts[i])
		}
	}
	return append(out, &s.Total)
}

// runChecklistTitle heads the checklist of a run.
const runChecklistTitle = "checklist (DESIGN §8: what this run can and cannot show)"

// Run is the summary of one run: what ran, the latency of every script and
// of the total, what the model can and cannot show, the evidence of the
// measured window, the checklist, the warnings and the run directory.
func Run(v *RunView) *Doc {
	s := v.Summary
	if s == nil {
		s = &results.Summary{}
	}
	run := v.Run
	if run == nil {
		run = &results.Run{}
	}
	d := &Doc{Title: "workload:  " + v.workloadLine()}
	head := &Lines{Attached: true, Lines: []string{"model:     " + v.Model, "measured:  " + v.measuredLine(s, run)}}
	if !v.Measured {
		head.Lines = append(head.Lines, "nothing was measured: the run ended during the warm-up")
	}
	d.Add(head)

	// One block per script when there are several, then the total.
	blocks := summaries(s)
	for i, ss := range blocks {
		title := "total"
		if len(blocks) > 1 && i < len(blocks)-1 {
			title = fmt.Sprintf("script %d: %s (weight %d)", i+1, ss.Name, v.script(i).Weight)
		}
		d.Add(v.latencyTable(title, ss))
		if len(ss.Commands) > 0 && i < len(v.Scripts) {
			d.Add(commandTable(ss.Commands, v.Scripts[i].Commands))
		}
	}
	if len(s.Scripts) == 1 && len(s.Scripts[0].Commands) > 0 {
		d.Add(commandTable(s.Scripts[0].Commands, v.script(0).Commands))
	}
	d.Add(ScenarioBlocks(run.Scenarios, v.Summary, v.LatencyLimit, "")...) // scenarios.go

	if v.Closed {
		d.Add(&Lines{Lines: []string{
			"closed model: achieved " + format.Rate(s.AchievedRate) + " tx/s. Its latency percentiles understate what users see: each client",
			"waits for its previous transaction, so the mean is clients/tps (Little's law) and a stall lowers the",
			"load instead of showing as latency. Measure user-facing latency with --rate N.",
		}})
	} else {
		share := 0.0 // achieved / target
		if s.TargetRate > 0 {
			share = s.AchievedRate / s.TargetRate
		}
		line := fmt.Sprintf("target %s tx/s, achieved %s tx/s (%s)",
			format.Rate(s.TargetRate), format.Rate(s.AchievedRate), format.Share(share))
		if s.TargetRate == 0 { // pgtrial analyze of a -R log: the rate is not in it
			line = "target rate unknown, achieved " + format.Rate(s.AchievedRate) + " tx/s"
		}
		d.Add(&Lines{Lines: []string{line}})
	}
	d.Add(TPCCBlocks(run.TPCC)...)      // tpcc.go
	d.Add(YCSBBlocks(run)...)           // ycsb.go
	d.Add(LogSourceBlocks(run.Logs)...) // logsource.go: pgtrial analyze's
	d.Add(SegmentBlocks(run)...)        // segments.go: --segment's, pgtrial merge's
	d.Add(EvidenceBlocks(run.Evidence, run.Collectors)...)
	d.Add(RunFindingsBlocks(run.Findings)...)
	if len(run.Checks) > 0 {
		d.Add(&Checklist{Title: runChecklistTitle, Items: run.Checks})
	}
	if len(run.Warnings) > 0 {
		d.Add(&Notes{Prefix: "warning: ", Lines: run.Warnings})
	}
	return d.Add(&Lines{Lines: []string{"run directory: " + v.Dir}, Attached: true})
}

// workloadLine is "select-only (scale 10) on h:5432/db, PostgreSQL 15.8".
func (v *RunView) workloadLine() string {
	var b strings.Builder
	b.WriteString(v.Workload)
	if v.Scale > 0 {
		fmt.Fprintf(&b, " (scale %d)", v.Scale)
	}
	if v.Server != "" {
		b.WriteString(" on " + v.Server)
	}
	if v.ServerVersion != "" {
		b.WriteString(", PostgreSQL " + v.ServerVersion)
	}
	return b.String()
}

// measuredLine is "60 s (after 10 s of warm-up, excluded)", and how the run
// ended when it did not end as planned.
func (v *RunView) measuredLine(s *results.Summary, run *results.Run) string {
	line := format.Seconds(s.Duration)
	if v.Warmup > 0 {
		line += " (after " + format.Duration(v.Warmup) + " of warm-up, excluded)"
	}
	switch {
	case run.Interrupted:
		line += "; INTERRUPTED by " + run.InterruptReason
	case run.Aborted:
		line += "; CLIENTS ABORTED: results incomplete"
	}
	return line
}

// script is the i-th script, or an empty one.
func (v *RunView) script(i int) RunScript {
	if i < len(v.Scripts) {
		return v.Scripts[i]
	}
	return RunScript{}
}

// latencyTable is one script's (or the total's) block: committed and tps in
// the title, the latency percentiles in ms, and under them what the
// percentiles leave out (skipped, dropped, failed, late) and the retries.
func (v *RunView) latencyTable(title string, ss *results.ScriptSummary) *Table {
	t := &Table{
		Title: fmt.Sprintf("%s: %d committed, %s tps", title, ss.Committed, format.Rate(ss.TPS)),
		Head:  []string{"latency ms", "p50", "p90", "p95", "p99", "p99.9", "max"},
	}
	row := func(name string, pc results.Percentiles) {
		t.AddRow(name, format.MsFixed(pc.P50), format.MsFixed(pc.P90), format.MsFixed(pc.P95),
			format.MsFixed(pc.P99), format.MsFixed(pc.P999), format.MsFixed(pc.Max))
	}
	row("response", ss.Response)
	row("service", ss.Service)
	if !v.Closed {
		row("lag", ss.Lag)
	}
	counts := fmt.Sprintf("skipped %d (%s), dropped %d (%s), failed %d (%s)%s, retried %d (%s)",
		ss.Skipped, format.Share(ss.SkippedShare), ss.Dropped, format.Share(ss.DroppedShare),
		ss.Failed, format.Share(ss.FailedShare), failedBy(ss.FailedBy), ss.Retried, format.Share(ss.RetriedShare))
	if v.LatencyLimit > 0 {
		counts += fmt.Sprintf(", late (> %s) %d (%s)", format.Duration(v.LatencyLimit), ss.Late, format.Share(ss.LateShare))
	}
	t.Notes = []string{counts}
	if cut := cutLine(ss); cut != "" {
		t.Notes = append(t.Notes, cut)
	}
	rows := []*results.Percentiles{&ss.Response, &ss.Service}
	if !v.Closed {
		rows = append(rows, &ss.Lag)
	}
	if few := fewLine(rows); few != "" {
		t.Notes = append(t.Notes, few)
	}
	return t
}

// fewBeyond is the number of transactions beyond a quantile under which the
// summary says that the quantile rests on them: n·(1 − q) < 20.
const fewBeyond = 20

// fewLine is the note of a latency table whose printed quantiles rest on
// fewer than fewBeyond transactions beyond them, "" when none does: "p99.9
// rests on 4 transactions beyond it (n = 4,210); the max is a single
// transaction". The count is the smallest Count of the rows shown (the
// service row lacks the unstarted); a row without a Count (a run.json
// older than it) is skipped. The max, which always rests on itself, is named
// only with the others.
func fewLine(rows []*results.Percentiles) string {
	var pc *results.Percentiles
	for _, r := range rows {
		if r.Count > 0 && (pc == nil || r.Count < pc.Count) {
			pc = r
		}
	}
	if pc == nil {
		return ""
	}
	var parts []string
	for _, nq := range metrics.Quantiles() {
		b := pc.Beyond(nq.Q)
		if b >= fewBeyond {
			continue
		}
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%s rests on %d %s beyond it", nq.Name, b, format.Plural(int(b), "transaction", "transactions")))
		} else {
			parts = append(parts, fmt.Sprintf("%s on %d", nq.Name, b))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " (n = " + format.Count(pc.Count) + "); the max is a single transaction"
}

// cutLine is what the window's end cut, "" when nothing: "at the end of
// the window: 812 unstarted, 4 unfinished (in the percentiles with their
// lower bound, end − intended start)".
func cutLine(ss *results.ScriptSummary) string {
	if ss.Unstarted == 0 && ss.Unfinished == 0 {
		return ""
	}
	return fmt.Sprintf("at the end of the window: %d unstarted, %d unfinished (in the percentiles with their lower bound, end − intended start)",
		ss.Unstarted, ss.Unfinished)
}

// commandTable is -r's table: every command's executions, mean and maximum
// elapsed time, failures and retries, and its first line (texts, by the
// command's index).
func commandTable(cs []results.CommandSummary, texts []string) *Table {
	t := &Table{Attached: true, Head: []string{"per command", "count", "mean ms", "max ms", "failures", "retries", "command"}}
	for _, c := range cs {
		text := ""
		if c.Index >= 0 && c.Index < len(texts) {
			text = texts[c.Index]
		}
		t.AddRow(strconv.Itoa(c.Index), strconv.FormatInt(c.Count, 10), format.MsFixed(c.MeanMs), format.MsFixed(c.MaxMs),
			strconv.FormatInt(c.Failures, 10), strconv.FormatInt(c.Retries, 10), text)
	}
	return t
}

// failedBy is " [serialization 3, deadlock 1]": the failure classes with a
// non-zero count, in the order of metrics' outcomes; "" when none.
func failedBy(m map[string]int64) string {
	var parts []string
	for o := metrics.Outcome(0); o < metrics.NumOutcomes; o++ {
		if !o.Failed() {
			continue
		}
		if n := m[o.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, ", ") + "]"
}
