package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// TestExplainFlag: --explain is on run, experiment, demo and report with
// the settings' names in the help; an unknown name is an error naming the
// valid ones, before anything connects; `pgtrial report RUN_DIR --explain`
// computes the run's findings again with the setting, and without it the
// report keeps the defaults.
func TestExplainFlag(t *testing.T) {
	for _, cmd := range []string{"run", "experiment", "demo", "report"} {
		code, out, _ := runCLI(t, cmd, "--help")
		if code != 0 || !strings.Contains(out, "--explain NAME=VALUE") || !strings.Contains(out, "alarm.util (share)") || !strings.Contains(out, "penalty (number)") {
			t.Errorf("%s --help (exit %d) does not list --explain and its names:\n%s", cmd, code, out)
		}
	}
	for _, args := range [][]string{
		{"run", "--closed", "--explain", "nope=1", "postgres://127.0.0.1:1/x"},
		{"demo", "--explain", "alarm.wa"},
		{"experiment", "--explain", "alarm.wa=200%", "x.yaml"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 1 || !strings.Contains(stderr, "explain setting") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		if args[2] == "nope=1" && !strings.Contains(stderr, "alarm.wa, alarm.b") {
			t.Errorf("%v: the error does not name the valid settings: %q", args, stderr)
		}
	}

	dir := t.TempDir()
	if _, err := resultstest.WriteRun(dir, resultstest.Options{Seed: 7}); err != nil {
		t.Fatal(err)
	}
	md := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if code, _, stderr := runCLI(t, "report", dir); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	if got := md(); !strings.Contains(got, "wa &gt; 10 % of CPU time") && !strings.Contains(got, "wa > 10 % of CPU time") {
		t.Errorf("the report without --explain lacks the default iowait threshold:\n%s", got)
	}
	// The synthetic run's wa is 0–2 %: at 1 % the alarm holds in about half
	// of the intervals.
	if code, _, stderr := runCLI(t, "report", "--explain", "alarm.wa=1%", "--explain", "pareto=50%", dir); code != 0 {
		t.Fatalf("report --explain: exit %d: %s", code, stderr)
	}
	got := md()
	if !strings.Contains(got, "1 % of CPU time") || !strings.Contains(got, "make 50 % of active samples") {
		t.Errorf("the report with --explain alarm.wa=1%% pareto=50%% does not use them:\n%s", got)
	}
	if strings.Contains(got, "iowait | wa > 1 % of CPU time | 1.0 % | 0 % (no alarm)") {
		t.Errorf("iowait at 1 %% never held: %s", got)
	}
	if code, _, stderr := runCLI(t, "report", "--explain", "nope=1", dir); code != 1 || !strings.Contains(stderr, "unknown name \"nope\"") {
		t.Errorf("report --explain nope=1: exit %d, %q", code, stderr)
	}
}

// TestRunExplainFindings: a real run with the collectors and --explain
// keeps the setting in run.json's findings and its alarms use it; the
// summary prints the alarms, the associations (or why they are missing)
// and the Pareto.
func TestRunExplainFindings(t *testing.T) {
	url := runTestDB(t)
	t.Chdir(t.TempDir())
	out, _ := mustRun(t, 0, "run", url, "--closed", "-T", "12s", "--warmup", "0s", "-c", "3", "-b", "tpcb-like",
		"--explain", "alarm.r=0.5", "--no-report", "--quiet")
	t.Logf("\n%s", out)
	run, err := results.Load(runDirFrom(t, out))
	if err != nil {
		t.Fatal(err)
	}
	f := run.Findings
	if f == nil || len(f.Settings) != 1 || f.Settings[0] != "alarm.r=0.5" {
		t.Fatalf("findings' settings: %+v", f)
	}
	if f.Alarms == nil {
		t.Fatalf("no alarms: %v", f.Warnings)
	}
	for _, it := range f.Alarms.Items {
		if it.Name == "runnable" && it.Missing == "" && it.Threshold != 0.5*float64(run.Host.CPUs) {
			t.Errorf("runnable's threshold %v, want 0.5 × %d CPUs", it.Threshold, run.Host.CPUs)
		}
	}
	if f.Pareto == nil || f.Pareto.WaitsMissing != "" {
		t.Errorf("no Pareto of waits: %+v %v", f.Pareto, f.Warnings)
	}
	if f.Associations == nil && !strings.Contains(strings.Join(f.Warnings, "\n"), "associations: missing") {
		t.Errorf("no associations and no warning why: %v", f.Warnings)
	}
	for _, want := range []string{"OS alarms (share of the", "r > 0.5 × CPUs", "Pareto: the wait events"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
}
