package experiment

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// TestTPCCNeedsLoad: the file's warehouses are loaded when the database has
// none, another count, or an unfinished load, all of pgtrial's making;
// tables of those names that pgtrial did not create are refused; without
// warehouses in the file nothing is loaded.
func TestTPCCNeedsLoad(t *testing.T) {
	all := workload.TPCCTables
	for _, tc := range []struct {
		name   string
		tables tpccTables
		want   int
		load   bool
		err    string
	}{
		{"none there", tpccTables{}, 1, true, ""},
		{"the same count", tpccTables{present: all, warehouses: 1}, 1, false, ""},
		{"another count", tpccTables{present: all, warehouses: 2}, 1, true, ""},
		{"an unfinished load (no tpcc_meta row)", tpccTables{present: all[:4]}, 1, true, ""},
		{"a table dropped since", tpccTables{present: all[1:], warehouses: 1}, 1, true, ""},
		{"not pgtrial's", tpccTables{present: []string{"stock", "warehouse"}, unmarked: []string{"stock", "warehouse"}}, 3, false,
			`x.yaml: workload.warehouses is 3, and database "db" has stock, warehouse, which pgtrial did not create`},
		{"the file gives no warehouses", tpccTables{}, 0, false, ""},
	} {
		load, err := tpccNeedsLoad(tc.tables, tc.want, "x.yaml", "db")
		if load != tc.load || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: load %v, error %v; want %v, %q", tc.name, load, err, tc.load, tc.err)
		}
		if err != nil && !strings.Contains(err.Error(), "pgtrial init -w tpcc --warehouses 3 --force") {
			t.Errorf("%s: no hint in %v", tc.name, err)
		}
	}
}

// tpccRun is a run.json's tpcc section for the summary's tests.
func tpccRun(tpmc, nopm float64, p90 []float64, checks ...bool) *results.TPCC {
	t := &results.TPCC{Mode: "throughput", Warehouses: 2, Note: "throughput mode: not comparable with published tpmC",
		TpmC: tpmc, NOPM: nopm, ExpectedRatio: 0.99}
	if nopm == 0 {
		t.NOPMMissing = "sum(d_next_o_id) was not sampled"
	} else {
		t.Ratio = nopm / tpmc
		t.Agree = t.Ratio > 0.891 && t.Ratio < 1.089
	}
	for i, name := range []string{"new-order", "payment"} {
		ty := results.TPCCType{Name: name, LimitMs: 5000, P90Ms: p90[i], Committed: 10, Failed: 1}
		if p90[i] < 0 {
			ty.Committed, ty.P90Ms = 0, 0
		}
		ty.Pass = ty.Committed > 0 && ty.P90Ms <= ty.LimitMs
		t.Types = append(t.Types, ty)
	}
	for i, pass := range checks {
		t.Checks = append(t.Checks, results.TPCCCheck{Condition: i + 1, Pass: pass})
	}
	if len(checks) == 0 {
		t.ChecksSkipped = "the run was interrupted"
	}
	return t
}

// TestTPCCSummaries: per variant in the order run, each figure the median
// (min–max) of the runs' values; limits and checks counted over the runs;
// NOPM over the runs that have it; a search's probes and runs without tpcc
// left out.
func TestTPCCSummaries(t *testing.T) {
	runs := []RunRecord{{N: 1, Variant: "a"}, {N: 2, Variant: "b"}, {N: 3, Variant: "a"}, {N: 4, Variant: "b"},
		{N: 5, Variant: "a"}, {N: 6, Variant: "a", Phase: "open"}, {N: 7, Variant: "b"}}
	loaded := map[int]*results.Run{
		1: {TPCC: tpccRun(1000, 990, []float64{10, 20}, true, true)},
		2: {TPCC: tpccRun(2000, 1980, []float64{10, 6000}, true, false)},
		3: {TPCC: tpccRun(1200, 1188, []float64{30, 40}, true, true)},
		4: {TPCC: tpccRun(2200, 0, []float64{10, -1})},
		5: {TPCC: tpccRun(1100, 800, []float64{20, 30}, true, true)},
		6: {TPCC: tpccRun(9999, 9999, []float64{1, 1}, true, true)},
		7: {}, // no tpcc section
	}
	got := tpccSummaries(runs, loaded)
	if len(got) != 2 || got[0].Variant != "a" || got[1].Variant != "b" {
		t.Fatalf("summaries %+v, want a then b", got)
	}
	a, b := got[0], got[1]
	if !slices.Equal(a.Runs, []int{1, 3, 5}) || !slices.Equal(b.Runs, []int{2, 4}) {
		t.Errorf("runs a %v, b %v", a.Runs, b.Runs)
	}
	if a.TpmC.N != 3 || a.TpmC.Median != 1100 || a.TpmC.Min != 1000 || a.TpmC.Max != 1200 {
		t.Errorf("a tpmC %+v, want 1100 (1000–1200)", a.TpmC)
	}
	if a.NOPM.Median != 990 || a.Ratio.N != 3 || a.Ratio.Min != 800.0/1100 || a.Agree != 2 {
		t.Errorf("a NOPM %+v, ratio %+v, agree %d; want median 990, 3 ratios from %g, 2 agreeing", a.NOPM, a.Ratio, a.Agree, 800.0/1100)
	}
	if a.LimitsMet != 3 || b.LimitsMet != 0 {
		t.Errorf("limits met in %d and %d runs, want 3 and 0", a.LimitsMet, b.LimitsMet)
	}
	if a.Consistency.Pass != 3 || len(a.Consistency.Failed) != 0 || a.Mode != "throughput" || a.Warehouses != 2 {
		t.Errorf("a consistency %+v, mode %s, warehouses %d", a.Consistency, a.Mode, a.Warehouses)
	}
	if b.NOPM.N != 1 || b.NOPM.Median != 1980 || len(b.NOPMMissing) != 1 || !strings.HasPrefix(b.NOPMMissing[0], "run 4: ") {
		t.Errorf("b NOPM %+v, missing %v; want run 2's only", b.NOPM, b.NOPMMissing)
	}
	if !slices.Equal(b.Consistency.Failed, []int{2}) || len(b.Consistency.Skipped) != 1 || !strings.Contains(b.Consistency.Skipped[0], "run 4: the run was interrupted") {
		t.Errorf("b consistency %+v", b.Consistency)
	}
	if len(b.Types) != 2 {
		t.Fatalf("b types %+v", b.Types)
	}
	if p := b.Types[1]; p.Name != "payment" || p.Pass != 0 || p.Fail != 2 || p.P90Ms.N != 1 || p.P90Ms.Median != 6000 || p.Failed != 2 {
		t.Errorf("b payment %+v: want failing in both runs (over the limit, none completed), p90 of run 2 only", p)
	}
	if n := a.Types[0]; n.Pass != 3 || n.Fail != 0 || n.P90Ms.Median != 20 {
		t.Errorf("a new-order %+v", n)
	}
	if tpccSummaries(runs, map[int]*results.Run{}) != nil {
		t.Error("no run loaded: want no summary")
	}
}

// TestExperimentTPCC: an experiment of builtin tpcc with warehouses: 1 on
// an empty database loads the tables itself (as init -w tpcc), makes two
// 3-s runs that pass the consistency checks, and summarises their tpmC,
// NOPM and limits in experiment.json; a second preflight finds the tables
// and loads nothing, and one with tpcc_meta at another count loads again.
func TestExperimentTPCC(t *testing.T) {
	url := pgtest.ConnString(t)
	const file = `
name: tpcc
workload: {builtin: tpcc, warehouses: 1, max_tries: 10}
load: {clients: 2, closed: true}
protocol: {warmup: 1s, window: 3s, repeats: 2}
collect: false
`
	spec := experimentFile(t, file)
	env, log := testEnv(t, url, nil)
	start := time.Now()
	rec := execute(t, spec, env, log)
	t.Logf("experiment in %v\n%s", time.Since(start).Round(time.Millisecond), log)
	if l := rec.Loaded; l == nil || l.Workload != "tpcc" || l.Warehouses != 1 || l.Command != "pgtrial init -w tpcc --warehouses 1 --seed 1" || l.DurationS <= 0 {
		t.Errorf("loaded %+v, want the tpcc load of 1 warehouse", rec.Loaded)
	}
	if rec.Warehouses != 1 || rec.Workload != "tpcc" || len(rec.Runs) != 2 {
		t.Fatalf("warehouses %d, workload %q, %d runs", rec.Warehouses, rec.Workload, len(rec.Runs))
	}
	onDisk, err := LoadRecord(env.Dir)
	if err != nil || len(onDisk.TPCC) != 1 || onDisk.Loaded == nil {
		t.Fatalf("experiment.json: %v, tpcc %+v, loaded %+v", err, onDisk.TPCC, onDisk.Loaded)
	}
	// Each run's run.json has the probe's variables as the clients got them.
	run1, err := results.Load(filepath.Join(env.Dir, rec.Runs[0].Dir))
	if err != nil {
		t.Fatal(err)
	}
	if p := run1.Workload.Probe; p["warehouses"] != "1" || p["c_run_c_last"] == "" {
		t.Errorf("run.json workload.probe %v, want warehouses 1 and the run-time C", p)
	}
	s := onDisk.TPCC[0]
	t.Logf("tpmC %+v\nNOPM %+v\nratio %+v", s.TpmC, s.NOPM, s.Ratio)
	if s.Variant != "baseline" || !slices.Equal(s.Runs, []int{1, 2}) || s.Mode != "throughput" || s.Warehouses != 1 {
		t.Errorf("summary %+v", s)
	}
	if s.TpmC.N != 2 || s.TpmC.Min <= 0 || s.NOPM.N != 2 || s.NOPM.Min <= 0 {
		t.Errorf("tpmC %+v, NOPM %+v: want both runs' positive figures", s.TpmC, s.NOPM)
	}
	// NOPM/tpmC is 0.99 but for the New-Orders at the window's edges.
	if s.Ratio.N != 2 || s.Ratio.Min < 0.8 || s.Ratio.Max > 1.2 {
		t.Errorf("NOPM/tpmC %+v, want about %g", s.Ratio, s.ExpectedRatio)
	}
	if s.Consistency.Pass != 2 || len(s.Consistency.Failed)+len(s.Consistency.Skipped) != 0 {
		t.Errorf("consistency %+v, want both runs passing", s.Consistency)
	}
	if len(s.Types) != 5 || s.Types[0].Name != "new-order" {
		t.Fatalf("types %+v", s.Types)
	}
	for _, ty := range s.Types {
		if ty.Pass+ty.Fail != 2 {
			t.Errorf("%s: pass %d + fail %d, want 2 runs", ty.Name, ty.Pass, ty.Fail)
		}
	}

	// The tables are there now: nothing to load.
	pre := func() *runner {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r := &runner{spec: experimentFile(t, file), env: env, current: -1}
		if err := r.preflight(ctx); err != nil {
			t.Fatalf("preflight: %v", err)
		}
		return r
	}
	if r := pre(); r.tpccLoad || r.tpccWarehouses != 1 || len(r.tpccProbe) == 0 {
		t.Errorf("second preflight: load %v, warehouses %d, probe %v; want the tables used as they are", r.tpccLoad, r.tpccWarehouses, r.tpccProbe)
	}
	pgtest.Exec(t, url, "UPDATE tpcc_meta SET warehouses = 2")
	if r := pre(); !r.tpccLoad || r.tpccWarehouses != 1 {
		t.Errorf("tpcc_meta at 2 warehouses: load %v, warehouses %d; want 1 loaded", r.tpccLoad, r.tpccWarehouses)
	}
}

// TestExperimentTPCCRefusesForeignTables: a table named like a TPC-C table
// that pgtrial did not create stops the experiment before anything
// changes, naming the table and the way out.
func TestExperimentTPCCRefusesForeignTables(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, "CREATE TABLE stock (s_i_id int)", "INSERT INTO stock VALUES (7)")
	spec := experimentFile(t, "workload: {builtin: tpcc, warehouses: 1}\nload: {clients: 1, closed: true}\nprotocol: {warmup: 0s, window: 2s, repeats: 1}\ncollect: false\n")
	env, log := testEnv(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec, err := Execute(ctx, spec, env)
	if err == nil || rec != nil {
		t.Fatalf("err %v, record %v; want a refusal\n%s", err, rec, log)
	}
	for _, want := range []string{"stock, which pgtrial did not create", "nothing was changed", "--force"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	var n int
	pgtest.QueryRow(t, url, "SELECT s_i_id FROM stock", nil, &n)
	if n != 7 {
		t.Errorf("stock: %d; want the table untouched", n)
	}
}
