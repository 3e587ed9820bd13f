package collect

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

func TestExplainable(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT 1;": true, "  -- c\n/* x */ (select 1)": true, "with a as (select 1) select * from a": true,
		"update t set a = 1": true, "INSERT INTO t VALUES (1)": true, "values (1)": true, "table t": true,
		"BEGIN;": false, "END;": false, "vacuum t": false, "": false, "-- only a comment": false, "/* open": false,
		"CREATE TABLE x AS SELECT 1": false, "EXECUTE p": false, ";": false,
	} {
		ok, why := Explainable(sql)
		if ok != want || ok == (why != "") {
			t.Errorf("Explainable(%q) = %v, %q", sql, ok, why)
		}
	}
	if _, why := Explainable("BEGIN;"); why != "not explainable: BEGIN is not a plannable statement (transaction control or utility)" {
		t.Errorf("BEGIN: %q", why)
	}
}

// EXPLAIN's JSON reduced to the shape: node types, relations, index,
// direction (Backward only), join type, parent relationship; the root's
// cost and rows beside it.
func TestParseExplainJSON(t *testing.T) {
	out := `[{"Plan": {"Node Type": "ModifyTable", "Operation": "Update", "Parallel Aware": false, "Relation Name": "pgbench_accounts",
	  "Alias": "pgbench_accounts", "Startup Cost": 0.29, "Total Cost": 8.31, "Plan Rows": 0, "Plan Width": 0,
	  "Plans": [{"Node Type": "Limit", "Parent Relationship": "Outer", "Plans": [
	    {"Node Type": "Index Scan", "Parent Relationship": "Outer", "Scan Direction": "Backward", "Index Name": "pgbench_accounts_pkey",
	     "Relation Name": "pgbench_accounts", "Total Cost": 8.3, "Index Cond": "(aid = 7)"},
	    {"Node Type": "Nested Loop", "Join Type": "Semi", "Parent Relationship": "Inner", "Scan Direction": "Forward"}]}]}}]`
	shape, cost, rows, err := ParseExplainJSON([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shape.Line(), "Update on pgbench_accounts ← Limit ← [Index Scan Backward using pgbench_accounts_pkey on pgbench_accounts; Nested Loop Semi Join]"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	if cost != 8.31 || rows != 0 || shape.Children[0].Children[1].Direction != "" || shape.Children[0].Parent != "Outer" {
		t.Errorf("cost %v rows %v shape %+v", cost, rows, shape)
	}
	for _, bad := range []string{"", "[]", `[{}]`, `{"Plan":{}}`, `[{"Plan":{"Plans":[null]}}]`} {
		if _, _, _, err := ParseExplainJSON([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func FuzzParseExplainJSON(f *testing.F) {
	f.Add([]byte(`[{"Plan": {"Node Type": "Seq Scan", "Relation Name": "t", "Plans": [{"Node Type": "Hash"}]}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if shape, _, _, err := ParseExplainJSON(data); err == nil {
			_ = shape.Line()
		}
	})
}

// The capture on a real server: a sampled statement gets its plan, a
// statement whose variable has no value is recorded with why (no generic
// plan before PostgreSQL 16), an error is recorded with the server's
// message, BEGIN is not explainable, a value that smuggles a second
// statement is refused by the extended protocol, and the session is
// leaves the table as it was.
func TestCapturePlans(t *testing.T) {
	url := pgtest.WithPassword(t, pgtest.ConnString(t))
	pgtest.Exec(t, url, "CREATE TABLE cp (id int PRIMARY KEY, v int)", "INSERT INTO cp SELECT g, g FROM generate_series(1, 5000) g", "ANALYZE cp")
	st := func(cmd int, text string) results.PlanStatement {
		return results.PlanStatement{Script: "s", Command: cmd, Text: text}
	}
	reqs := []PlanRequest{
		{Statement: st(0, "BEGIN;"), SQL: "BEGIN;"},
		{Statement: st(1, "SELECT v FROM cp WHERE id = :id;"), SQL: "SELECT v FROM cp WHERE id = 17;"},
		{Statement: st(2, "SELECT v FROM cp WHERE id = :x;"), Generic: "SELECT v FROM cp WHERE id = $1;", NoValue: ":x is set by \\gset"},
		{Statement: st(3, "SELECT v FROM nosuch;"), SQL: "SELECT v FROM nosuch;"},
		{Statement: st(4, "SELECT :a;"), SQL: "SELECT 1; DROP TABLE cp;"},
		{Statement: st(5, "UPDATE cp SET v = v + 1 WHERE id = :id;"), SQL: "UPDATE cp SET v = v + 1 WHERE id = 3;"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := CapturePlans(ctx, PlansConfig{ConnString: url, Seed: "9", Requests: reqs})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Statements) != len(reqs) || p.Seed != "9" || !strings.HasPrefix(p.ServerVersion, "1") {
		t.Fatalf("plans %+v", p)
	}
	s := p.Statements
	if s[0].Shape != nil || !strings.Contains(s[0].Reason, "BEGIN is not a plannable statement") {
		t.Errorf("BEGIN: %+v", s[0])
	}
	if s[1].Method != results.PlanSampled || s[1].Shape.Line() != "Index Scan using cp_pkey on cp" || s[1].Explained != "SELECT v FROM cp WHERE id = 17;" {
		t.Errorf("sampled: %+v", s[1])
	}
	if serverMajor(p.ServerVersion) < 16 {
		if s[2].Shape != nil || s[2].Reason != "not explained: :x is set by \\gset; EXPLAIN (GENERIC_PLAN) needs PostgreSQL 16 or later" {
			t.Errorf("no value: %+v", s[2])
		}
	} else if s[2].Method != results.PlanGeneric || s[2].Shape == nil {
		t.Errorf("generic: %+v", s[2])
	}
	if s[3].Shape != nil || !strings.Contains(s[3].Reason, `EXPLAIN failed: ERROR: relation "nosuch" does not exist`) {
		t.Errorf("error: %+v", s[3])
	}
	if s[4].Shape != nil || !strings.Contains(s[4].Reason, "cannot insert multiple commands into a prepared statement") {
		t.Errorf("two statements: %+v", s[4])
	}
	if s[5].Shape.Line() != "Update on cp ← Index Scan using cp_pkey on cp" {
		t.Errorf("update: %+v", s[5])
	}
	var v int
	pgtest.QueryRow(t, url, "SELECT v FROM cp WHERE id = 3", nil, &v)
	if v != 3 {
		t.Errorf("EXPLAIN changed the row: v = %d", v)
	}
}
