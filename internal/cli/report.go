package cli

// report.go: `pgtrial report` and the reports that `run`, `experiment`,
// `capacity` and `demo` write at their end (internal/report renders them;
// this file chooses the directory, writes the files and prints their paths).

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/results"
)

// reportOptions are `pgtrial report`'s flags.
type reportOptions struct {
	cmp  *compareOptions // a comparison's runs and options, as compare has them
	out  string          // a comparison's directory ("": ./compare-<time>)
	open bool
	// explain is --explain: a run's findings are computed again with it.
	explain explainFlag
}

const reportLong = `report writes the reports people look at: report.html, one self-contained page
with its charts (it makes no network request), and report.md, GitHub-flavoured
Markdown with its charts as SVG files in charts/ beside it (for a pull request or a
wiki). It prints both paths.

  pgtrial report RUN_DIR         a run directory (it holds run.json): the report goes
                                 into the run directory
  pgtrial report EXP_DIR         an experiment directory (experiment.json): the
                                 experiment's report goes into it, and each run's own
                                 report into runs/NAME/, which the experiment's links to
  pgtrial report A_DIR... -- B_DIR...
                                 a comparison, with the arguments and options of
                                 "pgtrial compare" (--a/--b, --name-a/--name-b, --force,
                                 --top, --primary, --margin); the report goes into --out
                                 (default: a new directory compare-YYYYMMDD-HHMMSS here)

The reports are made from the directories alone; a run that was interrupted or crashed
gives the report of what its directory holds. "pgtrial run", "pgtrial experiment",
"pgtrial capacity" and "pgtrial demo" write them at their end (unless --no-report) and
print the path of report.html last.

--open opens report.html in the browser: $BROWSER (commands separated by ":", "%s"
standing for the file), else xdg-open, else open (macOS).

Exit status: 0 the report was written (whether or not a browser opened it); 1 bad
input (not a run or experiment directory, runs that cannot be compared); 2 the report
could not be written.`

func newReportCommand() *cobra.Command {
	o := &reportOptions{cmp: defaultCompareOptions()}
	cmd := &cobra.Command{
		Use:   "report [flags] DIR | A_DIR... -- B_DIR...",
		Short: "Write report.html and report.md (SVG charts beside) of a run, an experiment or a comparison",
		Long:  reportLong,
		Example: `  pgtrial report pgtrial-runs/20260101-120000-tpcb-like
  pgtrial report --open pgtrial-runs/20260101-120000-experiment-sync
  pgtrial report --out cmp runs/a1 runs/a2 runs/a3 runs/a4 -- runs/b1 runs/b2 runs/b3 runs/b4`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(o, args, cmd.ArgsLenAtDash(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.out, "out", "", "a comparison's report directory (default: a new ./compare-YYYYMMDD-HHMMSS); a run's or an experiment's report goes into its own directory")
	f.BoolVar(&o.open, "open", false, "open report.html in the browser ($BROWSER, else xdg-open, else open)")
	addExplainFlag(f, &o.explain, "a run directory's findings are computed again with it (otherwise the report shows run.json's)")
	addCompareFlags(f, o.cmp)
	return cmd
}

func runReport(o *reportOptions, args []string, dash int, stdout, stderr io.Writer) error {
	single := len(o.cmp.a) == 0 && len(o.cmp.b) == 0 && dash < 0 && len(args) == 1
	if len(args) == 0 && len(o.cmp.a) == 0 && len(o.cmp.b) == 0 {
		return errors.New(`give a run directory (run.json) or an experiment directory (experiment.json), or A's run directories, "--", then B's for a comparison (pgtrial report A1 A2 -- B1 B2)`)
	}
	var w report.Written
	var err error
	if single {
		if o.out != "" {
			return fmt.Errorf("--out is for a comparison: the report of %s goes into that directory", args[0])
		}
		w, err = reportOfDir(args[0], o.explain.config(), stderr)
	} else {
		if o.explain.config() != nil {
			return errors.New("--explain recomputes a run directory's findings; a comparison has none")
		}
		w, err = reportOfComparison(o, args, dash)
	}
	if err != nil {
		return err
	}
	printReportPath(stdout, w.HTML)
	printReportPath(stdout, w.Markdown)
	if o.open {
		openReport(w.HTML, stderr)
	}
	return nil
}

// reportOfDir writes the report of a run or experiment directory (or of
// the directory of a run.json or experiment.json path) into it.
func reportOfDir(path string, cfg *explain.Config, stderr io.Writer) (report.Written, error) {
	const expected = "give a run directory (it holds run.json) or an experiment directory (experiment.json)"
	dir := path
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return report.Written{}, fmt.Errorf("%s: no such directory; %s", path, expected)
	case err != nil:
		return report.Written{}, err
	case !fi.IsDir():
		if b := filepath.Base(path); b != results.RunFile && b != results.ExperimentFile {
			return report.Written{}, fmt.Errorf("%s is not a directory; %s", path, expected)
		}
		dir = filepath.Dir(path)
	}
	switch {
	case fileExists(filepath.Join(dir, results.ExperimentFile)):
		if cfg != nil {
			return report.Written{}, fmt.Errorf("--explain recomputes a run directory's findings; %s is an experiment's, whose findings are computed by \"pgtrial experiment --explain\" (give one of its runs/NAME directories)", dir)
		}
		var rec experiment.Record
		if err := results.ReadExperiment(dir, &rec); err != nil {
			return report.Written{}, err
		}
		return writeExperimentReports(dir, &rec, stderr)
	case fileExists(filepath.Join(dir, results.RunFile)):
		return writeDoc(dir, func() (*report.Doc, error) { return report.RunReportWith(dir, cfg) })
	}
	return report.Written{}, fmt.Errorf("not a run or experiment directory: no %s or %s in %s", results.RunFile, results.ExperimentFile, dir)
}

// reportOfComparison compares A's runs with B's as `pgtrial compare` does
// and writes the comparison's report into --out.
func reportOfComparison(o *reportOptions, args []string, dash int) (report.Written, error) {
	aDirs, bDirs, err := compareSides(o.cmp, args, dash)
	if err != nil {
		return report.Written{}, err
	}
	rep, err := buildComparison(o.cmp, o.cmp.nameA, o.cmp.nameB, aDirs, bDirs)
	if err != nil {
		return report.Written{}, err
	}
	dir := o.out
	if dir == "" {
		dir = newCompareDir(time.Now())
	}
	for _, f := range []string{results.RunFile, results.ExperimentFile} {
		if fileExists(filepath.Join(dir, f)) {
			return report.Written{}, fmt.Errorf("--out %s holds %s: its report is its own; choose another directory for the comparison's", dir, f)
		}
	}
	if err := results.MakeDirs("report directory", dir); err != nil {
		return report.Written{}, err
	}
	return writeDoc(dir, func() (*report.Doc, error) { return report.CompareReport(rep), nil })
}

// newCompareDir is ./compare-YYYYMMDD-HHMMSS, with a -2, -3, … suffix when
// that exists already.
func newCompareDir(now time.Time) string {
	base := "compare-" + now.Format("20060102-150405")
	p := base
	for n := 2; n < 1000 && pathExists(p); n++ {
		p = base + "-" + strconv.Itoa(n)
	}
	return p
}

// writeRunReport writes the report of the run directory dir into it.
func writeRunReport(dir string) (report.Written, error) {
	return writeDoc(dir, func() (*report.Doc, error) { return report.RunReport(dir) })
}

// writeExperimentReports writes each run's report into its directory, then
// the experiment's (whose record is rec) into dir. A run whose directory is
// missing is skipped and so is a run whose report fails, each with a
// warning on stderr: the experiment's report still links to the rest.
func writeExperimentReports(dir string, rec *experiment.Record, stderr io.Writer) (report.Written, error) {
	seen := map[string]bool{}
	for _, rr := range rec.Runs {
		if rr.Dir == "" || seen[rr.Dir] {
			continue
		}
		seen[rr.Dir] = true
		if !filepath.IsLocal(rr.Dir) {
			fmt.Fprintf(stderr, "pgtrial: warning: run %d's directory %q is not inside %s: its report is not written\n", rr.N, rr.Dir, dir)
			continue
		}
		p := filepath.Join(dir, rr.Dir)
		if !fileExists(filepath.Join(p, results.RunFile)) {
			fmt.Fprintf(stderr, "pgtrial: warning: run %d's directory %s is missing (or has no %s): its report is not written\n", rr.N, p, results.RunFile)
			continue
		}
		if _, err := writeRunReport(p); err != nil {
			fmt.Fprintf(stderr, "pgtrial: warning: report of run %d not written: %v\n", rr.N, err)
		}
	}
	return writeDoc(dir, func() (*report.Doc, error) { return report.ExperimentReport(dir, rec) })
}

// writeDoc builds a report with build and writes it into dir. A panic of
// the builder or the writers is an error: a report must not crash the
// command that measured (its data is written already). Building fails as
// bad input (exit 1), writing with exit 2.
func writeDoc(dir string, build func() (*report.Doc, error)) (w report.Written, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &exitError{code: exitRunFail, err: fmt.Errorf("report of %s: internal error: %v", dir, r)}
		}
	}()
	doc, err := build()
	if err != nil {
		return w, fmt.Errorf("report of %s: %w", dir, err)
	}
	w, err = report.WriteFiles(dir, doc)
	if err != nil {
		return w, &exitError{code: exitRunFail, err: fmt.Errorf("write the report of %s: %w", dir, err)}
	}
	return w, nil
}

// endReport is the report a command writes at its end: write makes it; its
// path is printed on w as the last line, or a failure is a warning on
// stderr (the command's outcome and exit status stay what they were).
func endReport(w, stderr io.Writer, write func() (report.Written, error)) {
	wr, err := write()
	if err != nil {
		fmt.Fprintf(stderr, "pgtrial: warning: report not written: %v\n", err)
		return
	}
	printReportPath(w, wr.HTML)
}

// printReportPath prints "report: PATH" with the absolute path.
func printReportPath(w io.Writer, path string) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	fmt.Fprintf(w, "report: %s\n", path)
}

// openReport opens the HTML report in the browser, saying on stderr when
// none could: the report is written either way.
func openReport(path string, stderr io.Writer) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	err := openInBrowser(path)
	switch {
	case errors.Is(err, errNoBrowser):
		fmt.Fprintf(stderr, "pgtrial: no browser to open the report: $BROWSER is not set (or names no command found) and neither xdg-open nor open is on the PATH; open %s yourself\n", path)
	case err != nil:
		fmt.Fprintf(stderr, "pgtrial: warning: the browser did not open the report: %v; open %s yourself\n", err, path)
	}
}

var errNoBrowser = errors.New("no browser found")

// browserWait is how long openInBrowser waits for the browser's command to
// end: xdg-open and open return at once, a browser itself stays open.
const browserWait = 2 * time.Second

// openInBrowser runs the first command found of $BROWSER's (a list
// separated by ":", each a command with arguments in which "%s" stands for
// path, else path is its last argument), xdg-open and open, with path. No
// shell is involved: path is one argument.
func openInBrowser(path string) error {
	var cands [][]string
	for _, c := range strings.Split(os.Getenv("BROWSER"), string(os.PathListSeparator)) {
		words := strings.Fields(c)
		if len(words) == 0 {
			continue
		}
		placed := false
		for i := range words[1:] {
			if strings.Contains(words[i+1], "%s") {
				words[i+1] = strings.ReplaceAll(words[i+1], "%s", path)
				placed = true
			}
		}
		if !placed {
			words = append(words, path)
		}
		cands = append(cands, words)
	}
	cands = append(cands, []string{"xdg-open", path}, []string{"open", path})
	for _, c := range cands {
		exe, err := exec.LookPath(c[0])
		if err != nil {
			continue
		}
		cmd := exec.Command(exe, c[1:]...)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("%s: %w", c[0], err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("%s: %w", c[0], err)
			}
		case <-time.After(browserWait):
		}
		return nil
	}
	return errNoBrowser
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}

func pathExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
