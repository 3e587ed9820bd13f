package report

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// RunReport is the report of one run, made from its run directory alone
// (DESIGN: the run directory is the only contract): the header (the question
// in one line, target, settings that matter, data against memory, command
// line, tool, times), the summary table, the timeline with its linked
// panels and markers, the percentile spectrum, the statements, the
// evidence and the checklist. A run that was interrupted or crashed gives
// the report of what the directory holds, saying so at the top.
//
// Only a directory that is not a run directory (results.Load fails) is an
// error; a file that is missing or unreadable makes its part "—" with the
// reason.
func RunReport(dir string) (*Doc, error) { return RunReportWith(dir, nil) }

// RunReportWith is RunReport with the findings computed again with cfg
// (`pgtrial report --explain`); nil shows run.json's.
func RunReportWith(dir string, cfg *explain.Config) (*Doc, error) {
	run, err := results.Load(dir)
	if err != nil {
		return nil, err
	}
	r := &runReport{dir: dir, run: run, explain: cfg}
	r.read()
	d := &Doc{Title: "pgtrial run report: " + r.workloadName()}
	d.Add(r.status()...)
	d.Add(r.header()...)
	d.Add(r.summary()...)
	d.Add(TPCCBlocks(run.TPCC)...) // tpcc.go
	d.Add(SegmentBlocks(run)...)   // segments.go
	d.Add(r.timelineFigure())
	d.Add(r.spectrumFigure())
	d.Add(r.statementBlocks()...)
	d.Add(r.planBlocks()...) // runreport_plans.go
	d.Add(r.evidenceBlocks()...)
	d.Add(RunFindingsBlocks(r.findings())...)
	d.Add(r.checklist()...)
	if len(run.Warnings) > 0 {
		d.Add(&Notes{Prefix: "warning: ", Lines: redactAll(run.Warnings)})
	}
	return d.Add(&Lines{Lines: []string{"run directory: " + dir}}), nil
}

// runReport is one run directory read for its report. Every file is read
// once; a file that cannot be read keeps its error, which its part shows.
type runReport struct {
	dir     string
	run     *results.Run
	explain *explain.Config // settings to compute the findings again with; nil: run.json's

	timeline   []results.TimelineRow
	events     []results.Event
	waits      []results.WaitRow
	server     []results.ServerRow
	osRows     []results.OSRow
	statements []results.StatementRow
	errs       map[string]error // file name → why it could not be read

	zero                    time.Time // the run's clock zero: X = 0 of every chart
	warmStart, measure, end time.Time // phases (zero when unknown)
	interval                float64   // the timeline's interval, s (median gap)
	summaryFromLog          bool      // run.json had no summary: computed from latency.hlog
	measuredIntervals       int       // intervals of latency.hlog in the measured window
	unfinished              bool      // no EndedAt or no Summary: crashed or killed
	failureClasses          []string  // classes of the first-error events
	merged                  *merged   // latency.hlog's measured intervals merged by tag (mergeHists)
}

// read reads every file of the directory and places the run on its clock.
func (r *runReport) read() {
	r.errs = map[string]error{}
	keep := func(name string, err error) {
		if err != nil {
			r.errs[name] = err
		}
	}
	var err error
	r.timeline, err = results.ReadTimeline(r.dir)
	keep(results.TimelineFile, err)
	r.events, err = results.ReadEvents(r.dir)
	keep(results.EventsFile, err)
	slices.SortStableFunc(r.events, func(a, b results.Event) int { return a.Time.Compare(b.Time) })
	r.waits, err = results.ReadWaits(r.dir)
	keep(results.WaitsFile, err)
	r.server, err = results.ReadServer(r.dir)
	keep(results.ServerFile, err)
	r.osRows, err = results.ReadOS(r.dir)
	keep(results.OSFile, err)
	r.statements, err = results.ReadStatements(r.dir)
	keep(results.StatementsFile, err)

	run := r.run
	r.unfinished = run.EndedAt.IsZero() || run.Summary == nil
	r.zero = run.BenchStart
	for _, p := range run.Phases {
		switch p.Name {
		case results.PhaseWarmup:
			r.warmStart = p.Start
		case results.PhaseMeasure:
			r.measure, r.end = p.Start, p.End
		}
	}
	for _, e := range r.events {
		if e.Kind != results.EventPhase {
			continue
		}
		if r.zero.IsZero() {
			r.zero = e.Time // the first phase event starts the clock
		}
		switch {
		case e.Phase == results.PhaseWarmup && r.warmStart.IsZero():
			r.warmStart = e.Time
		case e.Phase == results.PhaseMeasure && r.measure.IsZero():
			r.measure = e.Time
		}
	}
	if n := len(r.timeline); n > 0 {
		last := r.timeline[n-1]
		if r.zero.IsZero() {
			r.zero = last.Time.Add(-time.Duration(last.Elapsed * float64(time.Second)))
		}
		if r.end.IsZero() && !r.measure.IsZero() {
			r.end = last.Time
		}
		gaps := make([]float64, 0, n)
		for i := 1; i < n; i++ {
			gaps = append(gaps, r.timeline[i].Elapsed-r.timeline[i-1].Elapsed)
		}
		if len(gaps) > 0 {
			slices.Sort(gaps)
			r.interval = gaps[len(gaps)/2]
		}
	}
	if r.zero.IsZero() {
		r.zero = run.StartedAt
	}
	if r.interval <= 0 {
		r.interval = 1
	}
	for _, e := range r.events {
		if e.Kind == results.EventError {
			if c, _ := e.Data["class"].(string); c != "" && !slices.Contains(r.failureClasses, c) {
				r.failureClasses = append(r.failureClasses, c)
			}
		}
	}
	// latency.hlog last: its window is the one placed above.
	r.merged, err = r.mergeHists()
	keep(results.LatencyFile, err)
}

// x is t in seconds since the run's clock zero.
func (r *runReport) x(t time.Time) float64 { return t.Sub(r.zero).Seconds() }

// lastX is the elapsed seconds of the last interval of timeline.csv; ok is
// false when it has none.
func (r *runReport) lastX() (float64, bool) {
	if len(r.timeline) == 0 {
		return 0, false
	}
	return r.timeline[len(r.timeline)-1].Elapsed, true
}

// window is the measured window (From, To] (zero when unknown).
func (r *runReport) window() results.Window {
	if r.measure.IsZero() || !r.end.After(r.measure) {
		return results.Window{}
	}
	return results.Window{From: r.measure, To: r.end}
}

func (r *runReport) workloadName() string {
	if w := r.run.Workload.Name; w != "" {
		return w
	}
	var names []string
	for _, s := range r.run.Workload.Scripts {
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return "(workload not recorded)"
	}
	return strings.Join(names, "+")
}

// fileReason is why a file's part is missing: the collector's reason in
// run.json's evidence (group), else the read error, else "" (it was read).
func (r *runReport) fileReason(group, file string) string {
	if reason, ok := r.run.Evidence.MissingReason(group); ok {
		return redact(reason)
	}
	if err, ok := r.errs[file]; ok {
		if errors.Is(err, fs.ErrNotExist) {
			if group != "" {
				return file + " is not in the run directory (its collector did not run)"
			}
			return file + " is not in the run directory"
		}
		return redact(err.Error())
	}
	return ""
}

// status is the Notes at the top: how the run ended when it did not end as
// planned.
func (r *runReport) status() []Block {
	run := r.run
	var lines []string
	last, hasLast := r.lastX()
	at := "no interval"
	if hasLast {
		at = "its last interval at " + format.Seconds(last)
	}
	switch {
	case r.unfinished:
		lines = append(lines, "the run did not finish (crashed or killed?): this report shows what the directory holds, up to "+at)
	case run.Interrupted:
		line := "the run was interrupted"
		if run.InterruptReason != "" {
			line += " by " + redact(run.InterruptReason)
		}
		if hasLast {
			line += " at " + format.Seconds(last)
		}
		if run.Model.DurationS > 0 && run.Summary != nil {
			line += fmt.Sprintf(": %s of the planned %s were measured", format.Seconds(run.Summary.Duration), format.Seconds(run.Model.DurationS))
		}
		lines = append(lines, line)
	}
	if run.Aborted {
		line := "clients aborted: the results are incomplete"
		for _, e := range r.events {
			if e.Kind == results.EventAbort && e.Message != "" {
				line += " (" + redact(e.Message) + ")"
				break
			}
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil
	}
	return []Block{&Notes{Prefix: "note: ", Lines: lines}}
}

// question is the run's question in one line: "What latency does
// tpcb-like (scale 10) see at 200 tx/s (open model, poisson arrivals,
// queue, 8 clients) for 60 s?"
func (r *runReport) question() string {
	run := r.run
	m := run.Model
	w := r.workloadName()
	if run.Workload.Scale > 0 {
		w += fmt.Sprintf(" (scale %d)", run.Workload.Scale)
	}
	var dur string
	switch {
	case m.DurationS > 0:
		dur = " for " + format.Seconds(m.DurationS)
	case m.Transactions > 0:
		dur = fmt.Sprintf(" for %d transactions per client", m.Transactions)
	}
	if len(run.Scenarios) > 0 {
		return scenariosQuestion(run.Scenarios, dur)
	}
	if m.Kind == results.ModelOpen {
		var parts []string
		parts = append(parts, "open model")
		if m.Arrival != "" {
			parts = append(parts, m.Arrival+" arrivals")
		}
		if m.Overload != "" {
			parts = append(parts, m.Overload+" on overload")
		}
		parts = append(parts, fmt.Sprintf("%d %s", m.Clients, format.Plural(m.Clients, "client", "clients")))
		if m.LatencyLimitMs > 0 {
			parts = append(parts, "latency limit "+format.Ms(m.LatencyLimitMs)+" ms")
		}
		rate := "at " + format.Rate(m.Rate) + " tx/s"
		if m.Rate == 0 { // pgtrial analyze of a -R log: the rate is not in it
			rate = "at a rate not recorded"
		}
		return fmt.Sprintf("What latency does %s see %s (%s)%s?", w, rate, strings.Join(parts, ", "), dur)
	}
	return fmt.Sprintf("What throughput and latency does %s get from %d %s (closed model: each waits for its last transaction)%s?",
		w, m.Clients, format.Plural(m.Clients, "client", "clients"), dur)
}

// scenariosQuestion is a run of concurrent scenarios' question, each with
// its own model (run.json's run-wide model says closed as soon as one is):
// "What do 2 concurrent scenarios see: reader at 300 tx/s (open model, 1
// client), writer from 2 clients (closed model), for 10 s?"
func scenariosQuestion(scs []results.Scenario, dur string) string {
	parts := make([]string, len(scs))
	for i, sc := range scs {
		clients := fmt.Sprintf("%d %s", sc.Clients, format.Plural(sc.Clients, "client", "clients"))
		if sc.Kind == results.ModelOpen {
			parts[i] = fmt.Sprintf("%s at %s tx/s (open model, %s)", sc.Name, format.Rate(sc.Rate), clients)
		} else {
			parts[i] = fmt.Sprintf("%s from %s (closed model)", sc.Name, clients)
		}
	}
	if dur != "" {
		dur = "," + dur
	}
	return fmt.Sprintf("What do %d concurrent scenarios see: %s%s?", len(scs), strings.Join(parts, ", "), dur)
}

// keySettings are the settings the header shows, in this order.
var keySettings = []string{
	"shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem",
	"checkpoint_timeout", "max_wal_size", "min_wal_size", "checkpoint_completion_target",
	"synchronous_commit", "fsync", "full_page_writes", "wal_compression", "wal_level", "wal_buffers",
	"max_connections", "huge_pages", "autovacuum", "jit",
}

// settings merges run.json's settings: the target's, overridden by the
// server collector's (which has every non-default one).
func (r *runReport) settings() map[string]string {
	out := maps.Clone(r.run.Target.Settings)
	if out == nil {
		out = map[string]string{}
	}
	if s := r.run.Server; s != nil {
		maps.Copy(out, s.Settings)
	}
	return out
}

// header is the question, the target, the data against memory, the
// command line, the tool and the times, then the settings that matter.
func (r *runReport) header() []Block {
	run := r.run
	lines := []string{"question:  " + r.question()}
	t := run.Target
	target := t.Host
	if t.Port > 0 {
		target += ":" + strconv.Itoa(t.Port)
	}
	if t.Database != "" {
		target += "/" + t.Database
	}
	if t.User != "" {
		target += " as " + t.User
	}
	version := t.ServerVersion
	if s := run.Server; s != nil && s.Version != "" {
		version = s.Version
	}
	if version != "" {
		if !strings.HasPrefix(version, "PostgreSQL") {
			version = "PostgreSQL " + version
		}
		target += ", " + version
	}
	lines = append(lines, "target:    "+cmp.Or(target, format.Missing+" (not recorded)"))
	lines = append(lines, "data:      "+r.dataLine())
	if run.Host != nil {
		h := run.Host
		host := fmt.Sprintf("%d CPUs, %s RAM", h.CPUs, format.Bytes(h.MemoryBytes))
		if h.Hostname != "" {
			host = h.Hostname + ": " + host
		}
		if h.Kernel != "" {
			host += ", Linux " + h.Kernel
		}
		if !h.Local {
			host += " (remote, as its node_exporter reports)"
		}
		lines = append(lines, "host:      "+host)
	}
	cmdLine := format.Missing + " (not recorded)"
	if len(run.CommandLine) > 0 {
		cmdLine = shellJoin(results.RedactArgs(run.CommandLine))
	}
	lines = append(lines, "command:   "+cmdLine)
	tool := cmp.Or(run.Tool.Name, "pgtrial")
	if run.Tool.Version != "" {
		tool += " " + run.Tool.Version
	}
	var extra []string
	for _, s := range []string{run.Tool.Commit, run.Tool.Go} {
		if s != "" {
			extra = append(extra, s)
		}
	}
	if len(extra) > 0 {
		tool += " (" + strings.Join(extra, ", ") + ")"
	}
	lines = append(lines, "tool:      "+tool)
	lines = append(lines, "times:     "+r.timesLine())

	tab := &Table{Title: "settings that matter", Head: []string{"setting", "value"}}
	set := r.settings()
	for _, name := range keySettings {
		if v, ok := set[name]; ok {
			tab.Rows = append(tab.Rows, []Cell{Text(name), Text(v)})
		} else if run.Server != nil {
			tab.Rows = append(tab.Rows, []Cell{Text(name), Absent("not in run.json's settings")})
		}
	}
	if run.Server == nil {
		tab.Notes = append(tab.Notes, "the other settings: "+format.Missing+" (run.json has only the target's: the server collector's record is not there)")
	}
	blocks := []Block{&Lines{Lines: lines}}
	if len(set) == 0 {
		return append(blocks, &Lines{Lines: []string{"settings: " + format.Missing + " (run.json records none: the server collector did not run)"}})
	}
	return append(blocks, tab)
}

// timesLine is "started 2026-01-02 03:04:05 UTC, measured 03:04:11–03:05:11
// (60 s after 5 s of warm-up), ended 03:05:11".
func (r *runReport) timesLine() string {
	run := r.run
	const day, clock = "2006-01-02 15:04:05 MST", "15:04:05"
	s := "started " + run.StartedAt.UTC().Format(day)
	if w := r.window(); w.Known() {
		s += fmt.Sprintf(", measured %s–%s (%s", w.From.UTC().Format(clock), w.To.UTC().Format(clock), format.Seconds(w.To.Sub(w.From).Seconds()))
		if !r.warmStart.IsZero() && r.measure.After(r.warmStart) {
			s += " after " + format.Seconds(r.measure.Sub(r.warmStart).Seconds()) + " of warm-up"
		}
		s += ")"
	}
	if run.EndedAt.IsZero() {
		return s + ", end " + format.Missing + " (not recorded: the run did not finish)"
	}
	return s + ", ended " + run.EndedAt.UTC().Format(clock)
}

// dataLine is the data's size against shared_buffers and RAM: "database 160
// MiB (pgbench_accounts 150 MiB, …): 1.25× shared_buffers (128 MiB), 2 % of
// RAM (8 GiB)".
func (r *runReport) dataLine() string {
	s := r.run.Server
	if s == nil || (s.DatabaseBytes == 0 && len(s.Tables) == 0) {
		return format.Missing + " (run.json has no table sizes: the server collector did not run)"
	}
	size := s.DatabaseBytes
	var tables int64
	var parts []string
	for i, t := range s.Tables {
		tables += t.TotalBytes
		if i < 3 {
			parts = append(parts, t.Name+" "+format.Bytes(t.TotalBytes))
		}
	}
	if len(s.Tables) > 3 {
		parts = append(parts, fmt.Sprintf("%d more", len(s.Tables)-3))
	}
	line := "database " + format.Bytes(size)
	if size == 0 {
		size = tables
		line = "tables " + format.Bytes(size)
	}
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	var vs []string
	if sb, ok := settingBytes(r.settings()["shared_buffers"]); ok && sb > 0 {
		vs = append(vs, fmt.Sprintf("%s× shared_buffers (%s)", format.Sig3(float64(size)/float64(sb)), format.Bytes(sb)))
	} else {
		vs = append(vs, "shared_buffers "+format.Missing+" (not recorded)")
	}
	if h := r.run.Host; h != nil && h.MemoryBytes > 0 {
		vs = append(vs, fmt.Sprintf("%s of RAM (%s)", format.Pct(float64(size)/float64(h.MemoryBytes)), format.Bytes(h.MemoryBytes)))
	} else {
		vs = append(vs, "RAM "+format.Missing+" (not known)")
	}
	return line + ": " + strings.Join(vs, ", ")
}

// settingBytes reads a memory setting as SHOW prints it ("128MB", "4GB",
// "512kB", "8192" in 8 kB blocks for shared_buffers) in bytes.
func settingBytes(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}
	mult := int64(8192) // a bare number counts blocks
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(v), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n * mult, true
}

// shellJoin joins args for a shell, quoting those that need it.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`&|;<>()*?[]#~") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// redact removes passwords from a string that may hold a connection string
// (a message, a reason).
func redact(s string) string { return results.RedactArgs([]string{s})[0] }

func redactAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = redact(s)
	}
	return out
}

// findings are run.json's findings, or, for a run written before they
// were (or whose end did not get to them), computed now from the
// directory with the default settings.
func (r *runReport) findings() *results.Findings {
	if r.explain != nil {
		return explain.Run(r.dir, r.run, *r.explain)
	}
	if r.run.Findings != nil {
		return r.run.Findings
	}
	return explain.Run(r.dir, r.run, explain.Defaults())
}
