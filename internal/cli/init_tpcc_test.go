package cli

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// TestInitRunTPCC loads 1 warehouse with init -w tpcc, checks the
// cardinalities of clause 4.3.3.1 and consistency condition 1, then runs
// -b tpcc for 4 s on 2 clients: all five types commit and nothing fails.
func TestInitRunTPCC(t *testing.T) {
	url := pgtest.ConnString(t)
	t.Chdir(t.TempDir())
	_, errOut := mustRun(t, 0, "init", "-w", "tpcc", "--warehouses", "1", "-j", "2", url)
	if !strings.Contains(errOut, "done in") {
		t.Errorf("init -w tpcc printed no summary:\n%s", errOut)
	}
	for table, want := range map[string]int64{
		"warehouse": 1, "district": 10, "customer": 30000, "history": 30000, "orders": 30000,
		"new_order": 9000, "item": 100000, "stock": 100000, "tpcc_meta": 1,
	} {
		var n int64
		pgtest.QueryRow(t, url, "select count(*) from "+table, nil, &n)
		if n != want {
			t.Errorf("%s has %d rows, want %d", table, n, want)
		}
	}
	var lines, sumCnt, lo, hi int64
	pgtest.QueryRow(t, url, "select (select count(*) from order_line), (select sum(o_ol_cnt) from orders), (select min(o_ol_cnt) from orders), (select max(o_ol_cnt) from orders)", nil, &lines, &sumCnt, &lo, &hi)
	if lines != sumCnt || lo != 5 || hi != 15 || lines < 290000 || lines > 310000 {
		t.Errorf("order_line: %d rows, sum(o_ol_cnt) %d, o_ol_cnt in [%d, %d]; want equal, ≈300,000, [5, 15]", lines, sumCnt, lo, hi)
	}
	var bad int64
	pgtest.QueryRow(t, url, "select count(*) from warehouse where w_ytd <> (select sum(d_ytd) from district where d_w_id = w_id)", nil, &bad)
	if bad != 0 {
		t.Errorf("consistency condition 1 (W_YTD = sum(D_YTD)) fails for %d warehouses after load", bad)
	}
	var original int64
	pgtest.QueryRow(t, url, "select count(*) from item where i_data like '%ORIGINAL%'", nil, &original)
	if original < 9000 || original > 11000 {
		t.Errorf("%d items with ORIGINAL, want ≈ 10 %% of 100,000", original)
	}

	out, _ := mustRun(t, 0, "run", url, "--closed", "-T", "4s", "--warmup", "0s", "-c", "2", "-b", "tpcc", "--max-tries", "10", "--no-collect")
	run, err := results.Load(runDirFrom(t, out))
	if err != nil || run.Summary == nil {
		t.Fatalf("run.json: %v", err)
	}
	if run.Workload.Name != "tpcc" || len(run.Workload.Scripts) != 5 {
		t.Errorf("workload %+v, want tpcc with 5 scripts", run.Workload)
	}
	s := run.Summary
	if len(s.Scripts) != 5 {
		t.Fatalf("%d script summaries, want 5", len(s.Scripts))
	}
	for _, sc := range s.Scripts {
		if sc.Committed == 0 || sc.Response.P99 <= 0 {
			t.Errorf("script %s: %d committed, p99 %.3f ms", sc.Name, sc.Committed, sc.Response.P99)
		}
	}
	if s.Total.Failed != 0 {
		t.Errorf("%d failed transactions", s.Total.Failed)
	}
	pgtest.QueryRow(t, url, "select count(*) from warehouse where w_ytd <> (select sum(d_ytd) from district where d_w_id = w_id)", nil, &bad)
	if bad != 0 {
		t.Errorf("consistency condition 1 fails after the run")
	}
}
