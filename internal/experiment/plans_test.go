package experiment_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/report"
)

// An experiment whose variant creates an index (setup SQL, dropped by the
// teardown): the finding names the SELECT whose plan changed, with the
// baseline's sequential scan and the variant's scan of the new index; the
// statement with a :variable was explained with a value; BEGIN and END are
// listed as not explainable. Short windows, 2 repeats.
func TestExperimentPlansChanged(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, "CREATE TABLE plans_e (id int PRIMARY KEY, k int, pad text)",
		"INSERT INTO plans_e SELECT g, g % 1000, 'x' FROM generate_series(1, 20000) g", "ANALYZE plans_e")
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("point.sql", "\\set k random(1, 999)\nBEGIN;\nSELECT count(*) FROM plans_e WHERE k = :k;\nEND;\n")
	spec, err := experiment.Load(write("exp.yaml", `
name: plans
workload: {scripts: [{file: point.sql}]}
load: {clients: 1, rate: 20}
protocol: {warmup: 0s, window: 1s, repeats: 2}
collect: {kinds: [server]}
variants:
  - {name: base}
  - {name: indexed, setup: ["CREATE INDEX plans_e_k ON plans_e (k)"], teardown: ["DROP INDEX plans_e_k"]}
`))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	env := experiment.Env{ConnString: url, Dir: filepath.Join(t.TempDir(), "exp"), Out: func(s string) { log.WriteString(s + "\n") }}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec, err := experiment.Execute(ctx, spec, env)
	if err != nil {
		t.Fatalf("execute: %v\n%s", err, log.String())
	}
	if rec.Findings == nil || rec.Findings.Plans == nil {
		t.Fatalf("no plans finding: %+v\n%s", rec.Findings, log.String())
	}
	p := rec.Findings.Plans
	if p.Runs != 4 || len(p.Missing) != 0 || p.Baseline != "base" {
		t.Errorf("runs %d, missing %v, baseline %q", p.Runs, p.Missing, p.Baseline)
	}
	if len(p.Changed) != 1 {
		t.Fatalf("changed %+v", p.Changed)
	}
	c := p.Changed[0]
	if c.Kind != explain.PlanChanged || c.Command != 2 || c.Text != "SELECT count(*) FROM plans_e WHERE k = :k;" || len(c.Variants) != 2 {
		t.Fatalf("change %+v", c)
	}
	base, idx := c.Variants[0], c.Variants[1]
	if base.Changed || len(base.Shapes) != 1 || !strings.Contains(base.Shapes[0].Line, "Seq Scan on plans_e") || len(base.Shapes[0].Runs) != 2 {
		t.Errorf("baseline %+v %+v", base, base.Shapes)
	}
	if !idx.Changed || idx.Unstable || len(idx.Shapes) != 1 || !strings.Contains(idx.Shapes[0].Line, "plans_e_k") {
		t.Errorf("variant %+v %+v", idx, idx.Shapes)
	}
	if ps := base.Shapes[0].Params; len(ps) != 1 || ps[0].Name != "k" || ps[0].Value == "" {
		t.Errorf("the :variable's value: %+v", ps)
	}
	// BEGIN and END have no plan by their kind: counted apart, not listed
	// one by one among the statements that could not be explained.
	if len(p.NotExplained) != 0 || p.Utility["BEGIN"] != 1 || p.Utility["END"] != 1 {
		t.Errorf("not explained %+v, utility %v: want none, and BEGIN and END once each", p.NotExplained, p.Utility)
	}
	var out bytes.Buffer
	if err := report.WriteText(&out, (&report.Doc{}).Add(report.ExperimentFindingsBlocks(rec.Findings)...)); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"plans that changed", "point.sql command 2 (line 3): plan changed from base in indexed\n  SELECT count(*) FROM plans_e WHERE k = :k;\n",
		"base (2 runs: 001-base-r1, 003-base-r2, :k=", "Seq Scan on plans_e", "indexed (2 runs", "plans_e_k",
		"plans: 2 transaction-control or utility statements with no plan to compare (BEGIN, END)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendering has no %q:\n%s", want, text)
		}
	}
	t.Logf("rendered:\n%s", text)
}
