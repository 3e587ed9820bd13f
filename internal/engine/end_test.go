package engine

// The end of a run (the package comment's "The end of a run"): under
// CutAtEnd the window ends at -T sharp whatever the server does, what was in
// flight is unfinished, what was due and never started is unstarted, both
// with lower bounds in the response histogram; without it, as pgbench, the
// transactions in flight finish. An interruption is bounded against a
// frozen server. The frozen-server tests use a cluster of their own
// (pgtest.OwnCluster), stopped with SIGSTOP (pgtest.Freeze).

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/script"
)

// plainConn is a fresh database of the shared cluster, without tables.
func plainConn(t *testing.T) *pgconn.Config {
	t.Helper()
	cfg, err := pgconn.ParseConfig(pgtest.ConnString(t))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// ownConn is the "postgres" database of a cluster of the test's own.
func ownConn(t *testing.T) (*pgconn.Config, func() (thaw func())) {
	t.Helper()
	c := pgtest.OwnCluster(t, pgtest.Own{})
	cfg, err := pgconn.ParseConfig(c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg, func() func() { return pgtest.Freeze(t, c) }
}

// timedRun runs cfg with ctx and fails the test when Run does not return
// within limit; it returns the result, how long Run took, and the metrics
// of the whole run.
func timedRun(t *testing.T, ctx context.Context, cfg *Config, limit time.Duration) (*Result, time.Duration, *metrics.Interval) {
	t.Helper()
	type ran struct {
		res *Result
		err error
	}
	done := make(chan ran, 1)
	began := time.Now()
	go func() {
		res, err := Run(ctx, cfg)
		done <- ran{res, err}
	}()
	select {
	case r := <-done:
		took := time.Since(began)
		if r.err != nil {
			t.Fatalf("Run: %v", r.err)
		}
		return r.res, took, cfg.Metrics.Tick(r.res.BenchStart, r.res.End)
	case <-time.After(limit):
		t.Fatalf("Run did not return within %v", limit)
		return nil, 0, nil
	}
}

// noErrors fails the test when the engine logged an error.
func noErrors(t *testing.T, log *testLog) {
	t.Helper()
	if s := log.String(); strings.Contains(s, "error: ") {
		t.Errorf("the engine logged errors:\n%s", s)
	}
}

// TestEndCutHealthy: `SELECT pg_sleep(30)` with -T 1.5 s ends at 1.5 s
// under CutAtEnd (it measured 30 s): the queries are cancelled, each client's
// transaction is unfinished with its lower bound in the response histogram,
// nothing failed, aborted or was forced closed. Both client loops.
func TestEndCutHealthy(t *testing.T) {
	conn := plainConn(t)
	for _, netPoller := range []bool{false, true} {
		t.Run(fmt.Sprintf("netpoller=%v", netPoller), func(t *testing.T) {
			const dur = 1500 * time.Millisecond
			cfg, log := config(conn, 2, 2, script.Simple, parse(t, "SELECT pg_sleep(30);\n", script.Simple))
			cfg.Duration, cfg.CutAtEnd, cfg.NetPoller, cfg.Reconnect = dur, true, netPoller, true
			res, took, iv := timedRun(t, context.Background(), cfg, 20*time.Second)
			st := &iv.Total.Stats
			t.Logf("took %v; window %v; unfinished %d, committed %d, failed %d; response max %d µs",
				took, res.End.Sub(res.BenchStart), st.Unfinished(), st.Count, st.Failed(), metrics.Quantile(iv.Total.Response, 1))
			if took > dur+2*time.Second {
				t.Errorf("Run took %v for -T %v", took, dur)
			}
			if got := res.End.Sub(res.BenchStart); got != dur || !res.Cut {
				t.Errorf("window %v (cut %v), want %v", got, res.Cut, dur)
			}
			if st.Unfinished() != 2 || st.Count != 0 || st.Failed() != 0 || st.Unstarted() != 0 || res.Aborted != 0 || res.Closed != 0 {
				t.Errorf("unfinished %d, committed %d, failed %d, unstarted %d, aborted %d, closed %d; want 2 unfinished only",
					st.Unfinished(), st.Count, st.Failed(), st.Unstarted(), res.Aborted, res.Closed)
			}
			if n := iv.Total.Response.TotalCount(); n != 2 {
				t.Errorf("response histogram holds %d values, want the 2 unfinished", n)
			}
			if mn := metrics.Quantile(iv.Total.Response, 0); mn < int64(dur/time.Microsecond)*99/100 {
				t.Errorf("unfinished response lower bound %d µs, want ≈ %v", mn, dur)
			}
			noErrors(t, log)
		})
	}
}

// TestEndPgbenchFinishesInFlight: without CutAtEnd (pgbench), -T stops
// only new transactions: the one in flight finishes and commits.
func TestEndPgbenchFinishesInFlight(t *testing.T) {
	conn := plainConn(t)
	cfg, log := config(conn, 1, 1, script.Simple, parse(t, "SELECT pg_sleep(1);\n", script.Simple))
	cfg.Duration = 300 * time.Millisecond
	res, took, iv := timedRun(t, context.Background(), cfg, 20*time.Second)
	st := &iv.Total.Stats
	if took < time.Second || st.Count != 1 || st.Unfinished() != 0 || res.Cut {
		t.Errorf("took %v, committed %d, unfinished %d, cut %v; want ≥ 1 s and the transaction committed", took, st.Count, st.Unfinished(), res.Cut)
	}
	noErrors(t, log)
}

// TestEndCutFrozenServer is the acceptance of the end of -T, shortened: an
// open run of -T 4 s whose server is frozen (SIGSTOP) from 2.5 s on ends
// within 1.5 s of its window's end (it ran until the server came back),
// its window is 4 s, the slots due during the stall are unstarted (they
// were in no count) and the in-flight transactions unfinished, and the
// response p99 shows the stall (it was a few ms).
func TestEndCutFrozenServer(t *testing.T) {
	conn, freeze := ownConn(t)
	for _, netPoller := range []bool{false, true} {
		t.Run(fmt.Sprintf("netpoller=%v", netPoller), func(t *testing.T) {
			const (
				dur      = 4 * time.Second
				freezeAt = 2500 * time.Millisecond
				rate     = 100
			)
			cfg, log := config(conn, 2, 1, script.Simple, parse(t, "SELECT 1;\n", script.Simple))
			cfg.Duration, cfg.CutAtEnd, cfg.NetPoller, cfg.Reconnect, cfg.Rate = dur, true, netPoller, true, rate
			thawed := make(chan func(), 1)
			cfg.OnStart = func(_, bench time.Time) {
				go func() {
					time.Sleep(time.Until(bench.Add(freezeAt)))
					thawed <- freeze()
				}()
			}
			res, took, iv := timedRun(t, context.Background(), cfg, dur+20*time.Second)
			select {
			case thaw := <-thawed:
				thaw()
			case <-time.After(5 * time.Second):
				t.Fatal("the server was not frozen")
			}
			st := &iv.Total.Stats
			p99 := metrics.Quantile(iv.Total.Response, 0.99)
			t.Logf("took %v; window %v; committed %d, unstarted %d, unfinished %d, failed %d, closed %d; response p99 %d µs",
				took, res.End.Sub(res.BenchStart), st.Count, st.Unstarted(), st.Unfinished(), st.Failed(), res.Closed, p99)
			if end := res.End.Sub(res.BenchStart); end != dur {
				t.Errorf("window %v, want %v", end, dur)
			}
			if took > dur+1500*time.Millisecond {
				t.Errorf("Run took %v for -T %v against a frozen server", took, dur)
			}
			// 1.5 s of stall at 100/s: ~150 slots, two of them taken by the
			// clients that were stuck.
			if st.Unstarted() < 100 || st.Unfinished() != 2 || res.Closed != 2 {
				t.Errorf("unstarted %d (want ≈ 150), unfinished %d (want 2), closed %d (want 2)", st.Unstarted(), st.Unfinished(), res.Closed)
			}
			if st.Failed() != 0 || res.Aborted != 0 {
				t.Errorf("failed %d, aborted %d, want 0", st.Failed(), res.Aborted)
			}
			if p99 < 1_000_000 {
				t.Errorf("response p99 %d µs: the stall at the end does not show", p99)
			}
			if n := iv.Total.Response.TotalCount(); n != st.Count+st.Unstarted()+st.Unfinished() {
				t.Errorf("response histogram %d values, want committed + unstarted + unfinished = %d", n, st.Count+st.Unstarted()+st.Unfinished())
			}
			noErrors(t, log)
		})
	}
}

// TestInterruptFrozenServer: an interruption while the server is frozen
// returns within about a second (the cancel requests to a stopped
// postmaster used to take 2 s each, one after the other), with or without
// CutAtEnd; with Urgent closed at once, at once. Without CutAtEnd the
// transactions in flight are not counted, and no client counts as aborted.
func TestInterruptFrozenServer(t *testing.T) {
	conn, freeze := ownConn(t)
	for _, tc := range []struct {
		name        string
		cut, urgent bool
		limit       time.Duration
	}{
		{"pgbench", false, false, 1500 * time.Millisecond},
		{"cut", true, false, 1500 * time.Millisecond},
		{"cut-urgent", true, true, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, log := config(conn, 4, 2, script.Simple, parse(t, "SELECT 1;\n", script.Simple))
			cfg.Duration, cfg.CutAtEnd, cfg.Reconnect, cfg.Rate = time.Minute, tc.cut, tc.cut, 200
			urgent := make(chan struct{})
			cfg.Urgent = urgent
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var interruptedAt time.Time
			thawed := make(chan struct{})
			defer func() {
				select {
				case <-thawed: // the next subtest finds the server running
				case <-time.After(10 * time.Second):
				}
			}()
			cfg.OnStart = func(_, bench time.Time) {
				go func() {
					defer close(thawed)
					time.Sleep(time.Until(bench.Add(time.Second)))
					thaw := freeze()
					defer thaw()
					time.Sleep(500 * time.Millisecond)
					interruptedAt = time.Now()
					cancel()
					if tc.urgent {
						close(urgent)
					}
					time.Sleep(3 * time.Second) // the run ends while frozen
				}()
			}
			res, took, iv := timedRun(t, ctx, cfg, 30*time.Second)
			after := time.Since(interruptedAt)
			st := &iv.Total.Stats
			t.Logf("took %v, returned %v after the interruption; committed %d, unstarted %d, unfinished %d, failed %d, aborted %d, closed %d",
				took, after, st.Count, st.Unstarted(), st.Unfinished(), st.Failed(), res.Aborted, res.Closed)
			if !res.Interrupted {
				t.Error("not interrupted")
			}
			if after > tc.limit {
				t.Errorf("Run returned %v after the interruption, want ≤ %v", after, tc.limit)
			}
			if st.Failed() != 0 || res.Aborted != 0 || res.Closed != 4 {
				t.Errorf("failed %d, aborted %d, closed %d; want 0, 0, 4", st.Failed(), res.Aborted, res.Closed)
			}
			if tc.cut {
				if d := res.End.Sub(interruptedAt); d < -5*time.Millisecond || d > 50*time.Millisecond || !res.Cut {
					t.Errorf("window ended %v after the interruption (cut %v), want ≈ 0", d, res.Cut)
				}
				if st.Unfinished() != 4 || st.Unstarted() < 50 {
					t.Errorf("unfinished %d (want 4), unstarted %d (want ≈ 100)", st.Unfinished(), st.Unstarted())
				}
			} else if st.Unfinished() != 0 || st.Unstarted() != 0 {
				t.Errorf("pgbench: unfinished %d, unstarted %d, want none counted", st.Unfinished(), st.Unstarted())
			}
			noErrors(t, log)
		})
	}
}
