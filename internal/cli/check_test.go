package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// tpccCheckTables are the columns the TPC-C checks read: 1 warehouse, 1
// district, 2 orders (the second new), 3 lines each.
var tpccCheckTables = []string{
	`CREATE TABLE warehouse (w_id int PRIMARY KEY, w_ytd numeric(12,2))`,
	`CREATE TABLE district (d_w_id int, d_id int, d_ytd numeric(12,2), d_next_o_id int, PRIMARY KEY (d_w_id, d_id))`,
	`CREATE TABLE orders (o_w_id int, o_d_id int, o_id int, o_c_id int, o_carrier_id int, o_ol_cnt int, o_entry_d timestamp)`,
	`CREATE TABLE new_order (no_w_id int, no_d_id int, no_o_id int)`,
	`CREATE TABLE order_line (ol_w_id int, ol_d_id int, ol_o_id int, ol_number int)`,
	`INSERT INTO warehouse VALUES (1, 30000.00)`,
	`INSERT INTO district VALUES (1, 1, 30000.00, 3)`,
	`INSERT INTO orders VALUES (1, 1, 1, 1, 5, 3, now()), (1, 1, 2, 2, NULL, 3, now())`,
	`INSERT INTO new_order VALUES (1, 1, 2)`,
	`INSERT INTO order_line SELECT 1, 1, o, n FROM generate_series(1, 2) o, generate_series(1, 3) n`,
}

func TestCheckCommandExitCodes(t *testing.T) {
	url := pgtest.ConnString(t)

	// No tables: the check cannot run, exit 1 with the hint.
	code, _, errOut := runCLI(t, "check", "-w", "tpcc", url)
	if code != 1 || !strings.Contains(errOut, "pgtrial init -w tpcc") {
		t.Errorf("no tables: exit %d, stderr %q; want 1 and the hint", code, errOut)
	}

	pgtest.Exec(t, url, tpccCheckTables...)
	code, out, errOut := runCLI(t, "check", "-w", "tpcc", url)
	if code != 0 || strings.Count(out, " pass: ") != 4 {
		t.Errorf("consistent: exit %d\n%s%s; want 0 and 4 conditions passed", code, out, errOut)
	}

	pgtest.Exec(t, url, `UPDATE district SET d_ytd = 30012.50`)
	code, out, errOut = runCLI(t, "check", "-w", "tpcc", "--url", url)
	want := "condition 1: warehouse 1: W_YTD 30000.00 ≠ sum(D_YTD) 30012.50"
	if code != 1 || !strings.Contains(out, "condition 1 FAILED") || !strings.Contains(out, want) || !strings.Contains(errOut, "1 of 4 conditions failed") {
		t.Errorf("corrupted D_YTD: exit %d\n%s%s; want 1 and %q", code, out, errOut, want)
	}

	// --json: the same conditions as run.json's tpcc.checks, the same exit status.
	code, out, errOut = runCLI(t, "check", "-w", "tpcc", "--json", url)
	var doc jsonChecks
	err := json.Unmarshal([]byte(out), &doc)
	cs := doc.Checks
	if err != nil || code != 1 || len(cs) != 4 || cs[0].Pass || !cs[1].Pass {
		t.Errorf("--json: exit %d, %v: %s%s", code, err, out, errOut)
	}

	if code, _, errOut := runCLI(t, "check", "-w", "ycsb", url); code != 1 || !strings.Contains(errOut, "-w tpcc") {
		t.Errorf("-w ycsb: exit %d, %q", code, errOut)
	}
}
