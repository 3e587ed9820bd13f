package engine

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/pgtest/pgbenchdb"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// testLog collects the engine's messages.
type testLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *testLog) add(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
}
func (l *testLog) Error(s string) { l.add("error: " + s) }
func (l *testLog) Info(s string)  { l.add(s) }
func (l *testLog) Debug(s string) { l.add("debug: " + s) }
func (l *testLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// setup gives a database with pgbench tables at scale 1 and its config.
func setup(t *testing.T) *pgconn.Config {
	t.Helper()
	_, cfg := pgbenchdb.Scale1(t)
	return cfg
}

// runToEnd runs cfg (within a minute) and returns the result and the
// metrics of the whole benchmark window; it fails the test on an error.
func runToEnd(t *testing.T, cfg *Config) (*Result, *metrics.Interval) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res, cfg.Metrics.Tick(res.BenchStart, res.End)
}

// builtin parses a built-in script for mode.
func builtin(t *testing.T, name string, mode script.Mode) *script.Script {
	t.Helper()
	b, _ := workload.FindBuiltin(name)
	s, err := script.Parse(b.Desc, b.Script)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(mode, 0); err != nil {
		t.Fatal(err)
	}
	return s
}

// parse parses a script text for mode.
func parse(t *testing.T, text string, mode script.Mode) *script.Script {
	t.Helper()
	s, err := script.Parse("test.sql", text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(mode, 0); err != nil {
		t.Fatal(err)
	}
	return s
}

// config is a run of scripts with sensible defaults.
func config(conn *pgconn.Config, clients, groups int, mode script.Mode, scripts ...*script.Script) (*Config, *testLog) {
	log := &testLog{}
	names := make([]string, len(scripts))
	weights := make([]int, len(scripts))
	ncmds := make([]int, len(scripts))
	for i, s := range scripts {
		names[i] = s.Name
		weights[i] = 1
		ncmds[i] = len(s.Commands)
	}
	streams := prng.Derive(42, clients, groups, false)
	return &Config{
		Program:     script.NewProgram(scripts...),
		ScriptNames: names,
		Weights:     weights,
		Mode:        mode,
		Conn:        conn,
		Clients:     clients,
		Groups:      groups,
		MaxTries:    1,
		Log:         log,
		Stdout:      io.Discard,
		Streams:     streams,
		Setup: func(c *script.Client) error {
			c.SetInt("startup", "scale", 1)
			c.SetInt("startup", "client_id", int64(c.ID))
			return nil
		},
		Metrics: metrics.NewSet(clients, metrics.Layout{Scripts: len(scripts), Commands: ncmds}),
	}, log
}

func TestClosedModesCountEveryTransaction(t *testing.T) {
	conn := setup(t)
	for _, mode := range []script.Mode{script.Simple, script.Extended, script.Prepared} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg, log := config(conn, 4, 2, mode, builtin(t, "tpcb-like", mode))
			cfg.Transactions = 50
			cfg.PerCommand = true
			res, iv := runToEnd(t, cfg)
			if got := iv.Total.Stats.Count; got != 200 || res.Aborted != 0 {
				t.Fatalf("committed %d, aborted %d, want 200, 0; log:\n%s", got, res.Aborted, log)
			}
			if iv.Total.Stats.Lag.Max != 0 {
				t.Errorf("closed model has lag %v", iv.Total.Stats.Lag.Max)
			}
			// every command of the script completed 200 times
			for k, cs := range iv.Commands[0] {
				if cs.Elapsed.N != 200 {
					t.Errorf("command %d completed %d times, want 200", k, cs.Elapsed.N)
				}
			}
		})
	}
}

func TestGsetAsetAndPipeline(t *testing.T) {
	conn := setup(t)
	text := `SELECT 1 AS one, 'x' AS two \gset p_
SELECT :p_one + 1 AS three \gset
\set four :three + 1
SELECT 5 AS five, 6 AS six \aset
\if :five != 5
SELECT 1/0;
\endif
\startpipeline
SELECT :four;
SELECT 2;
\syncpipeline
SELECT 3;
\endpipeline
`
	for _, mode := range []script.Mode{script.Extended, script.Prepared} {
		cfg, log := config(conn, 1, 1, mode, parse(t, text, mode))
		cfg.Transactions = 3
		res, iv := runToEnd(t, cfg)
		if iv.Total.Stats.Count != 3 || res.Aborted != 0 {
			t.Fatalf("%s: committed %d aborted %d; log:\n%s", mode, iv.Total.Stats.Count, res.Aborted, log)
		}
	}
}

func TestSimpleMultiStatementGset(t *testing.T) {
	conn := setup(t)
	// \gset takes the last result's row; \aset the last row of every result.
	text := `SELECT 1 AS a \; SELECT 2 AS b \gset
\if :b != 2
SELECT 1/0;
\endif
SELECT 3 AS c \; SELECT 4 AS d UNION ALL SELECT 5 AS d \aset
\if :c != 3 or :d != 5
SELECT 1/0;
\endif
`
	cfg, log := config(conn, 1, 1, script.Simple, parse(t, text, script.Simple))
	cfg.Transactions = 2
	res, iv := runToEnd(t, cfg)
	if iv.Total.Stats.Count != 2 || res.Aborted != 0 {
		t.Fatalf("committed %d aborted %d; log:\n%s", iv.Total.Stats.Count, res.Aborted, log)
	}
}

func TestAbortMessages(t *testing.T) {
	conn := setup(t)
	cases := []struct {
		name, text string
		want       string
	}{
		{"division", "SELECT 1/0;\n", "client 0 script 0 aborted in command 0 query 0: "},
		{"gset none", "SELECT 1 WHERE false \\gset\n", "expected one row, got 0"},
		{"gset two", "SELECT 1 AS i UNION ALL SELECT 2 \\gset\n", "expected one row, got 2"},
		{"copy", "COPY pgbench_branches FROM stdin;\n", "COPY is not supported in pgbench, aborting"},
		{"open tx", "BEGIN;\nSELECT 1;\n", "end of script reached without completing the last transaction"},
		{"pipeline open", "\\startpipeline\nSELECT 1;\n", "end of script reached with pipeline open"},
		{"meta", "\\set x 1/0\n", "division by zero"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, log := config(conn, 1, 1, script.Extended, parse(t, tc.text, script.Extended))
			cfg.Transactions = 2
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Aborted != 1 || !strings.Contains(log.String(), tc.want) {
				t.Fatalf("aborted %d; want %q in log:\n%s", res.Aborted, tc.want, log)
			}
		})
	}
}

func TestOpenModelRateAndLag(t *testing.T) {
	conn := setup(t)
	cfg, log := config(conn, 4, 1, script.Prepared, builtin(t, "select-only", script.Prepared))
	cfg.Rate = 500
	cfg.Duration = 3 * time.Second
	res, iv := runToEnd(t, cfg)
	st := iv.Total.Stats
	rate := float64(st.Count) / res.End.Sub(res.BenchStart).Seconds()
	if rate < 400 || rate > 600 || res.Aborted != 0 {
		t.Fatalf("achieved %.1f tx/s (%d), want ≈500; log:\n%s", rate, st.Count, log)
	}
	p50 := metrics.Quantile(iv.Total.Lag, 0.5)
	t.Logf("rate %.1f/s, lag p50 %d µs, p99 %d µs, response p50 %d µs", rate, p50, metrics.Quantile(iv.Total.Lag, 0.99), metrics.Quantile(iv.Total.Response, 0.5))
}

// TestInterruptWakesSleepersAndBusy: an interrupt ends a run promptly both
// when its clients sleep (\sleep 30 s: the group loop's timed waits are
// bounded by stopCheckEvery) and when they wait for the server
// (pg_sleep(30): the in-flight queries are cancelled and the replies wake
// the loop), and the run is marked interrupted.
func TestInterruptWakesSleepersAndBusy(t *testing.T) {
	conn := setup(t)
	for name, text := range map[string]string{
		"sleeping": "\\sleep 30 s\nSELECT 1;\n",
		"busy":     "SELECT pg_sleep(30);\n",
	} {
		t.Run(name, func(t *testing.T) {
			cfg, log := config(conn, 4, 2, script.Prepared, parse(t, text, script.Prepared))
			cfg.Duration = time.Minute
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var started atomic.Int64
			cfg.OnStart = func(_, bench time.Time) { started.Store(bench.UnixNano()) }
			time.AfterFunc(700*time.Millisecond, cancel)
			begin := time.Now()
			res, err := Run(ctx, cfg)
			took := time.Since(begin)
			if err != nil {
				t.Fatalf("%v; log:\n%s", err, log)
			}
			if !res.Interrupted {
				t.Error("the run is not marked interrupted")
			}
			// 0.7 s until the interrupt, then at most 100 ms for a sleeper
			// to notice, or a cancel request's round trip.
			if took > 3*time.Second {
				t.Errorf("Run returned %v after the start (interrupt at 0.7 s), want promptly; log:\n%s", took, log)
			}
			if started.Load() == 0 {
				t.Error("the run never started")
			}
		})
	}
}
