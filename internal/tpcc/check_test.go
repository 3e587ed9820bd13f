package tpcc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// minimalSchema is the few columns the checks read, with 2 warehouses × 2
// districts, 3 orders per district (o_id 1..3), orders 2..3 new, 2 lines
// per order: a consistent state.
var minimalSchema = []string{
	`CREATE TABLE warehouse (w_id int PRIMARY KEY, w_ytd numeric(12,2))`,
	`CREATE TABLE district (d_w_id int, d_id int, d_ytd numeric(12,2), d_next_o_id int, PRIMARY KEY (d_w_id, d_id))`,
	`CREATE TABLE orders (o_w_id int, o_d_id int, o_id int, o_c_id int, o_carrier_id int, o_ol_cnt int, o_entry_d timestamp, PRIMARY KEY (o_w_id, o_d_id, o_id))`,
	`CREATE TABLE new_order (no_w_id int, no_d_id int, no_o_id int, PRIMARY KEY (no_w_id, no_d_id, no_o_id))`,
	`CREATE TABLE order_line (ol_w_id int, ol_d_id int, ol_o_id int, ol_number int, PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))`,
	`CREATE TABLE tpcc_meta (warehouses int)`,
	`INSERT INTO tpcc_meta VALUES (2)`,
	`INSERT INTO warehouse SELECT w, 60000.00 FROM generate_series(1, 2) w`,
	`INSERT INTO district SELECT w, d, 30000.00, 4 FROM generate_series(1, 2) w, generate_series(1, 2) d`,
	`INSERT INTO orders SELECT w, d, o, o, CASE WHEN o = 1 THEN 1 END, 2, now() FROM generate_series(1, 2) w, generate_series(1, 2) d, generate_series(1, 3) o`,
	`INSERT INTO new_order SELECT w, d, o FROM generate_series(1, 2) w, generate_series(1, 2) d, generate_series(2, 3) o`,
	`INSERT INTO order_line SELECT w, d, o, n FROM generate_series(1, 2) w, generate_series(1, 2) d, generate_series(1, 3) o, generate_series(1, 2) n`,
}

func TestCheckPassesThenNamesCorruption(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, minimalSchema...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())

	cs, err := Check(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 4 || Failed(cs) != 0 {
		t.Fatalf("consistent tables: %+v, want 4 passed conditions", cs)
	}
	if cs[0].Checked != 2 || cs[1].Checked != 4 {
		t.Errorf("checked %d warehouses and %d districts, want 2 and 4", cs[0].Checked, cs[1].Checked)
	}
	if w, err := Warehouses(ctx, conn); err != nil || w != 2 {
		t.Errorf("Warehouses = %d, %v; want 2", w, err)
	}

	pgtest.Exec(t, url, `UPDATE district SET d_ytd = d_ytd + 12.50 WHERE d_w_id = 2 AND d_id = 1`)
	cs, err = Check(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if Failed(cs) != 1 || cs[0].Pass || len(cs[0].Failures) != 1 || cs[0].Violations != 1 {
		t.Fatalf("after corrupting D_YTD: %+v, want condition 1 alone failed, once", cs)
	}
	want := "condition 1: warehouse 2: W_YTD 60000.00 ≠ sum(D_YTD) 60012.50"
	if cs[0].Failures[0] != want {
		t.Errorf("failure %q, want %q", cs[0].Failures[0], want)
	}

	// Conditions 2–4: a lost order line, a gap in NEW_ORDER, a counter ahead.
	pgtest.Exec(t, url,
		`DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id = 1 AND ol_number = 2`,
		`UPDATE district SET d_next_o_id = 5 WHERE d_w_id = 1 AND d_id = 1`,
		`INSERT INTO new_order VALUES (2, 2, 5)`)
	cs, err = Check(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	for i, frag := range []string{
		"condition 2: warehouse 1, district 1: D_NEXT_O_ID − 1 = 4, max(O_ID) = 3, max(NO_O_ID) = 3",
		"condition 3: warehouse 2, district 2: count(NEW_ORDER) 3 ≠ max(NO_O_ID) − min(NO_O_ID) + 1 = 4 (5 − 2 + 1)",
		"condition 4: warehouse 1, district 2: sum(O_OL_CNT) 6 ≠ count(ORDER_LINE) 5",
	} {
		c := cs[i+1]
		if c.Pass || !strings.Contains(strings.Join(c.Failures, "\n"), frag) {
			t.Errorf("condition %d: %+v, want a failure %q", c.Condition, c.Failures, frag)
		}
	}
}

func TestCheckWithoutTables(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, err = Check(ctx, conn)
	if err == nil || !strings.Contains(err.Error(), "pgtrial init -w tpcc") {
		t.Errorf("no tables: error %v, want the hint to load them", err)
	}
}
