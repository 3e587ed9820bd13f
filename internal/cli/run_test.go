package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/pgtest/pgbenchdb"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
)

// runTestDB is a fresh database with the pgbench tables at scale 1.
func runTestDB(t *testing.T) string {
	t.Helper()
	url, _ := pgbenchdb.Scale1(t)
	return url
}

// runDirFrom finds "run directory: PATH" in the text summary.
func runDirFrom(t *testing.T, stdout string) string {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		if p, ok := strings.CutPrefix(line, "run directory: "); ok {
			return p
		}
	}
	t.Fatalf("no run directory line in:\n%s", stdout)
	return ""
}

// checkRunDir loads a finished run directory and checks what every run must
// have: run.json complete, the summary equal to the sum of the measured
// timeline rows, a readable latency log with the committed transactions.
func checkRunDir(t *testing.T, dir string) (*results.Run, []results.TimelineRow) {
	t.Helper()
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Schema != results.Schema || run.Tool.Name != "pgtrial" || run.Tool.Go != runtime.Version() || len(run.CommandLine) == 0 {
		t.Errorf("run.json head: %+v %+v", run.Schema, run.Tool)
	}
	if run.EndedAt.IsZero() || run.Summary == nil {
		t.Fatalf("run.json not finished: ended_at %v, summary %v", run.EndedAt, run.Summary)
	}
	tg := run.Target
	if tg.Host == "" || tg.Port == 0 || tg.Database == "" || tg.User == "" || tg.ServerVersion == "" {
		t.Errorf("target: %+v", tg)
	}
	for _, s := range []string{"shared_buffers", "max_connections", "synchronous_commit", "fsync", "full_page_writes", "checkpoint_timeout", "max_wal_size", "work_mem"} {
		if tg.Settings[s] == "" {
			t.Errorf("target setting %s missing: %v", s, tg.Settings)
		}
	}
	if run.Workload.Name == "" || len(run.Workload.Scripts) == 0 || run.Workload.Scale != 1 {
		t.Errorf("workload: %+v", run.Workload)
	}
	rows, err := results.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	var measured int64
	for _, r := range rows {
		if r.Phase == results.PhaseMeasure {
			measured += r.Committed
		}
	}
	if got := run.Summary.Total.Committed; got != measured {
		t.Errorf("summary committed %d, measured timeline rows sum to %d", got, measured)
	}
	entries, err := results.ReadLatency(dir)
	if err != nil {
		t.Fatal(err)
	}
	var logged int64
	for _, e := range entries {
		if e.Tag == "total/response" {
			logged += e.Hist.TotalCount()
		}
	}
	var all int64
	for _, r := range rows {
		all += r.Committed + r.Unstarted + r.Unfinished // the cut's lower bounds are in the histograms
	}
	if len(entries) == 0 || logged != all {
		t.Errorf("latency.hlog: %d entries, total/response counts %d, timeline committed + unstarted + unfinished %d", len(entries), logged, all)
	}
	return run, rows
}

// TestRunClosed: a closed run of select-only, in the default run directory
// (no collectors: TestRunCollectors tests them).
func TestRunClosed(t *testing.T) {
	url := runTestDB(t)
	t.Chdir(t.TempDir())
	out, errOut := mustRun(t, 0, "run", url, "--closed", "-T", "2s", "--warmup", "0s", "-c", "2", "-b", "select-only", "--no-collect")
	dir := runDirFrom(t, out)
	if filepath.Dir(dir) != "pgtrial-runs" || !strings.HasSuffix(dir, "-select-only") {
		t.Errorf("default run directory %q, want pgtrial-runs/<time>-select-only", dir)
	}
	run, rows := checkRunDir(t, dir)
	s := run.Summary
	if s.Total.Committed <= 0 || s.Total.TPS <= 0 || s.Total.Response.P99 <= 0 || s.Duration < 1.5 || s.Duration > 2.5 {
		t.Errorf("summary: committed %d, tps %.1f, p99 %.3f ms, duration %.3f s", s.Total.Committed, s.Total.TPS, s.Total.Response.P99, s.Duration)
	}
	if s.TargetRate != 0 || s.Total.Lag.Max != 0 {
		t.Errorf("closed model: target %v, lag max %v; want 0", s.TargetRate, s.Total.Lag.Max)
	}
	if m := run.Model; m.Kind != results.ModelClosed || m.Clients != 2 || m.Threads != min(2, runtime.NumCPU()) || m.Rate != 0 || m.DurationS != 2 {
		t.Errorf("model: %+v", m)
	}
	if run.Interrupted || run.Aborted || len(run.Warnings) != 0 {
		t.Errorf("interrupted %v, aborted %v, warnings %v", run.Interrupted, run.Aborted, run.Warnings)
	}
	if len(run.Phases) != 1 || run.Phases[0].Name != results.PhaseMeasure || !run.Phases[0].End.After(run.Phases[0].Start) {
		t.Errorf("phases: %+v", run.Phases)
	}
	if len(rows) < 2 {
		t.Errorf("%d timeline rows for 2 s at 1 s intervals", len(rows))
	}
	for _, r := range rows {
		if r.Phase != results.PhaseMeasure {
			t.Errorf("row at %.3f s has phase %q without a warm-up", r.Elapsed, r.Phase)
		}
	}
	for _, want := range []string{"workload:  select-only (scale 1)", "closed model", "total: ", "response", "Little's law", "--rate"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// Not a terminal: the status is one plain line per interval.
	if n := strings.Count(errOut, "progress: "); n < 2 || strings.Contains(errOut, "\r") {
		t.Errorf("%d progress lines on stderr:\n%s", n, errOut)
	}
	events, err := results.ReadEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range events {
		kinds[e.Kind]++
		if e.Kind == "config" && e.Data["random_seed"] == nil {
			t.Errorf("config event without the seed: %+v", e)
		}
	}
	if kinds[results.EventPhase] != 1 || kinds["config"] != 1 {
		t.Errorf("events: %+v", events)
	}
}

// TestRunOpenJSON: an open run with a warm-up, summary as JSON.
func TestRunOpenJSON(t *testing.T) {
	url := runTestDB(t)
	dir := filepath.Join(t.TempDir(), "open")
	out, _ := mustRun(t, 0, "run", url, "--rate", "200", "-T", "3s", "--warmup", "1s", "-c", "2", "-b", "select-only",
		"--random-seed", "7", "--json", "--quiet", "--run-dir", dir, "-r")
	var js struct {
		Schema string `json:"schema"`
		results.Summary
		Evidence *results.Evidence `json:"evidence"`
		Checks   []results.Check   `json:"checks"`
		RunDir   string            `json:"run_dir"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&js); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, out)
	}
	if dec.More() {
		t.Errorf("more than the JSON on stdout:\n%s", out)
	}
	if js.Schema != "pgtrial.run-summary/v1" {
		t.Errorf("--json's schema %q, want pgtrial.run-summary/v1", js.Schema)
	}
	if js.Evidence == nil || js.Evidence.To.IsZero() {
		t.Errorf("JSON without the evidence of the measured window: %+v", js.Evidence)
	}
	if len(js.Checks) < 5 {
		t.Errorf("JSON without the checklist: %+v", js.Checks)
	}
	if js.RunDir != dir || js.TargetRate != 200 || js.Total.Committed == 0 || len(js.Scripts) != 1 || len(js.Scripts[0].Commands) != 2 {
		t.Errorf("JSON: run_dir %q, target %v, committed %d, scripts %+v", js.RunDir, js.TargetRate, js.Total.Committed, js.Scripts)
	}
	if math.Abs(js.AchievedRate-200)/200 > 0.10 {
		t.Errorf("achieved %.1f tx/s, want 200 ± 10 %%", js.AchievedRate)
	}
	if js.Duration < 2.5 || js.Duration > 3.5 {
		t.Errorf("measured %.3f s, want about 3 s (warm-up excluded)", js.Duration)
	}

	run, rows := checkRunDir(t, dir)
	if run.Summary.Total.Committed != js.Total.Committed {
		t.Errorf("run.json summary %d committed, --json %d", run.Summary.Total.Committed, js.Total.Committed)
	}
	if m := run.Model; m.Kind != results.ModelOpen || m.Rate != 200 || m.Arrival != "poisson" || m.Overload != "queue" {
		t.Errorf("model: %+v", m)
	}
	if len(run.Phases) != 2 || run.Phases[0].Name != results.PhaseWarmup || run.Phases[1].Name != results.PhaseMeasure {
		t.Fatalf("phases: %+v", run.Phases)
	}
	warm := run.Phases[0]
	if d := warm.End.Sub(warm.Start); d < time.Second || d > 1500*time.Millisecond {
		t.Errorf("warm-up lasted %v, want 1 s", d)
	}
	var warmRows, warmCommitted, allCommitted int64
	for _, r := range rows {
		allCommitted += r.Committed
		if r.Phase == results.PhaseWarmup {
			warmRows++
			warmCommitted += r.Committed
			if r.Time.After(warm.End) {
				t.Errorf("warm-up row ends at %v, after the warm-up (%v)", r.Time, warm.End)
			}
		} else if r.Time.Before(warm.End) || r.Time.Equal(warm.End) {
			t.Errorf("measure row ends at %v, within the warm-up", r.Time)
		}
	}
	if warmRows == 0 || warmCommitted == 0 || js.Total.Committed != allCommitted-warmCommitted {
		t.Errorf("%d warm-up rows with %d committed; summary %d of %d committed", warmRows, warmCommitted, js.Total.Committed, allCommitted)
	}
}

// TestRunBadInput: each bad input is exit 1 with a clear message, and no run
// directory is left behind.
func TestRunBadInput(t *testing.T) {
	url := pgtest.WithPassword(t, pgtest.ConnString(t)) // no pgbench tables
	tmp := t.TempDir()
	t.Chdir(tmp)
	script := filepath.Join(tmp, "s.sql")
	if err := os.WriteFile(script, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"-T", "1s"}, []string{"choose the load model", "--rate N", "--closed", "Little's law"}},
		{[]string{"--rate", "10", "--closed"}, []string{"exclude each other"}},
		{[]string{"--closed", "-T", "abc"}, []string{`invalid duration "abc"`, "90s"}},
		{[]string{"--closed", "-T", "-5s"}, []string{"must not be negative"}},
		{[]string{"--closed", "-T", "0s"}, []string{"invalid --duration"}},
		{[]string{"--closed", "-T", "1s", "-t", "10"}, []string{"not both"}},
		{[]string{"--rate", "0"}, []string{"invalid --rate"}},
		{[]string{"--closed", "-b", "nosuch"}, []string{`no built-in script "nosuch"`, "tpcb-like, simple-update, select-only"}},
		{[]string{"--closed", "-b", "s"}, []string{"ambiguous"}},
		{[]string{"--closed", "-b", "select-only@x"}, []string{"invalid weight"}},
		{[]string{"--closed", "-b", "select-only@0"}, []string{"add up to 0"}},
		{[]string{"--closed", "-f", filepath.Join(tmp, "missing.sql")}, []string{"missing.sql", "no such file"}},
		{[]string{"--closed", "-M", "fast"}, []string{`invalid --protocol "fast"`}},
		{[]string{"--closed", "--arrival", "uniform"}, []string{"applies to the open model"}},
		{[]string{"--rate", "10", "--arrival", "burst"}, []string{`invalid --arrival "burst"`}},
		{[]string{"--closed", "-D", "1x=3"}, []string{"not a valid variable name"}},
		{[]string{"--closed", "-c", "0"}, []string{"invalid --clients 0"}},
		{[]string{"--closed", "--random-seed", "abc"}, []string{"invalid --random-seed"}},
		// Out of range: refused (it silently became 2^64−1 on the old code).
		{[]string{"--closed", "--random-seed", "18446744073709551616"}, []string{`invalid --random-seed "18446744073709551616": larger than 18446744073709551615`}},
		{[]string{"--closed", "--random-seed", "99999999999999999999"}, []string{`invalid --random-seed "99999999999999999999": larger than 18446744073709551615`}},
		{[]string{"--closed", "--random-seed", "-1"}, []string{`invalid --random-seed "-1": expecting an unsigned integer`}},
		{[]string{"--closed", "-T", "1s", "-b", "select-only"}, []string{`database "`, "no pgbench_branches", "pgtrial init"}},
		{[]string{"--closed", "-T", "1s", "-b", "tpcb@2", "-f", script}, []string{"no pgbench_branches", "pgtrial init"}},
	}
	for _, tt := range tests {
		for _, runDir := range []string{"", filepath.Join(tmp, "rd")} {
			args := append([]string{"run", url}, tt.args...)
			if runDir != "" {
				args = append(args, "--run-dir", runDir)
			}
			code, out, errOut := runCLI(t, args...)
			if code != exitBadInput {
				t.Errorf("%v: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", tt.args, code, out, errOut)
				continue
			}
			// Bad flags fail before the target is resolved; a bad database after
			// the target line.
			if !strings.HasPrefix(errOut, "pgtrial: error: ") &&
				!(strings.HasPrefix(errOut, "pgtrial: target postgres://postgres@127.0.0.1:") && strings.Contains(errOut, "(from the argument)\npgtrial: error: ")) {
				t.Errorf("%v: stderr %q", tt.args, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("%v: stderr %q lacks %q", tt.args, errOut, w)
				}
			}
			if strings.Contains(out+errOut, pgtest.Password) {
				t.Errorf("%v: the password is in the output:\n%s%s", tt.args, out, errOut)
			}
		}
	}
	ents, _ := os.ReadDir(tmp)
	for _, e := range ents {
		if e.Name() != "s.sql" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	// A script file and no tables needed: the same database runs.
	out, _ := mustRun(t, 0, "run", url, "--closed", "-T", "300ms", "--warmup", "0s", "-c", "1", "-f", script+"@3", "--quiet", "--run-dir", filepath.Join(tmp, "ok"))
	if !strings.Contains(out, "workload:  s on ") {
		t.Errorf("summary:\n%s", out)
	}
	run, err := results.Load(filepath.Join(tmp, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Workload.Scale != 0 || len(run.Workload.Scripts) != 1 || run.Workload.Scripts[0].Weight != 3 || run.Summary.Total.Committed == 0 {
		t.Errorf("workload %+v, summary %+v", run.Workload, run.Summary.Total)
	}
}

func TestRunDurationFlag(t *testing.T) {
	tests := []struct {
		in   string
		unit time.Duration
		want time.Duration
		bad  bool
	}{
		{"90s", time.Second, 90 * time.Second, false},
		{"1m30s", time.Second, 90 * time.Second, false},
		{"60", time.Second, 60 * time.Second, false},
		{"50", time.Millisecond, 50 * time.Millisecond, false},
		{"2.5", time.Millisecond, 2500 * time.Microsecond, false},
		{"0", time.Second, 0, false},
		{"abc", time.Second, 0, true},
		{"-1s", time.Second, 0, true},
		{"NaN", time.Second, 0, true},
	}
	for _, tt := range tests {
		f := durationFlag{unit: tt.unit}
		err := f.Set(tt.in)
		if (err != nil) != tt.bad || (!tt.bad && f.d != tt.want) {
			t.Errorf("%q (unit %v): %v, %v; want %v, bad %v", tt.in, tt.unit, f.d, err, tt.want, tt.bad)
		}
	}
}

// TestRunInterrupt: SIGINT to a running `pgtrial run` cancels it quickly,
// writes everything so far and marks the run interrupted (exit 2).
func TestRunInterrupt(t *testing.T) {
	url := pgtest.WithPassword(t, runTestDB(t))
	bin := pgtest.BuildPgtrial(t)
	dir := filepath.Join(t.TempDir(), "run")
	// About 3 s into the run, and at least two intervals written.
	got := interruptRun(t, bin, dir, 3*time.Second, "run", url, "--rate", "100", "-T", "30s", "--warmup", "0s", "-c", "2", "-b", "select-only", "--run-dir", dir)
	if got.took > 5*time.Second {
		t.Errorf("exit took %v after SIGINT", got.took)
	}
	err := got.err
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitRunFail {
		t.Errorf("exit: %v, want status 2\nstderr:\n%s", err, got.stderr)
	}
	run, rows := checkRunDir(t, dir)
	if !run.Interrupted || run.InterruptReason != "SIGINT" {
		t.Errorf("interrupted %v, reason %q", run.Interrupted, run.InterruptReason)
	}
	if len(rows) < 2 {
		t.Errorf("%d timeline rows", len(rows))
	}
	if !strings.Contains(got.stdout, "INTERRUPTED by SIGINT") || !strings.Contains(got.stderr, "pgtrial: error: run interrupted by SIGINT") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", got.stdout, got.stderr)
	}
	if !strings.Contains(strings.Join(run.CommandLine, " "), "postgres://postgres@") {
		t.Errorf("command line %q: want the URL without its password", run.CommandLine)
	}
	assertNoPassword(t, dir, got.stdout+got.stderr)
	events, err := results.ReadEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	if last := events[len(events)-1]; last.Kind != results.EventInterrupt || last.Data["reason"] != "SIGINT" {
		t.Errorf("last event %+v", last)
	}
}

// assertNoPassword checks a run directory's files and the output.
func assertNoPassword(t *testing.T, dir, output string) {
	t.Helper()
	if strings.Contains(output, pgtest.Password) {
		t.Errorf("the password is in the output:\n%s", output)
	}
	for _, name := range []string{results.RunFile, results.TimelineFile, results.EventsFile, results.LatencyFile} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(pgtest.Password)) {
			t.Errorf("the password is in %s", name)
		}
	}
}

// TestRunTxlog: --txlog writes every transaction in pgbench's -l format,
// one file per thread, in the run directory.
func TestRunTxlog(t *testing.T) {
	url := runTestDB(t)
	t.Chdir(t.TempDir())
	out, _ := mustRun(t, 0, "run", url, "--rate", "300", "-T", "1s", "--warmup", "0s", "-c", "2", "-j", "2", "-b", "select-only", "--txlog")
	dir := runDirFrom(t, out)
	run, _ := checkRunDir(t, dir)
	files, err := filepath.Glob(filepath.Join(dir, "txlog", "pgtrial_log.*"))
	if err != nil || len(files) != 2 {
		t.Fatalf("txlog files %v (%v), want 2", files, err)
	}
	line := regexp.MustCompile(`^[01] \d+ \d+ 0 \d+ \d+ \d+$`) // client, tx, µs, script, epoch, µs, lag
	var n int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if !line.MatchString(l) {
				t.Errorf("%s: line %q is not pgbench's -l format under a rate", f, l)
			}
			n++
		}
	}
	if n != run.Summary.Total.Committed {
		t.Errorf("%d logged transactions, %d committed", n, run.Summary.Total.Committed)
	}
}

// runSeed takes every 64-bit seed and refuses the rest; pgbench's front end
// keeps pgbench's saturation (prng.ParseSeed).
func TestRunSeedRange(t *testing.T) {
	if s, err := runSeed("18446744073709551615"); err != nil || s.Value != 1<<64-1 || !s.Explicit {
		t.Errorf("the largest seed: %+v, %v", s, err)
	}
	if s, err := runSeed("0"); err != nil || s.Value != 0 {
		t.Errorf("0: %+v, %v", s, err)
	}
	for _, bad := range []string{"18446744073709551616", "99999999999999999999", "-1", " 7", "7 ", "+7"} {
		if s, err := runSeed(bad); err == nil {
			t.Errorf("%q: accepted as %d", bad, s.Value)
		}
	}
	if s, err := prng.ParseSeed("99999999999999999999"); err != nil || s.Value != 1<<64-1 {
		t.Errorf("pgbench's parse: %+v, %v (pgbench 15 logs \"setting random seed to 18446744073709551615\")", s, err)
	}
}

// TestRunNothingCommitted: with --continue-on-error and a script that
// always fails, the run is not a success: exit 2 with a message saying
// nothing committed, and the checklist's failed_share fails (it once
// passed every item and exited 0).
func TestRunNothingCommitted(t *testing.T) {
	url := pgtest.ConnString(t)
	tmp := t.TempDir()
	script := filepath.Join(tmp, "fail.sql")
	if err := os.WriteFile(script, []byte("SELECT 1/0;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	out, errOut := mustRun(t, 2, "run", url, "--closed", "-T", "1s", "--warmup", "0s", "-c", "1", "-f", script,
		"--continue-on-error", "--quiet", "--run-dir", dir)
	if !strings.Contains(errOut, "nothing committed: ") || !strings.Contains(errOut, "the run measured no transaction") {
		t.Errorf("stderr lacks the reason:\n%s", errOut)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary == nil || run.Summary.Total.Committed != 0 || run.Summary.Total.Failed == 0 {
		t.Fatalf("summary %+v", run.Summary)
	}
	found := false
	for _, c := range run.Checks {
		if c.Name == checks.ItemFailed {
			found = true
			if c.Status != checks.Fail || !strings.Contains(c.Message, "nothing committed") {
				t.Errorf("failed_share: %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("no failed_share item: %+v", run.Checks)
	}
	if !strings.Contains(out, "nothing committed") {
		t.Errorf("the printed checklist does not say it:\n%s", out)
	}
}
