package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// writeRun writes a synthetic run directory and returns its path.
func writeRun(t testing.TB, o resultstest.Options) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := resultstest.WriteRun(dir, o); err != nil {
		t.Fatal(err)
	}
	return dir
}

func makeReport(t testing.TB, dir string) *Doc {
	t.Helper()
	d, err := RunReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// docStrings is every string of d a writer may print: titles, lines,
// cells and their reasons, notes, checklist items, and the charts' titles,
// notes, axis labels, series names and marker and span labels.
func docStrings(d *Doc) []string {
	out := []string{d.Title}
	for _, b := range d.Blocks {
		switch b := b.(type) {
		case *Lines:
			out = append(out, b.Title)
			out = append(out, b.Lines...)
		case *Table:
			out = append(out, b.Title)
			out = append(out, b.Head...)
			out = append(out, b.Notes...)
			for _, row := range b.Rows {
				for _, c := range row {
					out = append(out, c.Text, c.Why, c.Link)
				}
			}
		case *Checklist:
			out = append(out, b.Title)
			for _, c := range b.Items {
				out = append(out, c.Name, c.Status, c.Message, checkValue(c.Value))
			}
		case *Notes:
			out = append(out, b.Prefix)
			out = append(out, b.Lines...)
		case *Figure:
			out = append(out, b.Title)
			out = append(out, b.Notes...)
			for _, c := range b.Charts {
				out = append(out, c.ID, c.Title, c.Note, c.X.Label, c.Y.Label)
				for _, s := range c.Series {
					out = append(out, s.Name)
				}
				for _, m := range c.Markers {
					out = append(out, m.Label)
				}
				for _, s := range c.Spans {
					out = append(out, s.Label)
				}
			}
		}
	}
	return out
}

func allText(d *Doc) string { return strings.Join(docStrings(d), "\n") }

func figure(t *testing.T, d *Doc, prefix string) *Figure {
	t.Helper()
	for _, b := range d.Blocks {
		if f, ok := b.(*Figure); ok && strings.HasPrefix(f.Title, prefix) {
			return f
		}
	}
	t.Fatalf("no figure %q", prefix)
	return nil
}

func table(t *testing.T, d *Doc, prefix string) *Table {
	t.Helper()
	for _, b := range d.Blocks {
		if tb, ok := b.(*Table); ok && strings.HasPrefix(tb.Title, prefix) {
			return tb
		}
	}
	t.Fatalf("no table %q", prefix)
	return nil
}

func figureIDs(f *Figure) []string {
	var ids []string
	for _, c := range f.Charts {
		ids = append(ids, c.ID)
	}
	return ids
}

// hasData says whether a series has a finite value.
func hasData(s chart.Series) bool {
	return slices.ContainsFunc(s.Y, func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) })
}

// The report of a complete run: header, summary per script and total,
// every timeline panel with data and every kind of marker on each, the
// spectrum, the statements sorted, the evidence and the checklist with its
// values; the XSS string as a statement's text and a table's name arrives
// as it was; the password never.
func TestRunReportComplete(t *testing.T) {
	query := "SELECT '" + resultstest.XSS + "' FROM t WHERE x = $1"
	table0 := "tbl" + resultstest.XSS
	dir := writeRun(t, resultstest.Options{Scripts: 3, Duration: 60 * time.Second, Seed: 7, Query: query, Table: table0})
	d := makeReport(t, dir)
	all := allText(d)

	if strings.Contains(all, resultstest.Password) {
		t.Errorf("the password reaches the report:\n%s", all)
	}
	wantAll(t, "report", all,
		"What latency does mix (scale 10) see at 200.0 tx/s (open model, poisson arrivals, queue on overload, 8 clients) for 60 s?",
		"db:5432/bench as bench, PostgreSQL 17.2 on x86_64-pc-linux-gnu",
		"database 160 MiB (pgbench_accounts 150 MiB, "+table0+" 40 KiB): 1.25× shared_buffers (128 MiB), 2.0 % of RAM (8 GiB)",
		"command:   pgtrial run --url 'host=db user=bench dbname=bench' --rate 200 -T 60",
		"tool:      pgtrial 0.9.0 (abc1234, go1.26.0)",
		"measured 03:04:11–03:05:11 (60 s after 5 s of warm-up)",
		"summary, script 1: tpcb-like (weight 1)", "summary, script 3: simple-update", "summary, total",
		"target 200.0 tx/s, achieved",
		"injected lock on "+table0+", 5 s",
		"autovacuum and autoanalyze of "+table0,
		"coordinated omission",
		"0.012", "97.5 %",
	)
	if strings.Contains(all, "did not finish") || strings.Contains(all, "interrupted") {
		t.Errorf("a complete run is said not to have finished:\n%s", all)
	}
	set := table(t, d, "settings")
	for _, name := range []string{"shared_buffers", "checkpoint_timeout", "max_wal_size", "synchronous_commit", "work_mem", "fsync", "full_page_writes", "wal_compression"} {
		if !slices.ContainsFunc(set.Rows, func(r []Cell) bool { return r[0].Text == name && r[1].Text != "—" }) {
			t.Errorf("settings lack %s: %v", name, set.Rows)
		}
	}

	// Timeline: five linked panels, each with data and every marker kind.
	tl := figure(t, d, "timeline")
	if ids := figureIDs(tl); !slices.Equal(ids, []string{"timeline-tps", "timeline-waits", "timeline-wal", "timeline-cpu", "timeline-disk"}) {
		t.Fatalf("timeline panels %v; notes %v", ids, tl.Notes)
	}
	for _, c := range tl.Charts {
		if c.Kind != chart.Time || c.Group != "timeline" || len(c.Series) == 0 {
			t.Errorf("%s: kind %q group %q, %d series", c.ID, c.Kind, c.Group, len(c.Series))
		}
		for _, s := range c.Series {
			if len(s.X) != len(s.Y) || !hasData(s) {
				t.Errorf("%s/%s: %d x, %d y, data %v", c.ID, s.Name, len(s.X), len(s.Y), hasData(s))
			}
		}
		kinds := map[chart.MarkerKind]bool{}
		for _, m := range c.Markers {
			kinds[m.Kind] = true
		}
		for _, k := range []chart.MarkerKind{chart.MarkPhase, chart.MarkCheckpoint, chart.MarkAutovacuum, chart.MarkStall, chart.MarkError} {
			if !kinds[k] {
				t.Errorf("%s has no %s marker: %+v", c.ID, k, c.Markers)
			}
		}
		// The stall: a marker at its start (20 s into the window, 25 s on
		// the clock) and a span of 5 s.
		i := slices.IndexFunc(c.Spans, func(s chart.Span) bool { return s.Kind == chart.MarkStall })
		if i < 0 || math.Abs(c.Spans[i].From-25) > 0.01 || math.Abs(c.Spans[i].To-c.Spans[i].From-5) > 0.01 {
			t.Errorf("%s: stall span %+v", c.ID, c.Spans)
		}
		if !slices.ContainsFunc(c.Spans, func(s chart.Span) bool { return s.Kind == chart.MarkCheckpoint && s.To > s.From }) {
			t.Errorf("%s: no checkpoint span: %+v", c.ID, c.Spans)
		}
	}
	waits := tl.Charts[1]
	if waits.Series[0].Name != "CPU" || !slices.ContainsFunc(waits.Series, func(s chart.Series) bool { return s.Name == "Lock" && s.Stack == "waits" }) {
		t.Errorf("waits series %v", waits.Series)
	}
	// In the stall the Lock waits rise to clients − 1 sessions.
	lock := waits.Series[slices.IndexFunc(waits.Series, func(s chart.Series) bool { return s.Name == "Lock" })]
	if slices.Max(lock.Y) != 7 {
		t.Errorf("lock waits peak at %v, want 7", slices.Max(lock.Y))
	}

	// Spectrum: total (response, service, lag) and per script; monotone.
	sp := figure(t, d, "latency distribution")
	if ids := figureIDs(sp); !slices.Equal(ids, []string{"spectrum-total", "spectrum-scripts"}) {
		t.Fatalf("spectrum charts %v", ids)
	}
	if n := len(sp.Charts[0].Series); n != 3 || len(sp.Charts[1].Series) != 3 {
		t.Errorf("spectrum series %d and %d, want 3 and 3", n, len(sp.Charts[1].Series))
	}
	for _, c := range sp.Charts {
		if c.Kind != chart.Spectrum || !c.Y.Log {
			t.Errorf("%s: kind %s, log %v", c.ID, c.Kind, c.Y.Log)
		}
		for _, s := range c.Series {
			prevX, prevY := -1.0, 0.0
			for i := range s.X {
				if s.X[i] <= prevX || s.X[i] >= 1 {
					t.Errorf("%s/%s: x %v after %v", c.ID, s.Name, s.X[i], prevX)
				}
				if !math.IsNaN(s.Y[i]) && s.Y[i] < prevY {
					t.Errorf("%s/%s: y falls from %v to %v at q %v", c.ID, s.Name, prevY, s.Y[i], s.X[i])
				}
				prevX = s.X[i]
				if !math.IsNaN(s.Y[i]) {
					prevY = s.Y[i]
				}
			}
			if len(s.X) < 30 || s.X[len(s.X)-1] < 0.999 {
				t.Errorf("%s/%s: %d points up to %v", c.ID, s.Name, len(s.X), s.X[len(s.X)-1])
			}
		}
	}
	resp, svc := sp.Charts[0].Series[0], sp.Charts[0].Series[1]
	if last := len(resp.Y) - 1; !(resp.Y[last] >= svc.Y[last]) {
		t.Errorf("response tail %v below service tail %v", resp.Y[last], svc.Y[last])
	}

	// Statements: sortable, by total time, top 20, the rest, other sessions.
	st := table(t, d, "statements")
	if !st.Sortable || len(st.Rows) != 22 {
		t.Fatalf("statements: sortable %v, %d rows", st.Sortable, len(st.Rows))
	}
	prev := math.Inf(1)
	for _, row := range st.Rows[:20] {
		v, err := strconv.ParseFloat(row[0].Text, 64)
		if err != nil || v > prev {
			t.Errorf("statements not by total time: %v after %v (%v)", row[0].Text, prev, err)
		}
		prev = v
	}
	if got, want := st.Rows[0][len(st.Head)-1].Text, results.RedactSQL(query); got != want {
		t.Errorf("first statement %q, want %q", got, want)
	}
	if !strings.Contains(st.Rows[20][8].Text, "10 more statements") || !strings.HasPrefix(st.Rows[21][8].Text, "other sessions") {
		t.Errorf("last rows %v / %v", st.Rows[20], st.Rows[21])
	}
	if !slices.ContainsFunc(d.Blocks, func(b Block) bool { _, ok := b.(*Checklist); return ok }) {
		t.Error("no checklist")
	}
	table(t, d, "evidence")

	// Chart IDs: unique, [a-z0-9-].
	ids := map[string]bool{}
	re := regexp.MustCompile(`^[a-z0-9-]+$`)
	for _, b := range d.Blocks {
		if f, ok := b.(*Figure); ok {
			for _, c := range f.Charts {
				if ids[c.ID] || !re.MatchString(c.ID) {
					t.Errorf("chart id %q repeated or malformed", c.ID)
				}
				ids[c.ID] = true
			}
		}
	}
	checkMarkdown(t, d) // its tables are well formed
}

// A crashed run (no final run.json): the note at the top, the summary from
// latency.hlog's intervals with the total's counts from timeline.csv, the
// parts run.json lacks as "—" with their reason.
func TestRunReportCrashed(t *testing.T) {
	dir := writeRun(t, resultstest.Options{Scripts: 2, Duration: 50 * time.Second, Crashed: true})
	d := makeReport(t, dir)
	n, ok := d.Blocks[0].(*Notes)
	if !ok || !strings.Contains(n.Lines[0], "the run did not finish (crashed or killed?): this report shows what the directory holds, up to its last interval at 35 s") {
		t.Fatalf("first block %#v", d.Blocks[0])
	}
	all := allText(d)
	wantAll(t, "report", all, "summary computed from latency.hlog's 30 measured intervals", "events name the classes seen",
		"end — (not recorded: the run did not finish)",
		"statements.csv has no rows of the measured window", "run.json has no evidence", "the checklist is made at its end",
		"last interval (the run did not finish)")
	tl, err := results.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	var committed int64
	for _, row := range tl {
		if row.Phase == results.PhaseMeasure {
			committed += row.Committed
		}
	}
	total := table(t, d, "summary, total")
	if want := "summary, total: " + strconv.FormatInt(committed, 10) + " committed"; !strings.HasPrefix(total.Title, want) {
		t.Errorf("total %q, want %q…", total.Title, want)
	}
	if total.Rows[0][4].Text == "0.000" {
		t.Errorf("response p99 is 0: %v", total.Rows[0])
	}
	if ids := figureIDs(figure(t, d, "timeline")); len(ids) != 5 {
		t.Errorf("crashed run's timeline %v", ids)
	}

	// The same directory with the interval files gone: still a report.
	for _, f := range []string{results.LatencyFile, results.TimelineFile, results.EventsFile, results.WaitsFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	d = makeReport(t, dir)
	all = allText(d)
	wantAll(t, "report of a bare directory", all, "up to no interval", "tps and latency: — (timeline.csv is not in the run directory)",
		"waits by type: — (not collected: waits.csv is not in the run directory", "spectrum: — (latency.hlog is not in the run directory)")
	if ids := figureIDs(figure(t, d, "timeline")); !slices.Equal(ids, []string{"timeline-wal", "timeline-cpu", "timeline-disk"}) {
		t.Errorf("timeline of a bare directory %v", ids)
	}
}

// An interrupted run says so at the top and at its end marker.
func TestRunReportInterrupted(t *testing.T) {
	d := makeReport(t, writeRun(t, resultstest.Options{Duration: 50 * time.Second, Interrupted: true}))
	n, ok := d.Blocks[0].(*Notes)
	if !ok || n.Lines[0] != "the run was interrupted by SIGINT at 35 s: 30 s of the planned 50 s were measured" {
		t.Fatalf("first block %#v", d.Blocks[0])
	}
	wantAll(t, "report", allText(d), "end of the measured window (interrupted)", "run interrupted by SIGINT")
}

// Without collectors the collector panels are left out with the reason,
// and the closed model has no lag.
func TestRunReportNoCollectors(t *testing.T) {
	d := makeReport(t, writeRun(t, resultstest.Options{Duration: 20 * time.Second, NoCollectors: true, Rate: -1}))
	tl := figure(t, d, "timeline")
	if ids := figureIDs(tl); !slices.Equal(ids, []string{"timeline-tps"}) {
		t.Fatalf("panels %v", ids)
	}
	if len(tl.Notes) != 4 || !strings.Contains(tl.Notes[0], "waits by type: — (not collected: not collected (the waits collector did not run, --no-collect))") {
		t.Errorf("notes %q", tl.Notes)
	}
	for _, s := range tl.Charts[0].Series {
		if s.Name == "lag p99" {
			t.Error("a lag series in the closed model")
		}
	}
	all := allText(d)
	wantAll(t, "report", all, "What throughput and latency does tpcb-like (scale 10) get from 8 clients (closed model",
		"closed model: each client waits", "data:      — (run.json has no table sizes", "not collected (the statements collector did not run")
	if sp := figure(t, d, "latency distribution"); len(sp.Charts) != 1 || len(sp.Charts[0].Series) != 2 {
		t.Errorf("closed spectrum %v", sp.Charts)
	}
}

// A directory that is not a run's is the only error.
func TestRunReportNotARun(t *testing.T) {
	if _, err := RunReport(t.TempDir()); err == nil || !strings.Contains(err.Error(), "run.json") {
		t.Errorf("error %v", err)
	}
}

// The Doc goes through WriteFiles (whatever the writers are on this branch).
func TestRunReportFiles(t *testing.T) {
	dir := writeRun(t, resultstest.Options{Scripts: 2, Duration: 20 * time.Second})
	w, err := WriteFiles(dir, makeReport(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if w.Charts != 7 {
		t.Errorf("%d charts written, want 7", w.Charts)
	}
	for _, p := range []string{w.HTML, w.Markdown} {
		data, err := os.ReadFile(p)
		if err != nil || strings.Contains(string(data), resultstest.Password) {
			t.Errorf("%s: %v, or the password in it", p, err)
		}
	}
}

func TestSettingBytes(t *testing.T) {
	for in, want := range map[string]int64{"128MB": 128 << 20, "4GB": 4 << 30, "512kB": 512 << 10, "16384": 16384 * 8192, "1 TB": 1 << 40} {
		if got, ok := settingBytes(in); !ok || got != want {
			t.Errorf("settingBytes(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	if _, ok := settingBytes("lots"); ok {
		t.Error("settingBytes(lots) ok")
	}
}

// BenchmarkRunReportHour: one hour at 1 s with 5 scripts (the directory
// made once, outside the timer); timed: RunReport and WriteFiles.
// bench/report-size.sh runs it and checks the limits (3 MB, 3 s).
func BenchmarkRunReportHour(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "run")
	if _, err := resultstest.WriteRun(dir, resultstest.Options{Scripts: 5, Duration: time.Hour, Warmup: 10 * time.Second,
		StallAt: 20 * time.Minute, StallFor: 10 * time.Second}); err != nil {
		b.Fatal(err)
	}
	var size, charts int64
	for b.Loop() {
		d, err := RunReport(dir)
		if err != nil {
			b.Fatal(err)
		}
		w, err := WriteFiles(dir, d)
		if err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(w.HTML)
		if err != nil {
			b.Fatal(err)
		}
		size = fi.Size()
		charts = 0
		for _, blk := range d.Blocks {
			if f, ok := blk.(*Figure); ok {
				for _, c := range f.Charts {
					data, err := json.Marshal(c)
					if err != nil {
						b.Fatal(err)
					}
					charts += int64(len(data))
				}
			}
		}
	}
	b.ReportMetric(float64(size), "html-bytes")
	// The charts' JSON, which the HTML page embeds: a lower bound of its
	// size whatever the writer (the HTML writer may be a stub).
	b.ReportMetric(float64(charts), "chart-json-bytes")
}

// A run.json whose command line still holds a password (one written by
// hand, or by an older pgtrial) is redacted again on the way into the
// report.
func TestRunReportRedactsAgain(t *testing.T) {
	dir := writeRun(t, resultstest.Options{Duration: 10 * time.Second})
	path := filepath.Join(dir, results.RunFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw := strings.Replace(string(data), "host=db user=bench dbname=bench", "host=db user=bench password=hunter2 dbname=bench", 1)
	raw = strings.Replace(raw, `"--rate"`, `"postgres://bench:hunter2@db/bench", "--rate"`, 1)
	if raw == string(data) {
		t.Fatal("the command line is not where the test expects it")
	}
	if err := os.WriteFile(path, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	all := allText(makeReport(t, dir))
	if strings.Contains(all, "hunter2") {
		t.Errorf("the password reaches the report:\n%s", all)
	}
	wantAll(t, "report", all, "command:   pgtrial run --url 'host=db user=bench dbname=bench' postgres://bench@db/bench --rate 200")
}
