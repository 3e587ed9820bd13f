package experiment

import (
	"path/filepath"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgtest/pgbenchdb"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// TestExperimentScenarios: two concurrent scenarios (a reader open at 50
// tx/s, a closed writer) over a ramp by clients from 3 to 5: each level's
// clients are split 2:1 by the largest remainder (3 → 2 + 1, 5 → 3.33 +
// 1.67 → 3 + 2), each run.json has both scenarios with those clients, the
// scenarios' counts add up to the run's, and the reader keeps its rate.
func TestExperimentScenarios(t *testing.T) {
	url, _ := pgbenchdb.Scale1(t)
	spec := experimentFile(t, `
scenarios:
  - {name: reader, builtin: select-only, clients: 2, rate: 50, arrival: uniform}
  - {name: writer, builtin: simple-update, clients: 1, closed: true}
load: {ramp: {by: clients, from: 3, to: 5, steps: 2, step_duration: 2s}}
protocol: {warmup: 1s, repeats: 1}
collect: false
`)
	env, log := testEnv(t, url, nil)
	rec := execute(t, spec, env, log)
	if len(rec.Runs) != 2 || len(rec.Ramp) != 2 {
		t.Fatalf("%d runs, %d ramp levels, want 2 and 2\n%s", len(rec.Runs), len(rec.Ramp), log)
	}
	if len(rec.Scenarios) != 2 || rec.Scenarios[0] != (ScenarioRecord{Name: "reader", Workload: "select-only", Kind: results.ModelOpen, Clients: 2, Rate: 50, Arrival: "uniform", Overload: "queue"}) ||
		rec.Scenarios[1].Kind != results.ModelClosed || rec.Scenarios[1].Clients != 1 {
		t.Errorf("experiment.json's scenarios: %+v", rec.Scenarios)
	}
	for i, want := range []struct {
		level          float64
		reader, writer int
		name           string
	}{{3, 2, 1, "001-baseline-r1-step-3"}, {5, 3, 2, "002-baseline-r1-step-5"}} {
		rr := rec.Runs[i]
		if l := rec.Ramp[i]; l.Level != want.level || len(l.Runs) != 1 {
			t.Errorf("ramp level %d: %+v, want level %g of 1 run (collectors off)", i, l, want.level)
		}
		if rr.Level != want.level || rr.Clients != want.reader+want.writer || filepath.Base(rr.Dir) != want.name {
			t.Errorf("run %d: level %g, %d clients, dir %s; want %g, %d, %s", i, rr.Level, rr.Clients, rr.Dir, want.level, want.reader+want.writer, want.name)
		}
		run, err := results.Load(filepath.Join(env.Dir, rr.Dir))
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Scenarios) != 2 {
			t.Fatalf("run %d: %d scenarios in run.json, want 2", i, len(run.Scenarios))
		}
		rd, wr := run.Scenarios[0], run.Scenarios[1]
		if rd.Name != "reader" || rd.Clients != want.reader || rd.Kind != results.ModelOpen || rd.Rate != 50 ||
			wr.Name != "writer" || wr.Clients != want.writer || wr.Kind != results.ModelClosed || run.Model.Clients != want.reader+want.writer {
			t.Errorf("run %d: scenarios %+v / %+v, run clients %d; want reader %d open 50, writer %d closed", i, rd, wr, run.Model.Clients, want.reader, want.writer)
		}
		if rd.Summary == nil || wr.Summary == nil || run.Summary == nil {
			t.Fatalf("run %d: no summary", i)
		}
		// The counts add up: every transaction is one scenario's.
		total := run.Summary.Total.Committed
		if got := rd.Summary.Total.Committed + wr.Summary.Total.Committed; got != total || total == 0 {
			t.Errorf("run %d: scenarios committed %d + %d, the run %d", i, rd.Summary.Total.Committed, wr.Summary.Total.Committed, total)
		}
		// Uniform arrivals at 50 tx/s over 2 s: about 100, the edges aside.
		if tps := rd.Summary.Total.TPS; tps < 35 || tps > 65 {
			t.Errorf("run %d: reader at %.1f tps, want about 50", i, tps)
		}
		if wr.Summary.Total.Committed == 0 {
			t.Errorf("run %d: the closed writer committed nothing", i)
		}
		// The run's record keeps the same figures.
		if len(rr.Scenarios) != 2 || rr.Scenarios[0].Clients != want.reader || rr.Scenarios[1].Clients != want.writer ||
			rr.Scenarios[0].Committed != rd.Summary.Total.Committed || rr.Scenarios[1].TPS != wr.Summary.Total.TPS {
			t.Errorf("run %d: record's scenarios %+v", i, rr.Scenarios)
		}
	}
}

// TestUseScenarios: a run's scenarios at a ramp's level. By rate, the open
// scenarios share the level in proportion to their rates and the closed
// one keeps its clients; threads are resolved per scenario (at most its
// clients); the run's sums follow.
func TestUseScenarios(t *testing.T) {
	spec, err := Parse("x.yaml", []byte(`
scenarios:
  - {name: a, builtin: select-only, rate: 10, clients: 2, threads: 4}
  - {name: b, builtin: select-only, rate: 30, clients: 3, threads: 1}
  - {name: c, builtin: simple-update, closed: true, clients: 2}
load: {ramp: {by: rate, from: 100, to: 200, steps: 2}}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{spec: spec}
	if err := r.loadScenarios(); err != nil {
		t.Fatal(err)
	}
	if len(r.scripts) != 3 || r.scenarios[2].First != 2 || r.scenarios[2].N != 1 {
		t.Fatalf("scripts %d, scenarios %+v", len(r.scripts), r.scenarios)
	}
	tc := &trial.Config{Scripts: r.scripts}
	p := runPlan{level: 200, rate: 200, clients: spec.Load.Clients}
	if err := r.useScenarios(tc, &p); err != nil {
		t.Fatal(err)
	}
	got := tc.Scenarios
	if len(got) != 3 || got[0].Rate != 50 || got[1].Rate != 150 || got[2].Rate != 0 ||
		got[0].Clients != 2 || got[1].Clients != 3 || got[2].Clients != 2 || got[0].Threads != 2 || got[1].Threads != 1 {
		t.Errorf("scenarios at 200 tx/s: %+v", got)
	}
	// A closed scenario makes the run closed as a whole; the clients add up.
	if tc.Rate != 0 || tc.Clients != 7 || p.clients != 7 {
		t.Errorf("run rate %g, clients %d (plan %d); want 0 and 7", tc.Rate, tc.Clients, p.clients)
	}
	if r.scenarios[0].Rate != 10 {
		t.Errorf("the file's scenarios changed: %+v", r.scenarios[0])
	}
}
