package cli

import (
	"bytes"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/results"
)

// runBin runs the pgtrial binary with args (bounded to a minute) and
// returns its exit code and output.
func runBin(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("pgtrial %s: still running after a minute\nstderr:\n%s", strings.Join(args, " "), stderr.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// reportLines is what `pgtrial report` prints for a report in dir.
func reportLines(t *testing.T, dir string) string {
	return "report: " + abs(t, filepath.Join(dir, report.HTMLFile)) + "\nreport: " + abs(t, filepath.Join(dir, report.MarkdownFile)) + "\n"
}

// removeReports removes dir's report files and returns nothing; a missing
// one is fine.
func removeReports(t *testing.T, dir string) {
	t.Helper()
	for _, p := range []string{report.HTMLFile, report.MarkdownFile, report.ChartsDir} {
		if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
}

// assertReports checks that dir holds report.html and report.md (want) or
// neither (!want).
func assertReports(t *testing.T, dir string, want bool) {
	t.Helper()
	for _, name := range []string{report.HTMLFile, report.MarkdownFile} {
		fi, err := os.Stat(filepath.Join(dir, name))
		switch {
		case want && err != nil:
			t.Errorf("%s: %v", dir, err)
		case want && fi.Size() == 0:
			t.Errorf("%s/%s is empty", dir, name)
		case !want && err == nil:
			t.Errorf("%s/%s written, want none", dir, name)
		}
	}
}

// assertNoSecret checks that no file under dir (the reports, their charts)
// and no output holds the password.
func assertNoSecret(t *testing.T, dir string, outputs ...string) {
	t.Helper()
	for _, o := range outputs {
		if strings.Contains(o, pgtest.Password) {
			t.Errorf("the password is in the output:\n%s", o)
		}
	}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if bytes.Contains(data, []byte(pgtest.Password)) {
			t.Errorf("the password is in %s", p)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Errorf("walk %s: %v, %d files", dir, err, n)
	}
}

// tableSeparator is a GFM table's delimiter row as report.md writes it.
var tableSeparator = regexp.MustCompile(`^\|( --- \|)+$`)

// checkMarkdown parses path with goldmark's GFM and checks that every table
// written (a delimiter row) is a GFM table node, that no paragraph is a
// broken table, that every image is a relative path to a file beside the
// report and every relative link a file that exists. It returns the tables
// and images found.
func checkMarkdown(t *testing.T, path string) (tables, images int) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	wantTables, wantImages := 0, 0
	for _, l := range strings.Split(string(src), "\n") {
		if tableSeparator.MatchString(l) {
			wantTables++
		}
		wantImages += strings.Count(l, "![")
	}
	relative := func(kind, dest string) {
		u, err := url.Parse(dest)
		if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(dest, "/") {
			t.Errorf("%s: %s %q is not a relative path", path, kind, dest)
			return
		}
		p, err := url.PathUnescape(u.Path)
		if err != nil || !filepath.IsLocal(p) {
			t.Errorf("%s: %s %q is not a path inside the report's directory", path, kind, dest)
			return
		}
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %s %q: %v", path, kind, dest, err)
		}
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := md.Parser().Parse(text.NewReader(src))
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *east.Table:
			tables++
		case *ast.Image:
			images++
			relative("image", string(n.Destination))
		case *ast.Link:
			relative("link", string(n.Destination))
		case *ast.Paragraph:
			lines := n.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				if l := string(seg.Value(src)); strings.HasPrefix(l, "|") {
					t.Errorf("%s: a table line parsed as a paragraph: %q", path, l)
				}
			}
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tables != wantTables || images != wantImages {
		t.Errorf("%s: %d GFM tables and %d images parsed; the file writes %d tables and %d images", path, tables, images, wantTables, wantImages)
	}
	return tables, images
}

// TestReportRun: `pgtrial run` writes report.html and report.md into its
// run directory and prints the report's path last; --no-report writes none;
// `pgtrial report RUNDIR` rewrites them and prints both paths; `report A --
// B` writes a comparison into --out (or a new compare-<time> here); --open
// runs $BROWSER with the page's path. The run's URL holds a password, which
// no report file and no output holds.
func TestReportRun(t *testing.T) {
	url := pgtest.WithPassword(t, runTestDB(t))
	bin := pgtest.BuildPgtrial(t)
	tmp := t.TempDir()
	dirA, dirB := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	runArgs := []string{"run", url, "--closed", "-T", "3s", "--warmup", "0s", "-c", "2", "-b", "select-only", "--no-collect", "--quiet"}

	code, out, errOut := runBin(t, bin, append(runArgs, "--run-dir", dirA)...)
	if code != 0 {
		t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got, want := lastLine(out), "report: "+abs(t, filepath.Join(dirA, report.HTMLFile)); got != want {
		t.Errorf("last line of run %q, want %q\nstdout:\n%s", got, want, out)
	}
	if strings.Contains(errOut, "report not written") {
		t.Errorf("stderr: %s", errOut)
	}
	assertReports(t, dirA, true)
	assertNoSecret(t, dirA, out, errOut)
	if run, err := results.Load(dirA); err != nil || !strings.Contains(strings.Join(run.CommandLine, " "), "postgres://postgres@") {
		t.Errorf("run.json's command line %v (%v): want the URL, without its password", run.CommandLine, err)
	}

	code, out, errOut = runBin(t, bin, append(runArgs, "--run-dir", dirB, "--no-report")...)
	if code != 0 {
		t.Fatalf("run --no-report: exit %d\nstderr:\n%s", code, errOut)
	}
	assertReports(t, dirB, false)
	if strings.Contains(out, "report: ") {
		t.Errorf("run --no-report printed a report path:\n%s", out)
	}

	// pgtrial report RUNDIR (and the path of its run.json) rewrites them.
	for _, arg := range []string{dirA, filepath.Join(dirA, results.RunFile)} {
		removeReports(t, dirA)
		out, errOut = mustRun(t, 0, "report", arg)
		if out != reportLines(t, dirA) {
			t.Errorf("report %s printed:\n%s\nwant:\n%s", arg, out, reportLines(t, dirA))
		}
		assertReports(t, dirA, true)
		assertNoSecret(t, dirA, out, errOut)
	}
	checkMarkdown(t, filepath.Join(dirA, report.MarkdownFile))

	// A comparison into --out, and into a new compare-<time> in the
	// current directory.
	cmpDir := filepath.Join(tmp, "cmp")
	out, _ = mustRun(t, 0, "report", "--out", cmpDir, dirA, "--", dirB)
	if out != reportLines(t, cmpDir) {
		t.Errorf("report --out printed:\n%s", out)
	}
	assertReports(t, cmpDir, true)
	assertNoSecret(t, cmpDir)
	checkMarkdown(t, filepath.Join(cmpDir, report.MarkdownFile))
	here := t.TempDir()
	t.Chdir(here)
	out, _ = mustRun(t, 0, "report", "--name-a", "first", "--name-b", "second", dirA, dirB)
	made, _ := filepath.Glob(filepath.Join(here, "compare-*"))
	if len(made) != 1 || !regexp.MustCompile(`/compare-\d{8}-\d{6}$`).MatchString(made[0]) {
		t.Fatalf("default comparison directory: %v", made)
	}
	if out != reportLines(t, made[0]) {
		t.Errorf("report A B printed:\n%s", out)
	}
	assertReports(t, made[0], true)
	// --out naming a run directory would overwrite the run's own report.
	code, _, errOut = runCLI(t, "report", "--out", dirB, dirA, "--", dirB)
	if code != exitBadInput || !strings.Contains(errOut, "holds run.json") {
		t.Errorf("--out a run directory: exit %d, %q", code, errOut)
	}
	assertReports(t, dirB, false)

	// --open: $BROWSER gets the page's absolute path.
	got := filepath.Join(tmp, "browser-arg")
	browser := filepath.Join(tmp, "browser.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s' \"$1\" > '"+got+"'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", browser)
	out, errOut = mustRun(t, 0, "report", "--open", dirA)
	if arg, err := os.ReadFile(got); err != nil || string(arg) != abs(t, filepath.Join(dirA, report.HTMLFile)) {
		t.Errorf("the browser got %q (%v), want the report's path\nstdout:\n%s\nstderr:\n%s", arg, err, out, errOut)
	}
	// No browser at all: said plainly, and still exit 0 (the report is written).
	t.Setenv("BROWSER", "no-such-browser-h5")
	t.Setenv("PATH", t.TempDir())
	out, errOut = mustRun(t, 0, "report", "--open", dirA)
	if out != reportLines(t, dirA) || !strings.Contains(errOut, "no browser to open the report") || !strings.Contains(errOut, abs(t, filepath.Join(dirA, report.HTMLFile))+" yourself") {
		t.Errorf("--open without a browser:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

// TestReportInterruptedRun: an interrupted run still writes its report
// before it exits with status 2, and prints its path last.
func TestReportInterruptedRun(t *testing.T) {
	url := pgtest.WithPassword(t, runTestDB(t))
	bin := pgtest.BuildPgtrial(t)
	dir := filepath.Join(t.TempDir(), "run")
	got := interruptRun(t, bin, dir, 2*time.Second, "run", url, "--rate", "50", "-T", "30s", "--warmup", "0s", "-c", "2", "-b", "select-only", "--no-collect", "--quiet", "--run-dir", dir)
	var ee *exec.ExitError
	if !errors.As(got.err, &ee) || ee.ExitCode() != exitRunFail {
		t.Errorf("exit: %v, want status 2\nstderr:\n%s", got.err, got.stderr)
	}
	if l, want := lastLine(got.stdout), "report: "+abs(t, filepath.Join(dir, report.HTMLFile)); l != want {
		t.Errorf("last line %q, want %q\nstdout:\n%s\nstderr:\n%s", l, want, got.stdout, got.stderr)
	}
	assertReports(t, dir, true)
	assertNoSecret(t, dir, got.stdout, got.stderr)
}

// TestReportExperiment: `pgtrial experiment` writes the experiment's report
// and each run's, and prints the experiment's path last; `pgtrial report
// EXPDIR` rewrites them, and skips a run whose directory is gone with a
// warning.
func TestReportExperiment(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "exp.yaml")
	if err := os.WriteFile(file, []byte(`
name: report
workload: {builtin: select-only, scale: 1}
load: {clients: 2, rate: 50}
protocol: {warmup: 0s, window: 1s, repeats: 1}
variants: [{name: a}, {name: b, settings: {work_mem: 8MB}}]
collect: false
`), 0o600); err != nil {
		t.Fatal(err)
	}
	url := pgtest.ConnString(t)
	expDir := filepath.Join(tmp, "exp")
	out, errOut := mustRun(t, 0, "experiment", "--url", url, "--dir", expDir, "--quiet", file)
	if got, want := lastLine(out), "report: "+abs(t, filepath.Join(expDir, report.HTMLFile)); got != want {
		t.Errorf("last line %q, want %q\nstdout:\n%s\nstderr:\n%s", got, want, out, errOut)
	}
	var rec experiment.Record
	if err := results.ReadExperiment(expDir, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(rec.Runs))
	}
	assertReports(t, expDir, true)
	for _, r := range rec.Runs {
		assertReports(t, filepath.Join(expDir, r.Dir), true)
	}

	// pgtrial report EXPDIR: the first run's directory is gone.
	gone, kept := filepath.Join(expDir, rec.Runs[0].Dir), filepath.Join(expDir, rec.Runs[1].Dir)
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	removeReports(t, expDir)
	removeReports(t, kept)
	out, errOut = mustRun(t, 0, "report", expDir)
	if out != reportLines(t, expDir) {
		t.Errorf("report EXPDIR printed:\n%s", out)
	}
	if !strings.Contains(errOut, "warning: run 1's directory "+gone+" is missing") {
		t.Errorf("no warning about the missing run:\n%s", errOut)
	}
	assertReports(t, expDir, true)
	assertReports(t, kept, true)
	if tables, _ := checkMarkdown(t, filepath.Join(expDir, report.MarkdownFile)); tables == 0 {
		t.Errorf("the experiment's report.md has no table")
	}
	checkMarkdown(t, filepath.Join(kept, report.MarkdownFile))

	// --no-report: an experiment writes no report.
	dir2 := filepath.Join(tmp, "exp2")
	out, _ = mustRun(t, 0, "experiment", "--url", url, "--dir", dir2, "--quiet", "--no-report", file)
	if strings.Contains(out, "report: ") {
		t.Errorf("experiment --no-report printed a report path:\n%s", out)
	}
	assertReports(t, dir2, false)
}

// TestReportErrors: no directory, a missing one, a file, a directory that
// is neither a run's nor an experiment's, --out for one directory: exit 1
// with what was expected.
func TestReportErrors(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(tmp, "missing")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "give a run directory (run.json) or an experiment directory (experiment.json)"},
		{[]string{missing}, missing + ": no such directory; give a run directory"},
		{[]string{file}, file + " is not a directory; give a run directory"},
		{[]string{empty}, "not a run or experiment directory: no run.json or experiment.json in " + empty},
		{[]string{"--out", tmp, empty}, "--out is for a comparison"},
		{[]string{empty, "--", missing}, "pgtrial: error: "},
	} {
		code, out, errOut := runCLI(t, append([]string{"report"}, tt.args...)...)
		if code != exitBadInput || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("report %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
	assertReports(t, empty, false)
}
