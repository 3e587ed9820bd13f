package trial

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/pgbenchfmt"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestRedactedURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"postgres://u:secret@db.example:5433/bench", "postgres://u@db.example:5433/bench"},
		{"postgresql://u@h/db?password=secret", "postgresql://u@h/db"},
		// Shell-special characters: quoted, the password still gone.
		{"postgres://u:secret@h/db?sslmode=disable&password=secret", "'postgres://u@h/db?sslmode=disable'"},
		{"host=/tmp dbname=bench password=secret", "'host=/tmp dbname=bench'"},
		{"it's", `'it'\''s'`},
	} {
		if got := RedactedURL(tt.in); got != tt.want {
			t.Errorf("RedactedURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Inspect reads the target's address, version and settings; with
// needsPgbench a database without pgbench's tables is an error that says
// what to do, without the password.
func TestInspect(t *testing.T) {
	url := pgtest.WithPassword(t, pgtest.ConnString(t))
	ctx := context.Background()
	tgt, scale, err := Inspect(ctx, url, false)
	if err != nil {
		t.Fatal(err)
	}
	if scale != 0 || tgt.Host == "" || tgt.Port == 0 || tgt.Database == "" || tgt.User != "postgres" || tgt.ServerVersion == "" {
		t.Errorf("target %+v, scale %d", tgt, scale)
	}
	for _, s := range []string{"max_connections", "shared_buffers", "synchronous_commit", "server_version_num"} {
		if tgt.Settings[s] == "" {
			t.Errorf("setting %s missing: %v", s, tgt.Settings)
		}
	}

	_, _, err = Inspect(ctx, url, true)
	if err == nil || !strings.Contains(err.Error(), "has no pgbench_branches") || !strings.Contains(err.Error(), "pgtrial init -s SCALE --url 'postgres://postgres@") {
		t.Errorf("no pgbench tables: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), pgtest.Password) {
		t.Errorf("the password is in the error: %v", err)
	}
	execSQL(t, url, "CREATE TABLE pgbench_branches (bid int)", "INSERT INTO pgbench_branches SELECT generate_series(1, 3)")
	if _, scale, err = Inspect(ctx, url, true); err != nil || scale != 3 {
		t.Errorf("3 branches: scale %d, %v", scale, err)
	}

	if _, _, err = Inspect(ctx, "postgres://postgres@127.0.0.1:1/x?connect_timeout=5", false); err == nil ||
		!strings.HasPrefix(err.Error(), "connection to server at \"127.0.0.1\", port 1 failed: Connection refused\nhint: is a server running at 127.0.0.1, port 1?") {
		t.Errorf("no server: %v", err)
	}
	// No such database, with sslmode=prefer (pgconn's TLS attempt is refused
	// first): the server's error comes first, with its SQLSTATE, and the hint fits.
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	u.Path, u.RawQuery = "/no_such_db", ""
	_, _, err = Inspect(ctx, u.String(), false)
	want := fmt.Sprintf("connection to server at \"127.0.0.1\", port %s failed: FATAL: database \"no_such_db\" does not exist (SQLSTATE 3D000)\nhint: create database \"no_such_db\" (createdb no_such_db", u.Port())
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "tls") || strings.Contains(err.Error(), pgtest.Password) {
		t.Errorf("no database:\n%v\nwant it to start with\n%s", err, want)
	}
	if _, _, err = Inspect(ctx, "host=h port=notaport", false); err == nil || !strings.Contains(err.Error(), "invalid connection string") {
		t.Errorf("bad connection string: %v", err)
	}
}

func execSQL(t *testing.T, url string, sqls ...string) {
	t.Helper()
	c, err := pgconn.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	for _, s := range sqls {
		if _, err := c.Exec(context.Background(), s).ReadAll(); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// testScript writes a pgbench-language script and loads it.
func testScript(t *testing.T, name, body string) Script {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadScript(false, path, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := PrepareScripts([]Script{s}, script.Simple); err != nil {
		t.Fatal(err)
	}
	return s
}

// A short closed run into a run directory: the files are there, run.json
// says what ran and what was measured, the timeline adds up to the
// summary, the command line has no password.
func TestRunIntoDir(t *testing.T) {
	url := pgtest.WithPassword(t, pgtest.ConnString(t))
	tgt, _, err := Inspect(context.Background(), url, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	var mu sync.Mutex
	var out []string
	c := &Config{
		ConnString:  url,
		Target:      tgt,
		Scripts:     []Script{testScript(t, "select1.sql", "SELECT 1;\n")},
		Mode:        script.Simple,
		Clients:     2,
		Threads:     1,
		Duration:    time.Second,
		Interval:    250 * time.Millisecond,
		MaxTries:    1,
		Seed:        prng.Seed{Value: 42},
		Collect:     Collect{Kinds: []string{"server"}},
		Dir:         dir,
		Tool:        results.Tool{Name: "pgtrial", Version: "test"},
		CommandLine: []string{"pgtrial", "run", url},
		Out:         func(line string) { mu.Lock(); out = append(out, line); mu.Unlock() },
	}
	r, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Measured || r.Interrupted || r.Aborted != 0 || r.Err != nil || r.Dir != dir {
		t.Errorf("result: measured %v, interrupted %v, aborted %d, err %v, dir %q", r.Measured, r.Interrupted, r.Aborted, r.Err, r.Dir)
	}
	committed := r.Summary.Total.Committed
	if committed == 0 || r.Measure == nil || r.Measure.Total.Stats.Count != committed {
		t.Fatalf("summary %d committed, measured interval %+v", committed, r.Measure)
	}
	if e := r.Engine; e == nil || !e.BenchStart.After(e.Start) || !e.End.After(e.BenchStart) || e.End.Sub(e.Start) < time.Second { // -T counts from the start, as pgbench's
		t.Errorf("engine result %+v", r.Engine)
	}
	for _, f := range []string{results.RunFile, results.LatencyFile, results.TimelineFile, results.EventsFile, results.ServerFile} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, f := range []string{results.WaitsFile, results.OSFile, "txlog"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s written, its collector or log was not asked for", f)
		}
	}

	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := run.Model
	if m.Kind != results.ModelClosed || m.Clients != 2 || m.Threads != 1 || m.DurationS != 1 || m.Transactions != 0 {
		t.Errorf("model %+v", m)
	}
	if run.Workload.Name != "select1" || len(run.Workload.Scripts) != 1 || run.Workload.Scale != 0 {
		t.Errorf("workload %+v", run.Workload)
	}
	if run.Summary == nil || run.Summary.Total.Committed != committed || !run.EndedAt.After(run.StartedAt) || run.Interrupted || run.Aborted {
		t.Errorf("run.json: summary %+v, %v → %v, interrupted %v, aborted %v", run.Summary, run.StartedAt, run.EndedAt, run.Interrupted, run.Aborted)
	}
	if len(run.Phases) != 1 || run.Phases[0].Name != results.PhaseMeasure {
		t.Errorf("phases %+v", run.Phases)
	}
	if strings.Join(run.Collectors, ",") != "server" || run.Server == nil || run.Evidence == nil || len(run.Checks) == 0 {
		t.Errorf("collectors %v, server %v, evidence %v, checks %d", run.Collectors, run.Server != nil, run.Evidence != nil, len(run.Checks))
	}
	if run.Target.ServerVersion != tgt.ServerVersion || run.Tool.Version != "test" {
		t.Errorf("target %+v, tool %+v", run.Target, run.Tool)
	}
	if len(run.CommandLine) != 3 || strings.Contains(run.CommandLine[2], pgtest.Password) {
		t.Errorf("command line %q", run.CommandLine)
	}
	rows, err := results.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, row := range rows {
		sum += row.Committed
	}
	if sum != committed || len(rows) < 4 {
		t.Errorf("%d timeline rows add up to %d committed, the summary %d", len(rows), sum, committed)
	}
	events, err := results.ReadEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 || events[0].Kind != "config" || events[0].Data["reconnect"] != true || events[0].Data["random_seed"] != "42" {
		t.Errorf("first event %+v", events)
	}
	for _, f := range []string{results.RunFile, results.EventsFile} {
		if data, _ := os.ReadFile(filepath.Join(dir, f)); strings.Contains(string(data), pgtest.Password) {
			t.Errorf("the password is in %s", f)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(out) != 0 {
		t.Errorf("messages: %q", out)
	}

	// The same directory again: refused, and the run in it untouched.
	if _, err := Run(context.Background(), c); err == nil || !strings.Contains(err.Error(), "already holds a run") {
		t.Errorf("second run into %s: %v", dir, err)
	}
}

// testLog is an engine.Logger that keeps the messages.
type testLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *testLog) add(s string)   { l.mu.Lock(); l.lines = append(l.lines, s); l.mu.Unlock() }
func (l *testLog) Error(m string) { l.add("error: " + m) }
func (l *testLog) Info(m string)  { l.add("info: " + m) }
func (l *testLog) Debug(m string) { l.add("debug: " + m) }

// Without Dir nothing is written but Log's files; under Pgbench :scale is
// Config.Scale as it is (0 here; pgtrial's own runs make it 1), OnStart
// comes before the first interval, and the engine's messages go to
// Pgbench.Log.
func TestRunWithoutDirPgbench(t *testing.T) {
	url := pgtest.ConnString(t)
	cwd := t.TempDir()
	t.Chdir(cwd)
	logDir := t.TempDir()
	// Scale 0 commits; any other value divides by zero and aborts the client.
	sc := testScript(t, "scale.sql", "\\if :scale = 0\nSELECT 1;\n\\else\nSELECT 1/0;\n\\endif\n")
	var log testLog
	var mu sync.Mutex
	var started, firstTick time.Time
	c := &Config{
		ConnString:   url,
		Scripts:      []Script{sc},
		Mode:         script.Simple,
		Clients:      2,
		Threads:      2,
		Transactions: 25,
		Interval:     time.Second,
		MaxTries:     1,
		Seed:         prng.Seed{Value: 1},
		Log:          &TxLogSpec{Prefix: filepath.Join(logDir, "pgbench_log")},
		OnStart: func(start, bench time.Time) {
			mu.Lock()
			started = time.Now()
			mu.Unlock()
		},
		OnInterval: func(tk *Tick) {
			mu.Lock()
			if firstTick.IsZero() {
				firstTick = time.Now()
			}
			mu.Unlock()
		},
		Pgbench: &Pgbench{Log: &log, Stdout: os.Stdout, Stderr: os.Stderr},
	}
	r, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Aborted != 0 || r.Summary.Total.Committed != 50 || r.Dir != "" || r.Run == nil || r.Run.Summary == nil || len(r.LogErrors) != 0 {
		t.Errorf("aborted %d, committed %d, dir %q, log errors %v; messages %q", r.Aborted, r.Summary.Total.Committed, r.Dir, r.LogErrors, log.lines)
	}
	mu.Lock()
	if started.IsZero() || firstTick.Before(started) {
		t.Errorf("OnStart at %v, the first interval at %v", started, firstTick)
	}
	mu.Unlock()
	if ents, _ := os.ReadDir(cwd); len(ents) != 0 {
		t.Errorf("a run without Dir wrote %v", ents)
	}
	pid := os.Getpid()
	lines := 0
	for thread := 0; thread < 2; thread++ {
		data, err := os.ReadFile(pgbenchfmt.TxLogPath(filepath.Join(logDir, "pgbench_log"), pid, thread))
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(data), "\n")
	}
	if lines != 50 {
		t.Errorf("the -l logs have %d lines, want 50", lines)
	}

	// pgtrial's own run of the same script: :scale is 1, the clients abort
	// on the division by zero and the message names it.
	c.Pgbench, c.Log, c.Out = nil, nil, func(line string) { log.add(line) }
	log.lines = nil
	r, err = Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Aborted != 2 || r.Summary.Total.Committed != 0 || !strings.Contains(strings.Join(log.lines, "\n"), "division by zero") {
		t.Errorf(":scale 1: aborted %d, committed %d, messages %q", r.Aborted, r.Summary.Total.Committed, log.lines)
	}
	c.TxLog = true
	if _, err := Run(context.Background(), c); err == nil {
		t.Error("TxLog without Dir: no error")
	}
}

// A server that refuses the connections: Run says the clients never
// started, with the engine's own error, and leaves no run directory.
func TestRunNotStarted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	c := &Config{
		ConnString:   "postgres://postgres@127.0.0.1:1/x?connect_timeout=5",
		Scripts:      []Script{testScript(t, "select1.sql", "SELECT 1;\n")},
		Mode:         script.Simple,
		Clients:      1,
		Threads:      1,
		Transactions: 1,
		Interval:     time.Second,
		Collect:      Collect{Off: true},
		Dir:          dir,
	}
	_, err := Run(context.Background(), c)
	var nse *NotStartedError
	var ice *engine.InitialConnectError
	if !errors.As(err, &nse) || nse.Interrupted || !errors.As(nse.RunErr, &ice) || ice.Client != 0 ||
		!strings.Contains(err.Error(), "client 0 could not connect") {
		t.Errorf("err %v", err)
	}
	// The cause first, in libpq's words, and the hint for it (pgerr).
	if err == nil || !strings.Contains(err.Error(), ": connection to server at \"127.0.0.1\", port 1 failed: Connection refused\nhint: is a server running at 127.0.0.1, port 1?") {
		t.Errorf("err %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the run directory is still there: %v", err)
	}
}
