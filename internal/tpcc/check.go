package tpcc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/results"
)

// NameCheck is the application_name of the consistency checks' session.
const NameCheck = "pgtrial-check"

// condition is one consistency condition: SQL returning the violations
// (with count(*) OVER () as the first column: all violations), and how
// one row is worded.
type condition struct {
	n     int
	what  string
	units string // SQL counting what is checked
	sql   string
	row   func(r pgx.Rows) (string, error)
}

// The conditions of clause 3.3.2 checked (1–4), set-based, one pass each.
var conditions = []condition{
	{
		n: 1, what: "W_YTD = sum(D_YTD) per warehouse",
		units: "SELECT count(*) FROM warehouse",
		sql: `SELECT count(*) OVER (), w.w_id, w.w_ytd::text, coalesce(d.s::text, 'none')
FROM warehouse w LEFT JOIN (SELECT d_w_id, sum(d_ytd) AS s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
WHERE d.s IS DISTINCT FROM w.w_ytd ORDER BY w.w_id LIMIT $1`,
		row: func(r pgx.Rows) (string, error) {
			var all, w int64
			var ytd, sum string
			if err := r.Scan(&all, &w, &ytd, &sum); err != nil {
				return "", err
			}
			return fmt.Sprintf("condition 1: warehouse %d: W_YTD %s ≠ sum(D_YTD) %s", w, ytd, sum), nil
		},
	},
	{
		n: 2, what: "D_NEXT_O_ID − 1 = max(O_ID) = max(NO_O_ID) per district",
		units: "SELECT count(*) FROM district",
		sql: `SELECT count(*) OVER (), d.d_w_id, d.d_id, d.d_next_o_id - 1, coalesce(o.m::text, 'none'), coalesce(n.m::text, 'none')
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE o.m IS DISTINCT FROM d.d_next_o_id - 1 OR n.m IS DISTINCT FROM d.d_next_o_id - 1
ORDER BY d.d_w_id, d.d_id LIMIT $1`,
		row: func(r pgx.Rows) (string, error) {
			var all, w, d, next int64
			var mo, mno string
			if err := r.Scan(&all, &w, &d, &next, &mo, &mno); err != nil {
				return "", err
			}
			return fmt.Sprintf("condition 2: warehouse %d, district %d: D_NEXT_O_ID − 1 = %d, max(O_ID) = %s, max(NO_O_ID) = %s", w, d, next, mo, mno), nil
		},
	},
	{
		n: 3, what: "count(NEW_ORDER) = max(NO_O_ID) − min(NO_O_ID) + 1 per district",
		units: "SELECT count(DISTINCT (no_w_id, no_d_id)) FROM new_order",
		sql: `SELECT count(*) OVER (), no_w_id, no_d_id, count(*), max(no_o_id), min(no_o_id)
FROM new_order GROUP BY no_w_id, no_d_id
HAVING count(*) <> max(no_o_id) - min(no_o_id) + 1
ORDER BY no_w_id, no_d_id LIMIT $1`,
		row: func(r pgx.Rows) (string, error) {
			var all, w, d, n, hi, lo int64
			if err := r.Scan(&all, &w, &d, &n, &hi, &lo); err != nil {
				return "", err
			}
			return fmt.Sprintf("condition 3: warehouse %d, district %d: count(NEW_ORDER) %d ≠ max(NO_O_ID) − min(NO_O_ID) + 1 = %d (%d − %d + 1)", w, d, n, hi-lo+1, hi, lo), nil
		},
	},
	{
		n: 4, what: "sum(O_OL_CNT) = count(ORDER_LINE) per district",
		units: "SELECT count(*) FROM district",
		sql: `SELECT count(*) OVER (), d.d_w_id, d.d_id, coalesce(o.s, 0), coalesce(l.c, 0)
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT ol_w_id, ol_d_id, count(*) AS c FROM order_line GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id
WHERE coalesce(o.s, 0) <> coalesce(l.c, 0)
ORDER BY d.d_w_id, d.d_id LIMIT $1`,
		row: func(r pgx.Rows) (string, error) {
			var all, w, d, s, c int64
			if err := r.Scan(&all, &w, &d, &s, &c); err != nil {
				return "", err
			}
			return fmt.Sprintf("condition 4: warehouse %d, district %d: sum(O_OL_CNT) %d ≠ count(ORDER_LINE) %d", w, d, s, c), nil
		},
	},
}

// Connect opens the checks' session (pgtrial's own, unbounded statements:
// the checks scan whole tables; ctx bounds them).
func Connect(ctx context.Context, connString string) (*pgx.Conn, error) {
	return pgsession.Connect(ctx, connString, NameCheck, pgsession.Unbounded)
}

// Check runs consistency conditions 1–4 in one read-only repeatable-read
// transaction (one snapshot for all). An error is a check that could not
// run (no TPC-C tables: load them with pgtrial init -w tpcc), not a failed
// condition.
func Check(ctx context.Context, conn *pgx.Conn) ([]results.TPCCCheck, error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("consistency checks: begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	var out []results.TPCCCheck
	for _, c := range conditions {
		chk := results.TPCCCheck{Condition: c.n, What: c.what}
		if err := tx.QueryRow(ctx, c.units).Scan(&chk.Checked); err != nil {
			return nil, fmt.Errorf("consistency condition %d: %w\nhint: the TPC-C tables are loaded by: pgtrial init -w tpcc --warehouses N", c.n, err)
		}
		rows, err := tx.Query(ctx, c.sql, results.MaxTPCCFailures)
		if err != nil {
			return nil, fmt.Errorf("consistency condition %d: %w", c.n, err)
		}
		for rows.Next() {
			msg, err := c.row(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("consistency condition %d: %w", c.n, err)
			}
			var all int64
			if v, err := rows.Values(); err == nil && len(v) > 0 {
				if n, ok := v[0].(int64); ok {
					all = n
				}
			}
			chk.Violations = all
			chk.Failures = append(chk.Failures, msg)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("consistency condition %d: %w", c.n, err)
		}
		chk.Pass = len(chk.Failures) == 0
		out = append(out, chk)
	}
	return out, nil
}

// Warehouses reads the loaded warehouse count from tpcc_meta (0 when it
// cannot be read).
func Warehouses(ctx context.Context, conn *pgx.Conn) (int, error) {
	var n int
	if err := conn.QueryRow(ctx, "SELECT warehouses FROM tpcc_meta LIMIT 1").Scan(&n); err != nil {
		return 0, fmt.Errorf("read the warehouses from tpcc_meta: %w\nhint: load the TPC-C tables with: pgtrial init -w tpcc --warehouses N", err)
	}
	return n, nil
}

// Failed counts the failed checks.
func Failed(cs []results.TPCCCheck) int {
	n := 0
	for _, c := range cs {
		if !c.Pass {
			n++
		}
	}
	return n
}

// Finish is a run's TPC-C-like section at its end: the figures of in (the
// warehouses read from tpcc_meta when in has none) and, when check, the
// consistency conditions; skip says why they are not run ("" to run them
// when check). A connection that fails leaves the figures without checks,
// ChecksSkipped saying why.
func Finish(ctx context.Context, connString string, in Input, skip string) *results.TPCC {
	conn, err := Connect(ctx, connString)
	if err != nil {
		t := Figures(in)
		t.ChecksSkipped = "could not connect: " + err.Error()
		return t
	}
	defer conn.Close(context.Background())
	if in.Warehouses <= 0 {
		in.Warehouses, _ = Warehouses(ctx, conn)
	}
	t := Figures(in)
	if skip != "" {
		t.ChecksSkipped = skip
		return t
	}
	cs, err := Check(ctx, conn)
	if err != nil {
		t.ChecksSkipped = err.Error()
	}
	t.Checks = cs
	return t
}
