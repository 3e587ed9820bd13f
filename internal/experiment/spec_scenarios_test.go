package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pgtrial/pgtrial/internal/engine"
)

// TestScenariosGood: scenarios decode into the spec, with their defaults,
// and the load holds their sums.
func TestScenariosGood(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "w.sql"), []byte("UPDATE pgbench_branches SET bbalance = bbalance WHERE bid = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, yaml string
		want       []ScenarioSpec
		model      Model
		load       LoadSpec
	}{
		{"open and closed", `workload: {scale: 1}
scenarios:
  - {name: reader, builtin: select, rate: 50, arrival: uniform, threads: 2, clients: 3}
  - name: writer
    scripts: [{file: w.sql, weight: 2}]
    closed: true
`, []ScenarioSpec{
			{Name: "reader", Builtin: "select-only", Clients: 3, Threads: 2, Rate: 50, Arrival: engine.Uniform, Pos: Pos{3, 5}},
			{Name: "writer", Scripts: []Script{{File: "w.sql", Path: filepath.Join(dir, "w.sql"), Weight: 2, Pos: Pos{5, 15}}}, Clients: 1, Pos: Pos{4, 5}},
		}, ModelClosed, LoadSpec{Clients: 4, Closed: true}},
		{"all open, default builtin", `scenarios:
  - {name: a, rate: 10, overload: drop}
  - {name: b, rate: 30, clients: 2}
`, []ScenarioSpec{
			{Name: "a", Builtin: DefaultBuiltin, Clients: 1, Rate: 10, Overload: engine.Drop, Pos: Pos{2, 5}},
			{Name: "b", Builtin: DefaultBuiltin, Clients: 2, Rate: 30, Pos: Pos{3, 5}},
		}, ModelOpen, LoadSpec{Clients: 3, Rate: 40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "x.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.Scenarios, tc.want) {
				t.Errorf("scenarios\n got %+v\nwant %+v", s.Scenarios, tc.want)
			}
			if s.Model() != tc.model || s.Load != tc.load {
				t.Errorf("model %v, load %+v; want %v, %+v", s.Model(), s.Load, tc.model, tc.load)
			}
			if s.Workload.Builtin != "" || s.Workload.Scripts != nil {
				t.Errorf("workload %+v: the scenarios' scripts are not the workload's", s.Workload)
			}
		})
	}
	t.Run("ramp by clients", func(t *testing.T) {
		s, err := Parse("x.yaml", []byte(`scenarios: [{name: r, builtin: select-only, rate: 50}, {name: w, builtin: simple-update, closed: true}]
load: {latency_limit: 1s, ramp: {by: clients, from: 2, to: 4, steps: 2, step_duration: 1s}}
protocol: {warmup: 0s}
`))
		if err != nil {
			t.Fatal(err)
		}
		if s.Model() != ModelRamp || s.Load.Clients != 0 || s.Load.LatencyLimit.Seconds() != 1 || len(s.Scenarios) != 2 {
			t.Errorf("model %v, load %+v, %d scenarios", s.Model(), s.Load, len(s.Scenarios))
		}
	})
}

// TestScenariosBad: each bad file gives exactly these errors, at the key
// or value, saying what to do.
func TestScenariosBad(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "think.sql"), []byte("\\think 1ms\nSELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		yaml string
		want string
	}{
		{"duplicate names", "scenarios:\n  - {name: a, rate: 10}\n  - {name: a, closed: true}\n",
			`x.yaml:3:12: scenarios[1].name: scenario a is given twice (first at line 2): give each scenario its own name`},
		{"no model", "scenarios: [{name: a, clients: 2}]\n",
			`x.yaml:1:13: scenarios[0]: choose the scenario's model: rate: N (open model, tx/s of its clients together) or closed: true (each client loops), e.g. {name: a, rate: 100}`},
		{"rate and closed", "scenarios: [{name: a, rate: 5, closed: true}]\n",
			`x.yaml:1:32: scenarios[0].closed: rate and closed exclude each other: the scenario is open (rate: N) or closed (closed: true)`},
		{"no name, bad name", "scenarios: [{rate: 5}, {name: 'a b', rate: 5}]\n",
			"x.yaml:1:13: scenarios[0]: no name: each scenario needs a name, e.g. {name: reader, builtin: select-only, rate: 300}\n" +
				`x.yaml:1:31: scenarios[1].name: "a b": use letters, digits, '-' and '_' (at most 64)`},
		{"arrival of a closed scenario", "scenarios: [{name: a, closed: true, arrival: uniform}]\n",
			`x.yaml:1:37: scenarios[0].arrival: applies to an open scenario (one with a rate), not to a closed one`},
		{"out of range", "scenarios: [{name: a, rate: 5, clients: 0, threads: -1}]\n",
			"x.yaml:1:41: scenarios[0].clients: 0 is out of range: at least 1 client\n" +
				"x.yaml:1:53: scenarios[0].threads: -1 is out of range: give at least 1, or 0 for min(clients, CPUs)"},
		{"unknown builtin, tpcc", "scenarios: [{name: a, rate: 5, builtin: nope}, {name: b, rate: 5, builtin: tpcc}]\n",
			`x.yaml:1:41: scenarios[0].builtin: no built-in script "nope": choose "tpcb-like", "simple-update" or "select-only" (any unambiguous prefix), or give script files (scripts)` + "\n" +
				`x.yaml:1:76: scenarios[1].builtin: the TPC-C-like workload runs on its own (workload.builtin: tpcc without scenarios): give a scenario tpcb-like, simple-update, select-only or script files`},
		{"builtin and scripts", "scenarios: [{name: a, rate: 5, builtin: select-only, scripts: [{file: think.sql}]}]\n",
			`x.yaml:1:54: scenarios[0].scripts: builtin and scripts exclude each other: a scenario runs a built-in script or script files`},
		{"think in an open scenario", "scenarios: [{name: a, rate: 5, scripts: [{file: think.sql}]}, {name: b, closed: true, scripts: [{file: think.sql}]}]\n",
			`x.yaml:1:42: scenarios[0].scripts[0]: think.sql has \think, which is for the closed model: in an open scenario the rate sets the arrivals; make the scenario closed (closed: true instead of rate), or use a script without \think`},
		{"empty", "scenarios: []\n",
			`x.yaml:1:12: scenarios: empty: give at least one scenario, e.g. [{name: reader, builtin: select-only, rate: 300}], or leave scenarios out`},
		{"workload scripts and load keys", "workload: {builtin: select-only}\nload: {clients: 4, rate: 10}\nscenarios: [{name: a, rate: 5}]\n",
			"x.yaml:1:12: workload.builtin: with scenarios, each scenario gives its scripts: move builtin into the scenarios (scenarios[…].builtin), or leave scenarios out\n" +
				"x.yaml:2:8: load.clients: with scenarios, each scenario has its own clients: give it in scenarios[…] (load keeps ramp and latency_limit)\n" +
				"x.yaml:2:20: load.rate: with scenarios, each scenario has its own rate: give it in scenarios[…] (load keeps ramp and latency_limit)"},
		{"search", "scenarios: [{name: a, rate: 5}]\nsearch: {slo: {p99: 10ms}}\n",
			`x.yaml:2:1: search: a capacity search with scenarios is not supported (it searches one rate for one workload): ramp the scenarios by rate (load.ramp) instead, or leave scenarios out`},
		{"ramp by rate, all closed", "scenarios: [{name: a, closed: true}]\nload: {ramp: {by: rate, from: 10, to: 20, steps: 2}}\n",
			`x.yaml:2:15: load.ramp.by: a ramp by rate scales the open scenarios' rates, and every scenario is closed: give a scenario a rate, or ramp by clients`},
		{"ramp by clients below the scenarios", "scenarios: [{name: a, closed: true}, {name: b, closed: true}, {name: c, rate: 3}]\nload: {ramp: {by: clients, from: 2, to: 8, steps: 2}}\n",
			`x.yaml:2:28: load.ramp.from: 2 clients are fewer than the 3 scenarios, each of which needs a client: start the ramp at 3 clients or more`},
		{"slo with a closed scenario", "scenarios: [{name: a, closed: true}, {name: b, rate: 3}]\nslo: [{p99: 10ms}]\n",
			`x.yaml:2:1: slo: SLOs need the open model (rate, ramp by rate or search): a closed model's latency understates what users see`},
		{"slo, ramp by rate, a closed scenario", "scenarios: [{name: a, closed: true}, {name: b, rate: 3}]\nload: {ramp: {by: rate, from: 10, to: 20, steps: 2}}\nslo: [{p99: 10ms}]\n",
			`x.yaml:3:1: slo: SLOs judge the latency of all the run's transactions, and a closed scenario's understates what users see: make every scenario open (rate), or leave slo out`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(filepath.Join(dir, "x.yaml"), []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error; spec %+v", s)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T, want *ValidationError: %v", err, err)
			}
			ve.File = "x.yaml"
			if got := ve.Error(); got != tc.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
