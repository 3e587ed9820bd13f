package cli

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgbenchfmt"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// The pgbench command prints pgbench's own text and nothing of cobra's or pgtrial's.
func TestPgbenchCommand(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		code        int
		stdout      string
		stderr      string
		stderrStart string
	}{
		{name: "help", args: []string{"--help"}, stdout: pgbenchfmt.Usage()},
		{name: "help -?", args: []string{"-?"}, stdout: pgbenchfmt.Usage()},
		{name: "version", args: []string{"-V"}, stdout: "pgbench (PostgreSQL) 18.0 (pgtrial 1.2.3)\n"},
		{name: "builtin list", args: []string{"-b", "list"},
			stderr: "Available builtin scripts:\n      tpcb-like: <builtin: TPC-B (sort of)>\n  simple-update: <builtin: simple update>\n    select-only: <builtin: select only>\n\n"},
		{name: "show script", args: []string{"--show-script=se"},
			stderr: "-- select-only: <builtin: select only>\n\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\n"},
		{name: "bad value", args: []string{"-c", "three"}, code: 1,
			stderr: "pgbench: error: invalid value \"three\" for option -c/--client\n"},
		{name: "-h is the host, not help", args: []string{"-h", "localhost", "-p", "5432", "--bad"}, code: 1,
			stderr: "pgbench: unrecognized option '--bad'\npgbench: hint: Try \"pgbench --help\" for more information.\n"},
		{name: "help only first", args: []string{"-n", "--help"}, code: 1,
			stderr: "pgbench: unrecognized option '--help'\npgbench: hint: Try \"pgbench --help\" for more information.\n"},
		{name: "too many arguments", args: []string{"a", "b"}, code: 1,
			stderr: "pgbench: error: too many command-line arguments (first is \"b\")\npgbench: hint: Try \"pgbench --help\" for more information.\n"},
		{name: "no server", args: []string{"-S", "-c", "2", "-t", "5", "-h", "/nonexistent", "-p", "1", "db"}, code: 1,
			stderr: "pgbench: error: connection to server on socket \"/nonexistent/.s.PGSQL.1\" failed: No such file or directory\n" +
				"\tIs the server running locally and accepting connections on that socket?\n" +
				"pgbench: error: could not create connection for setup\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"pgbench"}, tt.args...)...)
			if code != tt.code || out != tt.stdout {
				t.Errorf("exit %d (want %d), stdout %q (want %q), stderr %q", code, tt.code, out, tt.stdout, errOut)
			}
			switch {
			case tt.stderrStart != "":
				if !strings.HasPrefix(errOut, tt.stderrStart) || strings.Count(errOut, "\n") != 1 {
					t.Errorf("stderr %q, want one line starting with %q", errOut, tt.stderrStart)
				}
			case errOut != tt.stderr:
				t.Errorf("stderr %q, want %q", errOut, tt.stderr)
			}
			if strings.Contains(errOut, "pgtrial: ") {
				t.Errorf("pgtrial's own error prefix leaked: %q", errOut)
			}
		})
	}
}

// TestPgbenchInit: pgbench -i builds pgbench's tables through the loader, with
// pgbench's messages, and (like pgbench) replaces tables it did not create.
func TestPgbenchInit(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, "create table pgbench_branches(x int)")

	code, out, errOut := runCLI(t, "pgbench", "-i", "-s", "2", "-q", "--foreign-keys", "-n", url)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"dropping old tables...\n", "creating tables...\n", "generating data (client-side)...\n",
		"creating primary keys...\n", "creating foreign keys...\n"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "vacuuming") {
		t.Errorf("-n: stderr mentions vacuuming:\n%s", errOut)
	}
	if !regexp.MustCompile(`(?m)^done in \d+\.\d\d s \(drop tables \d+\.\d\d s, create tables \d+\.\d\d s, client-side generate \d+\.\d\d s, primary keys \d+\.\d\d s, foreign keys \d+\.\d\d s\)\.$`).MatchString(errOut) {
		t.Errorf("no pgbench summary line:\n%s", errOut)
	}
	if n := countRows(t, url, "pgbench_accounts"); n != 200000 {
		t.Errorf("pgbench_accounts has %d rows, want 200000", n)
	}
	if n := countRows(t, url, "pgbench_branches"); n != 2 {
		t.Errorf("pgbench_branches has %d rows, want 2", n)
	}

	// -I with only vacuum steps under -n: nothing to do, but the server is checked.
	code, _, errOut = runCLI(t, "pgbench", "-i", "-I", "v", "-n", "-d", url)
	if code != 0 || errOut != "done in 0.00 s ().\n" {
		t.Errorf("-I v -n: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "pgbench", "-i", "-I", "v", "-n", "-h", "/nonexistent", "-p", "1")
	if code != 1 || !strings.HasSuffix(errOut, "pgbench: error: could not create connection for initialization\n") {
		t.Errorf("no server: exit %d, stderr %q", code, errOut)
	}
}

// TestPgbenchSkippedShare: a rate far above capacity with a latency limit
// skips transactions, and the report says how many and their share.
func TestPgbenchSkippedShare(t *testing.T) {
	url := pgtest.ConnString(t)
	if code, _, errOut := runCLI(t, "pgbench", "-i", "-s", "1", "-q", url); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	code, out, errOut := runCLI(t, "pgbench", "-S", "-n", "-c", "2", "-j", "2", "-T", "2", "-R", "1000000", "-L", "2", "--percentiles", url)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	m := regexp.MustCompile(`(?m)^number of transactions skipped: (\d+) \((\d+\.\d{3})%\)$`).FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("no skipped transactions reported:\n%s", out)
	}
	for _, want := range []string{"number of transactions above the 2.0 ms latency limit: ", "rate limit schedule lag: avg ",
		"latency percentiles (ms): p50 = ", "schedule lag percentiles (ms): p50 = "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestPgbenchRetriesLikePgbench: serialization failures with --max-tries=3
// are retried, failed and reported with the same lines as pgbench's (the
// counts depend on timing; the lines and their arithmetic must agree).
func TestPgbenchRetriesLikePgbench(t *testing.T) {
	url := pgtest.ConnString(t)
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "create table hot(id int primary key, v int); insert into hot values (1, 0)"); err != nil {
		t.Fatal(err)
	}
	file := t.TempDir() + "/ser.sql"
	body := "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT v FROM hot WHERE id = 1;\n\\sleep 1 ms\nUPDATE hot SET v = v + 1 WHERE id = 1;\nEND;\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-n", "-c", "4", "-t", "50", "--max-tries=3", "--failures-detailed", "-r", "-f", file, url}
	code, out, errOut := runCLI(t, append([]string{"pgbench"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	num := func(re string) int {
		m := regexp.MustCompile(re).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("report lacks /%s/:\n%s", re, out)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	processed := num(`(?m)^number of transactions actually processed: (\d+)/200$`)
	failed := num(`(?m)^number of failed transactions: (\d+) \(`)
	serialization := num(`(?m)^number of serialization failures: (\d+) \(`)
	retried := num(`(?m)^number of transactions retried: (\d+) \(`)
	retries := num(`(?m)^total number of retries: (\d+)$`)
	if processed+failed != 200 || serialization != failed || retried == 0 || retries < retried || retries > 2*retried {
		t.Errorf("processed %d + failed %d != 200, or serialization %d, retried %d, retries %d inconsistent:\n%s",
			processed, failed, serialization, retried, retries, out)
	}
	var v int
	c.QueryRow(context.Background(), "select v from hot").Scan(&v)
	if v != processed {
		t.Errorf("the row was updated %d times, want %d committed", v, processed)
	}

	// The same command with the real pgbench prints the same lines.
	pgb, err := exec.LookPath("pgbench")
	if err != nil {
		t.Log("no pgbench on PATH: line comparison skipped")
		return
	}
	c.Exec(context.Background(), "update hot set v = 0")
	ref, err := exec.Command(pgb, args...).Output()
	if err != nil {
		t.Fatalf("pgbench: %v", err)
	}
	shape := func(s string) []string {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			l = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`).ReplaceAllString(l, "N")
			if strings.HasPrefix(l, "pgbench (") {
				continue
			}
			lines = append(lines, strings.Join(strings.Fields(l), " "))
		}
		return lines
	}
	got, want := shape(out), shape(string(ref))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("report lines differ from pgbench's\npgtrial:\n%s\npgbench:\n%s", out, ref)
	}
}

// TestPgbenchRunDir: --run-dir writes a run directory whose summary agrees
// with pgbench's report, and pgbench's own output is unchanged.
func TestPgbenchRunDir(t *testing.T) {
	url := pgtest.ConnString(t)
	if code, _, errOut := runCLI(t, "pgbench", "-i", "-s", "1", "-q", url); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	dir := t.TempDir() + "/run"
	code, out, errOut := runCLI(t, "pgbench", "-S", "-n", "-c", "2", "-t", "300", "--run-dir", dir, url)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "number of transactions actually processed: 600/600\n") {
		t.Fatalf("report:\n%s", out)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary == nil || run.Summary.Total.Committed != 600 || run.Model.Clients != 2 || run.Target.ServerVersion == "" {
		t.Errorf("run.json: summary %+v, model %+v, target %+v", run.Summary, run.Model, run.Target)
	}
	rows, err := results.ReadTimeline(dir)
	if err != nil || len(rows) == 0 {
		t.Fatalf("timeline: %d rows, %v", len(rows), err)
	}
	var sum int64
	for _, r := range rows {
		sum += r.Committed
	}
	if sum != 600 {
		t.Errorf("timeline rows add up to %d committed, want 600", sum)
	}
}

// TestPgbenchRunDirCollectors: `pgtrial pgbench --run-dir` runs through the
// same orchestrator as `pgtrial run`: the run directory holds the
// collectors' files (waits, server, OS; statements with
// pg_stat_statements) beside run.json, the latency log, the timeline and
// the events, and pgbench's own output stays pgbench's.
func TestPgbenchRunDirCollectors(t *testing.T) {
	url := runTestDB(t)
	pgtest.Measure(t) // sustained load: not beside another measurement
	pgtest.Exec(t, url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errOut := runCLI(t, "pgbench", "-S", "-n", "-c", "2", "-T", "3", "--run-dir", dir, url)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	m := regexp.MustCompile(`(?m)^number of transactions actually processed: (\d+)$`).FindStringSubmatch(out)
	if m == nil || strings.Contains(out, "pgtrial:") || strings.Contains(out, "evidence") {
		t.Fatalf("not pgbench's report:\n%s", out)
	}
	processed, _ := strconv.ParseInt(m[1], 10, 64)

	run, _ := checkRunDir(t, dir)
	if run.Summary.Total.Committed != processed || processed == 0 {
		t.Errorf("run.json: %d committed, the report %d", run.Summary.Total.Committed, processed)
	}
	if run.Model.Clients != 2 || run.Model.DurationS != 3 || run.Workload.Name != "<builtin: select only>" {
		t.Errorf("run.json: model %+v, workload %+v", run.Model, run.Workload)
	}
	if strings.Join(run.Collectors, ",") != "waits,statements,server,os" {
		t.Errorf("collectors %v, warnings %v", run.Collectors, run.Warnings)
	}
	if run.Evidence == nil || run.Server == nil || run.Host == nil || len(run.Checks) == 0 {
		t.Errorf("run.json lacks evidence %v, server %v, host %v or checks %v", run.Evidence, run.Server != nil, run.Host, run.Checks)
	}
	for _, f := range []string{results.RunFile, results.LatencyFile, results.TimelineFile, results.EventsFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run directory: %v", err)
		}
	}
	for _, f := range []string{results.WaitsFile, results.StatementsFile, results.ServerFile, results.OSFile} {
		if _, rows := csvRows(t, dir, f); len(rows) == 0 {
			t.Errorf("%s has no rows", f)
		}
	}
}

// TestPgbenchWritesOnlyItsOwnFiles: without --run-dir, pgbench mode writes
// nothing of pgtrial's (no run directory, no ./pgtrial-runs), and with -l
// only pgbench's logs, pgbench_log.PID and .PID.T.
func TestPgbenchWritesOnlyItsOwnFiles(t *testing.T) {
	url := runTestDB(t)
	cwd := t.TempDir()
	t.Chdir(cwd)
	code, out, errOut := runCLI(t, "pgbench", "-S", "-n", "-c", "2", "-j", "2", "-t", "20", url)
	if code != 0 || errOut != "" || !strings.Contains(out, "number of transactions actually processed: 40/40\n") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	if ents, _ := os.ReadDir(cwd); len(ents) != 0 {
		t.Errorf("pgbench without --run-dir or -l wrote %v", ents)
	}
	code, _, errOut = runCLI(t, "pgbench", "-S", "-n", "-c", "2", "-j", "2", "-t", "20", "-l", url)
	if code != 0 || errOut != "" {
		t.Fatalf("-l: exit %d, stderr %q", code, errOut)
	}
	ents, _ := os.ReadDir(cwd)
	pid := strconv.Itoa(os.Getpid())
	lines := 0
	for _, e := range ents {
		if e.Name() != "pgbench_log."+pid && e.Name() != "pgbench_log."+pid+".1" {
			t.Errorf("-l wrote %s", e.Name())
			continue
		}
		data, err := os.ReadFile(filepath.Join(cwd, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(data), "\n")
	}
	if len(ents) != 2 || lines != 40 {
		t.Errorf("-l: %d files with %d lines, want 2 with 40", len(ents), lines)
	}
}

// TestPgbenchInterrupt: SIGINT to a running `pgtrial pgbench` cancels the
// run, prints pgbench's report of what was measured and its abort message
// (exit 2), and under --run-dir marks the run interrupted by SIGINT.
func TestPgbenchInterrupt(t *testing.T) {
	url := runTestDB(t)
	bin := pgtest.BuildPgtrial(t)
	dir := filepath.Join(t.TempDir(), "run")
	// Two intervals into the run.
	got := interruptRun(t, bin, dir, 0, "pgbench", "-S", "-n", "-c", "2", "-T", "30", "-P", "1", "--run-dir", dir, url)
	err := got.err
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitRunFail {
		t.Errorf("exit: %v, want status 2", err)
	}
	// stderr: -P's progress lines, then pgbench's abort message, nothing else.
	errText := got.stderr
	const abort = "pgbench: error: Run was aborted; the above results are incomplete.\n"
	progress := regexp.MustCompile(`^progress: \d+\.\d s, \d+\.\d tps, lat \d+\.\d{3} ms stddev \d+\.\d{3}, 0 failed\n$`)
	lines := strings.SplitAfter(strings.TrimSuffix(errText, abort), "\n")
	if !strings.HasSuffix(errText, abort) || len(lines) < 2 {
		t.Errorf("stderr:\n%s", errText)
	}
	for _, l := range lines[:len(lines)-1] {
		if !progress.MatchString(l) {
			t.Errorf("stderr line %q is not a progress line", l)
		}
	}
	if !regexp.MustCompile(`(?m)^number of transactions actually processed: [1-9]\d*$`).MatchString(got.stdout) {
		t.Errorf("no report of what was measured:\n%s", got.stdout)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Interrupted || run.InterruptReason != "SIGINT" || run.Summary == nil || run.Summary.Total.Committed == 0 {
		t.Errorf("run.json: interrupted %v, reason %q, summary %+v", run.Interrupted, run.InterruptReason, run.Summary)
	}
}

// TestPgbenchSegments: `pgtrial pgbench --segment i/2 --start-at T`, two
// processes' worth in one: each runs its half of the clients with the
// whole load's client ids in its -l log, both begin at T, together they
// make the one -R schedule, and only segment 0 watches the server.
func TestPgbenchSegments(t *testing.T) {
	url := pgtest.ConnString(t)
	if code, _, errOut := runCLI(t, "pgbench", "-i", "-s", "1", "-q", url); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-c", "4", "-j", "2", "-T", "1", "--segment", "0/3"}, "give -j a multiple of 3"},
		{[]string{"-c", "4", "-j", "2", "-t", "10", "--segment", "0/2"}, "--segment needs -T"},
		{[]string{"-c", "4", "-j", "2", "-T", "1", "--start-at", "2099-01-01T00:00:00Z"}, "--start-at goes with --segment"},
	} {
		code, out, errOut := runCLI(t, append([]string{"pgbench", "-S", "-n", url}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, "pgbench: error: ") || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and %q before anything runs", tc.args, code, out, errOut, tc.want)
		}
	}

	root := t.TempDir()
	at := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	type outcome struct {
		code        int
		out, errOut string
	}
	got := make([]outcome, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			seg := strconv.Itoa(i)
			o := &got[i]
			o.code, o.out, o.errOut = runCLI(t, "pgbench", "-S", "-n", "-c", "4", "-j", "2", "-R", "200", "-T", "2",
				"--segment", seg+"/2", "--start-at", at, "-l", "--log-prefix", filepath.Join(root, "log"+seg),
				"--run-dir", filepath.Join(root, "run"+seg), url)
		})
	}
	wg.Wait()
	lines := 0
	for i, o := range got {
		if o.code != 0 {
			t.Fatalf("segment %d: exit %d, stderr %q", i, o.code, o.errOut)
		}
		if !strings.Contains(o.out, "number of clients: 2\n") {
			t.Errorf("segment %d: report\n%s", i, o.out)
		}
		logs, _ := filepath.Glob(filepath.Join(root, "log"+strconv.Itoa(i)+".*"))
		clients := map[string]bool{}
		for _, f := range logs {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if l != "" {
					clients[strings.Fields(l)[0]] = true
					lines++
				}
			}
		}
		want := map[string]bool{strconv.Itoa(2 * i): true, strconv.Itoa(2*i + 1): true}
		if !maps.Equal(clients, want) {
			t.Errorf("segment %d logged clients %v, want %v (the whole load's ids)", i, clients, want)
		}
		run, err := results.Load(filepath.Join(root, "run"+strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		if s := run.Segment; s == nil || s.Index != i || s.Count != 2 || s.Clients != 4 || s.Rate != 200 || s.StartAt.Format(time.RFC3339Nano) != at {
			t.Errorf("segment %d: run.json's segment %+v", i, s)
		}
		if (run.Server != nil) != (i == 0) {
			t.Errorf("segment %d: server information %v; only segment 0 collects", i, run.Server != nil)
		}
	}
	// 200 tx/s for 2 s, Poisson: 400 ± 20 (sd); the two halves together.
	if lines < 320 || lines > 480 {
		t.Errorf("the segments logged %d transactions together, want ~400", lines)
	}
}
