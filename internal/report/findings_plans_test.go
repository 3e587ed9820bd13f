package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// The run report has a plans table from plans.json: the shape, or "—"
// with why; none without the file. Texts from the server are escaped in
// HTML.
func TestRunReportPlans(t *testing.T) {
	dir := writeRun(t, resultstest.Options{})
	if hasPlansTable(makeReport(t, dir)) {
		t.Fatal("a plans table without plans.json")
	}
	err := results.WritePlans(dir, &results.Plans{Statements: []results.PlanStatement{
		{Script: "s.sql", Command: 0, Text: "BEGIN;", Reason: "not explainable: BEGIN is not a plannable statement (transaction control or utility)"},
		{Script: "s.sql", Command: 1, Text: "SELECT * FROM \"<b>t\" WHERE id = :id;", Method: results.PlanSampled, Cost: 8.3,
			Shape: &results.PlanNode{Node: "Index Scan", Index: "t_pkey", Relation: "<b>t"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	d := makeReport(t, dir)
	var tab *Table
	for _, b := range d.Blocks {
		if tb, ok := b.(*Table); ok && strings.HasPrefix(tb.Title, "plans (") {
			tab = tb
		}
	}
	if tab == nil || len(tab.Rows) != 2 {
		t.Fatalf("plans table %+v", tab)
	}
	if c := tab.Rows[0][3]; c.Why == "" || !strings.Contains(c.Why, "BEGIN is not a plannable") {
		t.Errorf("BEGIN's plan cell %+v", c)
	}
	if c := tab.Rows[1][3]; c.Text != "Index Scan using t_pkey on <b>t" {
		t.Errorf("the plan cell %+v", c)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html.String(), "<b>t") || !strings.Contains(html.String(), "&lt;b&gt;t") {
		t.Error("the relation's name is not escaped in HTML")
	}
}

func hasPlansTable(d *Doc) bool {
	for _, b := range d.Blocks {
		if tb, ok := b.(*Table); ok && strings.HasPrefix(tb.Title, "plans (") {
			return true
		}
	}
	return false
}

// The experiment's plans: a changed statement with both shapes, an
// unstable one said to differ between runs, the missing runs noted.
func TestPlanChangesBlocks(t *testing.T) {
	if planChangesBlocks(nil) != nil {
		t.Error("blocks of no finding")
	}
	seq := &explain.PlanShape{Line: "Seq Scan on t", Runs: []string{"001-a-r1", "003-a-r2"}, Method: results.PlanSampled,
		Params: []results.PlanParam{{Name: "k", Value: "7"}}}
	idx := &explain.PlanShape{Line: "Index Scan using t_k on t", Runs: []string{"002-b-r1"}, Method: results.PlanGeneric}
	p := &explain.PlanChanges{Baseline: "a", Same: 2, Runs: 3, Missing: []string{"004-b-r2: no plans.json"},
		Changed: []*explain.PlanChange{
			{Script: "/x/s.sql", Command: 2, Line: 4, Text: "SELECT * FROM t WHERE k = :k;", Kind: explain.PlanChanged,
				Variants: []*explain.PlanVariant{{Variant: "a", Shapes: []*explain.PlanShape{seq}}, {Variant: "b", Changed: true, Shapes: []*explain.PlanShape{idx}}}},
			{Script: "/x/s.sql", Command: 3, Text: "SELECT 2;", Kind: explain.PlanUnstable,
				Variants: []*explain.PlanVariant{{Variant: "a", Unstable: true, Shapes: []*explain.PlanShape{seq, idx}}}},
		}}
	var out bytes.Buffer
	if err := WriteText(&out, (&Doc{}).Add(planChangesBlocks(p)...)); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"s.sql command 2 (line 4): plan changed from a in b\n  SELECT * FROM t WHERE k = :k;\n",
		"    a (2 runs: 001-a-r1, 003-a-r2, :k=7): Seq Scan on t\n",
		"    b (1 run: 002-b-r1, generic plan): Index Scan using t_k on t\n",
		"s.sql command 3: plan differs between the runs of a (each run samples its parameters",
		"2 statements had the same plan in every run of every variant (3 runs with plans.json)",
		"plans: missing: 004-b-r2: no plans.json",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
}
