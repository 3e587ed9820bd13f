package results

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func samplePlans() *Plans {
	return &Plans{
		CapturedAt:    time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		ServerVersion: "15.8",
		Seed:          "42",
		Statements: []PlanStatement{
			{Script: "tpcb-like", Command: 1, Line: 3, Text: "BEGIN;", Reason: "not explainable: BEGIN is not a plannable statement (transaction control or utility)"},
			{Script: "tpcb-like", ScriptIndex: 0, Command: 2, Line: 4, Text: "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;",
				Method: PlanSampled, Explained: "UPDATE pgbench_accounts SET abalance = abalance + 12 WHERE aid = 7;",
				Params: []PlanParam{{"delta", "12"}, {"aid", "7"}}, Cost: 8.44, Rows: 1,
				Shape: &PlanNode{Node: "ModifyTable", Operation: "Update", Relation: "pgbench_accounts", Children: []*PlanNode{
					{Node: "Index Scan", Index: "pgbench_accounts_pkey", Relation: "pgbench_accounts", Parent: "Outer"}}}},
		},
		Warnings: []string{"w"},
	}
}

// plans.json round trip: what is written is read back, with the schema,
// mode 0600; a missing file is fs.ErrNotExist; another schema is refused.
func TestPlansRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p := samplePlans()
	if err := WritePlans(dir, p); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, PlansFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("plans.json: %v, mode %v", err, fi.Mode())
	}
	got, err := ReadPlans(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := *p
	want.Schema = PlansSchema
	if !reflect.DeepEqual(got, &want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, &want)
	}
	if _, err := ReadPlans(t.TempDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no file: %v", err)
	}
	for _, bad := range []string{`{"schema":"pgtrial.plans/v2","statements":[]}`, `{"statements":[]}`, `[1]`, `{"schema":"pgtrial.plans/v1","statements":[{"shape":{"node":1}}]}`} {
		if _, err := ParsePlans([]byte(bad)); err == nil {
			t.Errorf("%s: read", bad)
		}
	}
	deep := `{"schema":"pgtrial.plans/v1","statements":[{"shape":` + strings.Repeat(`{"node":"x","children":[`, 300) + `{"node":"y"}` + strings.Repeat(`]}`, 300) + `}]}`
	if _, err := ParsePlans([]byte(deep)); err == nil || !strings.Contains(err.Error(), "deeper than") {
		t.Errorf("a plan 300 deep: %v", err)
	}
}

// The one-line rendering names nodes as EXPLAIN's text format does.
func TestPlanLine(t *testing.T) {
	p := samplePlans().Statements[1].Shape
	if got, want := p.Line(), "Update on pgbench_accounts ← Index Scan using pgbench_accounts_pkey on pgbench_accounts"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	join := &PlanNode{Node: "Hash Join", Join: "Left", Children: []*PlanNode{
		{Node: "Seq Scan", Relation: "a", Parallel: true, Parent: "Outer"},
		{Node: "Hash", Parent: "Inner", Children: []*PlanNode{{Node: "Bitmap Heap Scan", Relation: "b", Children: []*PlanNode{{Node: "Bitmap Index Scan", Index: "b_k"}}}}},
		{Node: "Result", Parent: "InitPlan"},
	}}
	if got, want := join.Line(), "Hash Left Join ← [Parallel Seq Scan on a; Hash ← Bitmap Heap Scan on b ← Bitmap Index Scan on b_k; InitPlan: Result]"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	back := &PlanNode{Node: "Limit", Children: []*PlanNode{{Node: "Index Only Scan", Index: "t_pkey", Relation: "t", Direction: "Backward"}}}
	if got, want := back.Line(), "Limit ← Index Only Scan Backward using t_pkey on t"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	agg := &PlanNode{Node: "Aggregate", Strategy: "Hashed", Children: []*PlanNode{{Node: "Nested Loop", Join: "Anti"}}}
	if got, want := agg.Line(), "HashAggregate ← Nested Loop Anti Join"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	// The key tells apart what the line may not: the parent relationship.
	a := &PlanNode{Node: "Append", Children: []*PlanNode{{Node: "Seq Scan", Relation: "t", Parent: "Member"}}}
	b := &PlanNode{Node: "Append", Children: []*PlanNode{{Node: "Seq Scan", Relation: "t", Parent: "Outer"}}}
	if a.Line() != b.Line() || a.Key() == b.Key() {
		t.Errorf("keys %q %q", a.Key(), b.Key())
	}
	wide := &PlanNode{Node: "Append"}
	for range 500 {
		wide.Children = append(wide.Children, &PlanNode{Node: "Seq Scan", Relation: "pgbench_accounts_partition"})
	}
	if l := wide.Line(); len(l) > maxPlanLine+10 || !strings.HasSuffix(l, "…") {
		t.Errorf("a wide plan's line is %d bytes", len(l))
	}
}

// The reader takes untrusted bytes: never a panic, and what it reads
// renders.
func FuzzParsePlans(f *testing.F) {
	dir := f.TempDir()
	if err := WritePlans(dir, samplePlans()); err != nil {
		f.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, PlansFile))
	f.Add(data)
	f.Add([]byte(`{"schema":"pgtrial.plans/v1","statements":[{"shape":{"node":"x","children":[null,{"node":"y"}]}}]}`))
	f.Add([]byte(`{"schema":"pgtrial.plans/v1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlans(data)
		if err != nil {
			return
		}
		for _, s := range p.Statements {
			_ = s.Shape.Line()
			_ = s.Shape.Key()
		}
	})
}
