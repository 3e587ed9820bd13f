package cli

// The browser tests of the reports (issue 16's acceptance): the run report
// of a real 20 s run with an injected lock, an experiment report (two
// variants, a ramp) and a comparison report each load from file:// in
// headless Chromium with the network off, log no console error, draw every
// chart and leave a screenshot; the run report shows the stall's marker on
// the timeline; a statement text made to break out of the page renders as
// text in HTML, Markdown and SVG. The harness is browser_helpers_test.go;
// set PGTRIAL_SCREENSHOTS to a directory to keep the screenshots.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// xssText is the statement text's payload: inside a quoted identifier,
// which pg_stat_statements keeps as written (it replaces constants only).
const xssText = `</script><img src=x onerror=alert(1)>`

// withStatements is url with pg_stat_statements created in its database
// (the test cluster preloads it), so that the reports have statements.
func withStatements(t *testing.T, url string) string {
	t.Helper()
	pgtest.Exec(t, url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	return url
}

// runExperimentFile writes yaml into a file and runs it with `pgtrial
// experiment` against url; it returns the experiment directory and its
// record.
func runExperimentFile(t *testing.T, url, name, yaml string) (string, *experiment.Record) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	expDir := filepath.Join(dir, "exp")
	code, _, errOut := runCLI(t, "experiment", "--url", url, "--dir", expDir, "--quiet", file)
	if code != 0 {
		t.Fatalf("experiment %s: exit %d\n%s", name, code, errOut)
	}
	rec, err := experiment.LoadRecord(expDir)
	if err != nil {
		t.Fatal(err)
	}
	return expDir, rec
}

// writeReport writes d into dir and checks the files are there.
func writeReport(t *testing.T, dir string, d *report.Doc) report.Written {
	t.Helper()
	w, err := report.WriteFiles(dir, d)
	if err != nil {
		t.Fatalf("WriteFiles: %v", err)
	}
	for _, p := range []string{w.HTML, w.Markdown} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Fatalf("%s: %v", p, err)
		}
	}
	return w
}

// TestBrowserRunReportStall: the report of a 20 s open-model tpcb-like run
// with an ACCESS EXCLUSIVE lock on pgbench_branches from 6 s for 4 s (an
// experiment of one run, which is what injects stalls) draws every chart
// and marks the stall on the timeline, in window.pgtrialReport.markers and
// in the list under the panels.
func TestBrowserRunReportStall(t *testing.T) {
	chromium(t) // skip before the 20 s run when there is no browser
	url := withStatements(t, runTestDB(t))
	expDir, rec := runExperimentFile(t, url, "stall", `
name: stall
workload: {builtin: tpcb-like, scale: 1}
load: {clients: 4, rate: 100}
protocol: {warmup: 1s, window: 20s, repeats: 1}
injections: [{at: 6s, kind: lock, table: pgbench_branches, duration: 4s}]
`)
	if len(rec.Runs) != 1 || len(rec.Runs[0].Injected) != 1 {
		t.Fatalf("record: %d runs, injected %+v; want one run with one injection", len(rec.Runs), rec.Runs)
	}
	runDir := filepath.Join(expDir, rec.Runs[0].Dir)
	doc, err := report.RunReport(runDir)
	if err != nil {
		t.Fatal(err)
	}
	w := writeReport(t, runDir, doc)
	p := loadPage(t, w.HTML)
	checkReportPage(t, p)
	checkChecklist(t, p)
	if got := stallMarkers(p); len(got) == 0 {
		var all []reportMarker
		if p.Report != nil {
			all = p.Report.Markers
		}
		t.Errorf("no marker of kind stall on a time chart; markers %+v", all)
	}
	if n := evalIn[int](t, p, `document.querySelectorAll('ul.markers li[data-kind="stall"]').length`); n == 0 {
		t.Errorf(`no ul.markers li[data-kind="stall"]`)
	}
	// The linked panels put one time at one x: every time panel's plot area
	// has the same left and right edges, with or without a right axis.
	edges := evalIn[[]string](t, p, `Array.from(document.querySelectorAll('figure.chart[data-kind="time"] .u-over')).map(function (e) {
		var b = e.getBoundingClientRect(); return Math.round(b.left) + "-" + Math.round(b.right); })`)
	if len(edges) < 2 || len(slices.Compact(slices.Clone(edges))) != 1 {
		t.Errorf("the time panels' plot areas (left-right px) differ: %v", edges)
	}
}

// TestBrowserExperimentAndCompareReports: an experiment of two variants
// (work_mem 4MB and 8MB, a reload) over a ramp of two rates, and the
// comparison of the two variants' runs (forced: the runs of a side are at
// two rates): both reports draw every chart in the browser.
func TestBrowserExperimentAndCompareReports(t *testing.T) {
	chromium(t)
	url := withStatements(t, runTestDB(t))
	expDir, rec := runExperimentFile(t, url, "ramp", `
name: ramp
workload: {builtin: select-only, scale: 1}
load: {clients: 2, ramp: {by: rate, from: 50, to: 100, steps: 2, step_duration: 2s}}
protocol: {warmup: 1s, repeats: 1}
variants: [{name: wm4, settings: {work_mem: 4MB}}, {name: wm8, settings: {work_mem: 8MB}}]
`)
	if len(rec.Runs) != 4 || len(rec.Ramp) == 0 {
		t.Fatalf("record: %d runs, %d ramp levels; want 2 variants × 2 levels", len(rec.Runs), len(rec.Ramp))
	}

	t.Run("experiment", func(t *testing.T) {
		doc, err := report.ExperimentReport(expDir, rec)
		if err != nil {
			t.Fatal(err)
		}
		w := writeReport(t, expDir, doc)
		p := loadPage(t, w.HTML)
		checkReportPage(t, p)
		checkChecklist(t, p)
	})

	t.Run("compare", func(t *testing.T) {
		var aDirs, bDirs []string
		for _, r := range rec.Runs {
			d := filepath.Join(expDir, r.Dir)
			switch r.Variant {
			case "wm4":
				aDirs = append(aDirs, d)
			case "wm8":
				bDirs = append(bDirs, d)
			}
		}
		o := &compareOptions{force: true, seed: 1, top: compare.DefaultTop, margin: stats.DefaultMargin}
		rep, err := buildComparison(o, "wm4", "wm8", aDirs, bDirs)
		if err != nil {
			t.Fatal(err)
		}
		w := writeReport(t, t.TempDir(), report.CompareReport(rep))
		checkReportPage(t, loadPage(t, w.HTML))
	})
}

// TestBrowserReportXSS: a run whose statement text holds
// </script><img src=x onerror=alert(1)> (a column alias) gives a report
// that shows the text and runs nothing: no dialog, no img element with
// src x; report.md and the SVG charts hold no raw <img.
func TestBrowserReportXSS(t *testing.T) {
	chromium(t)
	url := withStatements(t, pgtest.ConnString(t))
	dir := t.TempDir()
	script := filepath.Join(dir, "xss.sql")
	if err := os.WriteFile(script, []byte(`SELECT 1 AS "`+xssText+`";`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(dir, "run")
	code, _, errOut := runCLI(t, "run", url, "-f", script, "--rate", "50", "-c", "2", "-T", "2s", "--warmup", "1s",
		"--run-dir", runDir, "--quiet")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	// The text must be in the run directory for the report to show it.
	if b, err := os.ReadFile(filepath.Join(runDir, results.StatementsFile)); err != nil || !strings.Contains(string(b), xssText) {
		t.Fatalf("%s does not hold the statement text (%v)", results.StatementsFile, err)
	}
	doc, err := report.RunReport(runDir)
	if err != nil {
		t.Fatal(err)
	}
	w := writeReport(t, runDir, doc)

	md, err := os.ReadFile(w.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "<img") || strings.Contains(string(md), "</script>") {
		t.Errorf("report.md holds the raw markup:\n%s", md)
	}
	if !strings.Contains(string(md), "onerror=alert(1)") {
		t.Errorf("report.md does not show the statement text")
	}
	svgs, _ := filepath.Glob(filepath.Join(runDir, report.ChartsDir, "*.svg"))
	for _, f := range svgs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "<img") || strings.Contains(string(b), "<script") {
			t.Errorf("%s holds raw markup", f)
		}
	}

	p := loadPage(t, w.HTML)
	checkReportPage(t, p)
	if n := evalIn[int](t, p, `document.querySelectorAll('img[src="x"]').length`); n != 0 {
		t.Errorf(`%d img elements with src="x": the statement text became markup`, n)
	}
	if text := evalIn[string](t, p, `document.body.innerText`); !strings.Contains(text, "<img src=x onerror=alert(1)>") {
		t.Errorf("the page does not show the statement text %q", xssText)
	}
}
