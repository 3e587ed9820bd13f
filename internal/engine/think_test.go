package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/script"
)

// TestWhileLoopsOverSQL: the TPC-C order-line loop runs its SQL ol_cnt
// times per transaction.
func TestWhileLoopsOverSQL(t *testing.T) {
	text := `\set ol_cnt 5 + :client_id
\set ol 1
\while :ol <= :ol_cnt
\set i_id random(1, 100000)
SELECT coalesce(max(x), -1) AS i_price FROM (SELECT :i_id::int AS x) s \gset
\set ol :ol + 1
\endwhile
`
	cfg, log := config(plainConn(t), 2, 1, script.Extended, parse(t, text, script.Extended))
	cfg.Transactions = 3
	cfg.PerCommand = true
	res, iv := runToEnd(t, cfg)
	if iv.Total.Stats.Count != 6 || res.Aborted != 0 {
		t.Fatalf("committed %d aborted %d; log:\n%s", iv.Total.Stats.Count, res.Aborted, log)
	}
	// client 0: 5 lines, client 1: 6 lines, 3 transactions each.
	if n := iv.Commands[0][4].Elapsed.N; n != 3*(5+6) {
		t.Errorf("the loop's SELECT ran %d times, want 33", n)
	}
}

// TestWhileCutAtEnd: a loop over SQL that never ends is cut at -T's end:
// the run ends on time and its transactions are unfinished, not aborted.
func TestWhileCutAtEnd(t *testing.T) {
	cfg, log := config(plainConn(t), 2, 1, script.Extended, parse(t, "\\while 1\nSELECT 1;\n\\endwhile\n", script.Extended))
	cfg.Duration, cfg.CutAtEnd = time.Second, true
	t0 := time.Now()
	res, iv := runToEnd(t, cfg)
	if took := time.Since(t0); took > 5*time.Second {
		t.Errorf("the run took %v for -T 1 s", took)
	}
	if u := iv.Total.Stats.Unfinished(); u != 2 || res.Aborted != 0 || iv.Total.Stats.Count != 0 {
		t.Errorf("unfinished %d, aborted %d, committed %d; want 2, 0, 0; log:\n%s", u, res.Aborted, iv.Total.Stats.Count, log)
	}
}

// TestThinkOutsideLatency: 200 ms thinks before and after a 10 ms query
// bound the rate (a cycle is ≥ 410 ms) but are not in the latency.
func TestThinkOutsideLatency(t *testing.T) {
	text := "\\think 200 ms\nSELECT pg_sleep(0.01);\n\\set think 200\n\\think :think ms\n"
	const clients, dur = 2, 2 * time.Second
	cfg, log := config(plainConn(t), clients, 1, script.Extended, parse(t, text, script.Extended))
	cfg.Duration, cfg.CutAtEnd = dur, true
	res, iv := runToEnd(t, cfg)
	st := iv.Total.Stats
	// At most ceil(2 s / 410 ms) = 5 cycles per client start in the window.
	if st.Count < clients || st.Count+st.Unfinished() > clients*5 || res.Aborted != 0 {
		t.Fatalf("committed %d, unfinished %d, aborted %d; want 2..10 transactions; log:\n%s", st.Count, st.Unfinished(), res.Aborted, log)
	}
	if st.Latency.Max >= 150_000 || st.Service.Max >= 150_000 {
		t.Errorf("latency max %.0f µs, service max %.0f µs: the 200 ms thinks are in it", st.Latency.Max, st.Service.Max)
	}
	if st.Latency.Min < 10_000 {
		t.Errorf("latency min %.0f µs is below the query's 10 ms", st.Latency.Min)
	}
}

// TestThinkOpenModelRefused: with a rate, a script with \think is refused
// before anything connects.
func TestThinkOpenModelRefused(t *testing.T) {
	s := parse(t, "\\think 1 s\nSELECT 1;\n", script.Extended)
	cfg, _ := config(&pgconn.Config{}, 1, 1, script.Extended, s)
	cfg.Rate = 10
	if _, err := Run(context.Background(), cfg); !errors.Is(err, ErrThinkOpen) {
		t.Fatalf("Run: %v, want ErrThinkOpen", err)
	}
}

// TestTallyCounts: \tally's counts of every client, merged into the result.
func TestTallyCounts(t *testing.T) {
	text := "\\tally key :client_id\n\\tally key 7\nSELECT 1;\n"
	cfg, log := config(plainConn(t), 3, 2, script.Extended, parse(t, text, script.Extended))
	cfg.Transactions = 4
	res, iv := runToEnd(t, cfg)
	if iv.Total.Stats.Count != 12 || len(res.Tallies) != 1 {
		t.Fatalf("committed %d, tallies %+v; log:\n%s", iv.Total.Stats.Count, res.Tallies, log)
	}
	ty := res.Tallies[0]
	if ty.Name != "key" || ty.Draws != 24 || ty.Distinct != 4 || ty.Capped || len(ty.TopCounts) != 4 || ty.TopCounts[0] != 12 || ty.TopCounts[3] != 4 {
		t.Errorf("tally %+v, want key: 24 draws, 4 distinct, top [12 4 4 4]", ty)
	}
}
