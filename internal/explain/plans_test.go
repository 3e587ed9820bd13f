package explain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

// planRun writes a run directory with a plans.json of the statements and
// returns its ExpRun.
func planRun(t *testing.T, root, name, variant string, repeat int, stmts ...results.PlanStatement) ExpRun {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if stmts != nil {
		if err := results.WritePlans(dir, &results.Plans{Statements: stmts}); err != nil {
			t.Fatal(err)
		}
	}
	return ExpRun{Variant: variant, Repeat: repeat, Dir: dir}
}

var (
	seqScan    = &results.PlanNode{Node: "Seq Scan", Relation: "t"}
	bitmapScan = &results.PlanNode{Node: "Bitmap Heap Scan", Relation: "t", Children: []*results.PlanNode{
		{Node: "Bitmap Index Scan", Index: "t_k", Parent: "Outer"}}}
	backward = &results.PlanNode{Node: "Limit", Children: []*results.PlanNode{
		{Node: "Index Scan", Index: "t_pkey", Relation: "t", Direction: "Backward", Parent: "Outer"}}}
)

func stmt(cmd int, text string, shape *results.PlanNode) results.PlanStatement {
	s := results.PlanStatement{Script: "s.sql", Command: cmd, Text: text, Shape: shape}
	if shape != nil {
		s.Method = results.PlanSampled
	} else {
		s.Reason = "not explainable: BEGIN is not a plannable statement (transaction control or utility)"
	}
	return s
}

// Across variants: the statement whose shape differs is named with both
// shapes, one whose shape is the same everywhere is counted as same, a
// shape that differs between repeats of a variant is unstable, BEGIN is
// listed as not explained, a run without plans.json is missing.
func TestPlanChanges(t *testing.T) {
	root := t.TempDir()
	q := "SELECT * FROM t WHERE k = :k ORDER BY id DESC LIMIT 10;"
	in := &ExperimentInput{Variants: []string{"uniform", "skewed"}, Runs: []ExpRun{
		planRun(t, root, "001-uniform-r1", "uniform", 1, stmt(0, "BEGIN;", nil), stmt(1, q, bitmapScan), stmt(2, "SELECT 1;", seqScan), stmt(3, "SELECT 2;", seqScan)),
		planRun(t, root, "002-skewed-r1", "skewed", 1, stmt(0, "BEGIN;", nil), stmt(1, q, backward), stmt(2, "SELECT   1;", seqScan), stmt(3, "SELECT 2;", seqScan)),
		planRun(t, root, "003-uniform-r2", "uniform", 2, stmt(0, "BEGIN;", nil), stmt(1, q, bitmapScan), stmt(2, "SELECT 1;", seqScan), stmt(3, "SELECT 2;", bitmapScan)),
		planRun(t, root, "004-skewed-r2", "skewed", 2, stmt(0, "BEGIN;", nil), stmt(1, q, backward), stmt(2, "SELECT 1;", seqScan), stmt(3, "SELECT 2;", seqScan)),
		planRun(t, root, "005-skewed-r3", "skewed", 3),
	}}
	f := Experiment(in, Defaults())
	p := f.Plans
	if p == nil {
		t.Fatalf("no plans finding; warnings %v", f.Warnings)
	}
	if p.Runs != 4 || len(p.Missing) != 1 || !strings.HasPrefix(p.Missing[0], "005-skewed-r3: no plans.json") {
		t.Errorf("runs %d, missing %v", p.Runs, p.Missing)
	}
	if p.Same != 1 || len(p.Changed) != 2 {
		t.Fatalf("same %d, changed %+v", p.Same, p.Changed)
	}
	c := p.Changed[0]
	if c.Command != 1 || c.Kind != PlanChanged || len(c.Variants) != 2 {
		t.Fatalf("changed[0] %+v", c)
	}
	b, v := c.Variants[0], c.Variants[1]
	if b.Variant != "uniform" || b.Changed || len(b.Shapes) != 1 || b.Shapes[0].Line != "Bitmap Heap Scan on t ← Bitmap Index Scan on t_k" ||
		strings.Join(b.Shapes[0].Runs, ",") != "001-uniform-r1,003-uniform-r2" {
		t.Errorf("baseline %+v %+v", b, b.Shapes[0])
	}
	if v.Variant != "skewed" || !v.Changed || v.Unstable || len(v.Shapes) != 1 || v.Shapes[0].Line != "Limit ← Index Scan Backward using t_pkey on t" {
		t.Errorf("variant %+v %+v", v, v.Shapes[0])
	}
	u := p.Changed[1]
	if u.Command != 3 || u.Kind != PlanUnstable || !u.Variants[0].Unstable || len(u.Variants[0].Shapes) != 2 || !u.Variants[1].Changed {
		t.Errorf("unstable %+v", u)
	}
	if len(p.NotExplained) != 1 || p.NotExplained[0].Text != "BEGIN;" || p.NotExplained[0].Runs != 4 {
		t.Errorf("not explained %+v", p.NotExplained)
	}
	if w := planWarnings(f.Warnings); len(w) != 1 || !strings.Contains(w[0], "1 of 5 runs have no plans.json") {
		t.Errorf("warnings %v", f.Warnings)
	}

	// No run with plans.json: no finding, a warning that says missing.
	none := &ExperimentInput{Variants: []string{"a"}, Runs: []ExpRun{planRun(t, root, "x", "a", 1)}}
	if f := Experiment(none, Defaults()); f.Plans != nil || len(planWarnings(f.Warnings)) != 1 || !strings.Contains(planWarnings(f.Warnings)[0], "plans: missing") {
		t.Errorf("no plans.json: %+v, %v", f.Plans, f.Warnings)
	}
}

// planWarnings are the plans' part's warnings (the other parts have theirs).
func planWarnings(ws []string) []string {
	var out []string
	for _, w := range ws {
		if strings.HasPrefix(w, "plans: ") {
			out = append(out, w)
		}
	}
	return out
}
