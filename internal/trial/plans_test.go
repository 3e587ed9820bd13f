package trial

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

const plansScript = `\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid \gset
SELECT :abalance + 1;
SELECT :aid \; SELECT 2;
\if :aid > 0
\set big 1
\else
SELECT :nothere;
\endif
END;
`

// The requests of a script: the :variables get the values of client 0's
// first transaction (the same for the same seed, within their ranges), a
// variable only \gset sets has none and says so, a compound command gives
// one request per statement, a command in a branch not taken gets the
// variables as they are at the end.
func TestPlanRequests(t *testing.T) {
	s := testScript(t, "plans.sql", plansScript)
	reqs := func(seed uint64) []collect.PlanRequest {
		c := &Config{Scripts: []Script{s}, Clients: 3, Threads: 1, Seed: prng.Seed{Value: seed}}
		return c.PlanRequests()
	}
	rs := reqs(7)
	var texts []string
	for _, r := range rs {
		texts = append(texts, strconv.Itoa(r.Statement.Command)+"/"+strconv.Itoa(r.Statement.Part)+" "+r.Statement.Text)
	}
	want := []string{
		"2/0 BEGIN;",
		"3/0 UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;",
		"4/0 SELECT abalance FROM pgbench_accounts WHERE aid = :aid",
		"5/0 SELECT :abalance + 1;",
		"6/0 SELECT :aid ;", "6/1 SELECT 2;",
		"10/0 SELECT :nothere;",
		"12/0 END;",
	}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	upd := rs[1]
	if len(upd.Statement.Params) != 2 || upd.Statement.Params[0].Name != "delta" || upd.Statement.Params[1].Name != "aid" {
		t.Fatalf("update's params %+v", upd.Statement.Params)
	}
	aid, err := strconv.Atoi(upd.Statement.Params[1].Value)
	if err != nil || aid < 1 || aid > 100000 {
		t.Errorf("aid = %q, want 1..100000", upd.Statement.Params[1].Value)
	}
	if want := "WHERE aid = " + upd.Statement.Params[1].Value + ";"; !strings.HasSuffix(upd.SQL, want) || strings.Contains(upd.SQL, ":") {
		t.Errorf("update's SQL %q, want the values substituted, ending %q", upd.SQL, want)
	}
	if upd.Generic != "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;" {
		t.Errorf("generic %q", upd.Generic)
	}
	if rs[2].SQL != "SELECT abalance FROM pgbench_accounts WHERE aid = "+upd.Statement.Params[1].Value+" " {
		t.Errorf("the \\gset query: %q", rs[2].SQL)
	}
	if g := rs[3]; g.SQL != "" || !strings.Contains(g.NoValue, ":abalance has no value (perhaps set by the \\gset of command 4") {
		t.Errorf("after \\gset: SQL %q, no value %q", g.SQL, g.NoValue)
	}
	if c := rs[4]; c.SQL != "SELECT "+upd.Statement.Params[1].Value+" ;" || rs[5].SQL != "SELECT 2;" {
		t.Errorf("compound parts %q, %q", c.SQL, rs[5].SQL)
	}
	if n := rs[6]; n.SQL != "" || n.NoValue == "" {
		t.Errorf("the branch not taken: SQL %q, no value %q", n.SQL, n.NoValue)
	}
	if rs[0].SQL != "BEGIN;" || rs[0].Generic != "" {
		t.Errorf("BEGIN: %+v", rs[0])
	}
	// Seeded: the same seed, the same values; other seeds, others.
	if again := reqs(7); again[1].SQL != upd.SQL {
		t.Errorf("seed 7 twice: %q, %q", upd.SQL, again[1].SQL)
	}
	differ := false
	for seed := uint64(8); seed < 20 && !differ; seed++ {
		differ = reqs(seed)[1].SQL != upd.SQL
	}
	if !differ {
		t.Errorf("12 other seeds all gave %q", upd.SQL)
	}
}

// A run writes plans.json before its warm-up: the SELECT with a :variable
// is explained with its value (an index scan of the primary key), BEGIN
// and END are recorded as not explainable, the texts are the script's.
func TestRunRecordsPlans(t *testing.T) {
	url := pgtest.WithPassword(t, pgtest.ConnString(t))
	execSQL(t, url, "CREATE TABLE plans_t (id int PRIMARY KEY, v int)",
		"INSERT INTO plans_t SELECT g, g FROM generate_series(1, 20000) g", "ANALYZE plans_t")
	tgt, _, err := Inspect(context.Background(), url, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	c := &Config{
		ConnString: url, Target: tgt,
		Scripts:  []Script{testScript(t, "point.sql", "\\set id random(1, 20000)\nBEGIN;\nSELECT v FROM plans_t WHERE id = :id;\nEND;\n")},
		Mode:     script.Simple,
		Clients:  1,
		Threads:  1,
		Duration: 300 * time.Millisecond,
		Interval: 100 * time.Millisecond,
		MaxTries: 1,
		Seed:     prng.Seed{Value: 5},
		Collect:  Collect{Kinds: []string{"server"}},
		Dir:      dir,
		Tool:     results.Tool{Name: "pgtrial", Version: "test"},
	}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	p, err := results.ReadPlans(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Statements) != 3 || p.Seed != "5" || p.ServerVersion == "" {
		t.Fatalf("plans %+v", p)
	}
	begin, sel, end := p.Statements[0], p.Statements[1], p.Statements[2]
	for _, s := range []results.PlanStatement{begin, end} {
		if s.Shape != nil || s.Method != "" || !strings.Contains(s.Reason, "not a plannable statement") {
			t.Errorf("%s: %+v", s.Text, s)
		}
	}
	if sel.Method != results.PlanSampled || sel.Shape == nil || len(sel.Params) != 1 || sel.Params[0].Name != "id" {
		t.Fatalf("select: %+v", sel)
	}
	if got, want := sel.Shape.Line(), "Index Scan using plans_t_pkey on plans_t"; got != want {
		t.Errorf("select's shape %q, want %q", got, want)
	}
	if sel.Text != "SELECT v FROM plans_t WHERE id = :id;" || sel.Explained != "SELECT v FROM plans_t WHERE id = "+sel.Params[0].Value+";" || sel.Cost <= 0 {
		t.Errorf("select: text %q, explained %q, cost %v", sel.Text, sel.Explained, sel.Cost)
	}
}
