package experiment

import (
	"errors"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/tpcc"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// The scenarios section: concurrent scenarios (`pgtrial run --scenario`),
// each with its own scripts, clients and model, run at the same time in
// every run of the experiment.
//
// With scenarios the scenarios are the workload's scripts and the load's
// clients, threads and model: workload.builtin and workload.scripts and
// load's clients, threads, rate, closed, arrival and overload are refused
// (the rest of workload — scale, variables, protocol, … — applies to every
// scenario; load keeps latency_limit and ramp). A ramp scales all the
// scenarios together (trial.ScaleScenarios): by clients, each level's
// clients are split in the scenarios' proportions by the largest
// remainder; by rate, the open scenarios share each level's rate in
// proportion to their rates, the closed ones unchanged. The spec's Load
// holds the sums for the record and the analysis: Clients Σ clients, Rate
// Σ rates when every scenario is open, else Closed (as trial.Config's
// ScenarioTotals).

// ScenarioSpec is one of scenarios.
type ScenarioSpec struct {
	Name     string
	Builtin  string   // a built-in script's full name; "" with Scripts
	Scripts  []Script // script files, with their weights
	Clients  int      // default 1
	Threads  int      // 0: min(clients, CPUs)
	Rate     float64  // tx/s of its clients together; 0: the closed model
	Arrival  engine.Arrival
	Overload engine.Overload
	Pos      Pos
}

// Open says the scenario is in the open model (it has a rate).
func (s *ScenarioSpec) Open() bool { return s.Rate > 0 }

// maxScenarioName is the longest scenario name.
const maxScenarioName = 64

// validScenarioName: letters, digits, '-' and '_' (as `pgtrial run
// --scenario` takes them), 1 to maxScenarioName bytes.
func validScenarioName(s string) bool {
	if s == "" || len(s) > maxScenarioName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// scenarioSection is one item of scenarios.
func scenarioSection() section[ScenarioSpec] {
	return section[ScenarioSpec]{name: "scenarios", keys: []key[ScenarioSpec]{
		{name: "name", doc: "the scenario's name (letters, digits, '-', '_')", missing: "each scenario needs a name, e.g. {name: reader, builtin: select-only, rate: 300}",
			dec: func(d *decoder, sc *ScenarioSpec, e entry, path string, _ *fields) {
				if v, ok := d.nonEmpty(e.val, path, "a name"); ok {
					if validScenarioName(v) {
						sc.Name = v
					} else {
						d.problem(e.val, path, "%s: use letters, digits, '-' and '_' (at most %d)", shown(v), maxScenarioName)
					}
				}
			}},
		{name: "builtin", doc: "a built-in script (-b; a prefix works); default tpcb-like", dec: func(d *decoder, sc *ScenarioSpec, e entry, path string, f *fields) {
			if _, both := f.get("scripts"); both {
				return // reported at scripts
			}
			v, ok := d.nonEmpty(e.val, path, "a built-in script's name")
			if !ok {
				return
			}
			if _, isTPCC := tpcc.ModeOf(v); isTPCC {
				d.problem(e.val, path, "the TPC-C-like workload runs on its own (workload.builtin: %s without scenarios): give a scenario tpcb-like, simple-update, select-only or script files", strings.ToLower(v))
				return
			}
			bi, n := workload.FindBuiltin(v)
			if n == 1 {
				sc.Builtin = bi.Name
				return
			}
			d.problem(e.val, path, "%s %q: choose %s (any unambiguous prefix), or give script files (scripts)", workload.NotOneBuiltin(n), v, quoteList(workload.BuiltinNames(), "or"))
		}},
		{name: "scripts", doc: "script files instead of builtin: [{file, weight}] as workload.scripts", dec: func(d *decoder, sc *ScenarioSpec, e entry, path string, f *fields) {
			if _, both := f.get("builtin"); both {
				d.problem(e.key, path, "builtin and scripts exclude each other: a scenario runs a built-in script or script files")
				return
			}
			var w Workload
			d.scripts(&w, e, path) // spec_workload.go
			sc.Builtin, sc.Scripts = "", w.Scripts
		}},
		{name: engine.FieldClients, doc: "the scenario's clients (default 1)", dec: func(d *decoder, sc *ScenarioSpec, e entry, path string, _ *fields) {
			if v, ok := d.loadCount(e.val, path, engine.FieldClients); ok {
				sc.Clients = v
			}
		}},
		{name: engine.FieldThreads, doc: "the scenario's client threads; 0: min(clients, CPUs)", dec: func(d *decoder, sc *ScenarioSpec, e entry, path string, _ *fields) {
			if v, ok := d.loadCount(e.val, path, engine.FieldThreads); ok {
				sc.Threads = v
			}
		}},
		{name: engine.FieldRate, doc: "the open model at this rate, tx/s of the scenario's clients together", dec: func(d *decoder, sc *ScenarioSpec, e entry, path string, _ *fields) {
			sc.Rate, _ = d.positive(e.val, path, math.MaxFloat64, engine.LoadRule(engine.FieldRate))
		}},
		{name: "closed", doc: "the closed model (each client loops)", dec: func(d *decoder, sc *ScenarioSpec, e entry, path string, _ *fields) {
			d.boolean(e.val, path) // its meaning is in the check
		}},
		{name: engine.FieldArrival, doc: "open scenario: poisson or uniform", dec: func(d *decoder, sc *ScenarioSpec, e entry, path string, _ *fields) {
			if v, ok := d.oneOf(e.val, path, engine.ArrivalNames()...); ok {
				sc.Arrival, _ = engine.ParseArrival(v)
			}
		}},
		{name: engine.FieldOverload, doc: "open scenario: queue or drop", dec: func(d *decoder, sc *ScenarioSpec, e entry, path string, _ *fields) {
			if v, ok := d.oneOf(e.val, path, engine.OverloadNames()...); ok {
				sc.Overload, _ = engine.ParseOverload(v)
			}
		}},
	}, check: checkScenario}
}

// checkScenario: the scenario's model (rate or closed: true, one of them),
// the open model's keys, its load by engine.Load's rules, its scripts
// (tpcb-like by default) and no \think in an open scenario.
func checkScenario(d *decoder, sc *ScenarioSpec, f *fields, path string) {
	_, hasRate := f.get(engine.FieldRate)
	closedE, hasClosed := f.get("closed")
	closed := false
	if hasClosed && closedE.val.Kind == yaml.ScalarNode && closedE.val.ShortTag() == "!!bool" {
		_ = closedE.val.Decode(&closed)
	}
	switch {
	case hasRate && closed:
		d.problem(closedE.key, child(path, "closed"), "rate and closed exclude each other: the scenario is open (rate: N) or closed (closed: true)")
		sc.Rate = 0
	case !hasRate && !closed:
		name := sc.Name
		if name == "" {
			name = "NAME"
		}
		d.problem(f.node, path, "choose the scenario's model: rate: N (open model, tx/s of its clients together) or closed: true (each client loops), e.g. {name: %s, rate: 100}", name)
	}
	if !hasRate {
		for _, k := range []string{engine.FieldArrival, engine.FieldOverload} {
			if e, ok := f.get(k); ok {
				d.problem(e.key, child(path, k), "applies to an open scenario (one with a rate), not to a closed one")
			}
		}
	}
	if _, given := f.get(engine.FieldClients); !given {
		sc.Clients = 1
	}
	for _, err := range (engine.Load{Clients: sc.Clients, Threads: sc.Threads, Rate: sc.Rate, Arrival: sc.Arrival, Overload: sc.Overload}).Validate() {
		var fe *engine.FieldError
		if !errors.As(err, &fe) {
			d.problem(f.node, path, "%v", err)
			continue
		}
		n, value := f.node, fe.Value
		if e, ok := f.get(fe.Field); ok {
			n, value = e.val, e.val.Value // as written
		}
		d.problem(n, child(path, fe.Field), "%s is out of range: %s", value, fe.Rule)
	}
	_, hasBuiltin := f.get("builtin")
	_, hasScripts := f.get("scripts")
	if !hasBuiltin && !hasScripts {
		sc.Builtin = DefaultBuiltin
	}
	if hasRate {
		for i, s := range sc.Scripts {
			if scriptThinks(s.Path) {
				d.problemAt(s.Pos.Line, s.Pos.Column, index(child(path, "scripts"), i),
					`%s has \think, which is for the closed model: in an open scenario the rate sets the arrivals; make the scenario closed (closed: true instead of rate), or use a script without \think`, s.File)
			}
		}
	}
}

// scriptThinks says a script file (one checkScript accepted) has \think.
func scriptThinks(file string) bool {
	data, err := readLimited(file, maxScriptSize)
	if err != nil {
		return false
	}
	parsed, err := script.Parse(file, string(data))
	return err == nil && parsed.HasThink()
}

// scenarios decodes the scenarios list: each a scenario, their names
// unique, their scripts within the engine's limit.
func (d *decoder) scenarios(s *Spec, e entry, path string) {
	items, ok := d.nonEmptySeq(e, path, "scenarios {name, builtin or scripts, clients, rate or closed}",
		"give at least one scenario, e.g. [{name: reader, builtin: select-only, rate: 300}], or leave scenarios out")
	if !ok {
		return
	}
	first := map[string]int{} // name → line
	scripts := 0
	for i, it := range items {
		before := len(d.problems)
		sc := ScenarioSpec{Pos: posOf(d.resolve(it))}
		f, ok := scenarioSection().decode(d, it, index(path, i), "a mapping {name, builtin or scripts, clients, threads, rate or closed, arrival, overload}", &sc)
		if ok && sc.Name != "" {
			if line, dup := first[sc.Name]; dup {
				ne, _ := f.get("name")
				d.problem(ne.val, child(index(path, i), "name"), "scenario %s is given twice (first at line %d): give each scenario its own name", sc.Name, line)
				continue
			}
			first[sc.Name] = sc.Pos.Line
		}
		if !ok || len(d.problems) > before {
			continue
		}
		scripts += max(len(sc.Scripts), 1)
		s.Scenarios = append(s.Scenarios, sc)
	}
	if scripts > engine.MaxScripts {
		d.problem(e.val, path, "the scenarios have %d scripts together: at most %d are allowed", scripts, engine.MaxScripts)
		s.Scenarios = nil
	}
}

// scenarioLoadKeys are load's keys that each scenario has instead.
var scenarioLoadKeys = []string{engine.FieldClients, engine.FieldThreads, engine.FieldRate, "closed", engine.FieldArrival, engine.FieldOverload}

// checkScenarios are the rules between scenarios and the other sections
// (crossChecks calls it first when the file has scenarios). It reports
// what scenarios replace (workload's scripts, load's clients and model)
// and drops their marks, so the load model's own checks do not see them
// again; then a ramp's and an SLO's needs, and no search. It leaves the
// sums in s.Load (see the section's comment).
func (d *decoder) checkScenarios(s *Spec) {
	for _, k := range []string{"builtin", "scripts"} {
		if key := d.marks["workload."+k]; key != nil {
			d.problem(key, "workload."+k, "with scenarios, each scenario gives its scripts: move %s into the scenarios (scenarios[…].%s), or leave scenarios out", k, k)
		}
	}
	s.Workload.Builtin, s.Workload.Scripts = "", nil
	for _, k := range scenarioLoadKeys {
		if key := d.marks["load."+k]; key != nil {
			d.problem(key, "load."+k, "with scenarios, each scenario has its own %s: give it in scenarios[…] (load keeps ramp and latency_limit)", k)
			delete(d.marks, "load."+k)
		}
	}
	if key := d.marks["search"]; key != nil {
		d.problem(key, "search", "a capacity search with scenarios is not supported (it searches one rate for one workload): ramp the scenarios by rate (load.ramp) instead, or leave scenarios out")
		delete(d.marks, "search")
		s.Search = nil
	}
	l := &s.Load
	*l = LoadSpec{Ramp: l.Ramp, LatencyLimit: l.LatencyLimit}
	if len(s.Scenarios) == 0 {
		return // the section's problems are reported
	}
	open, rate := 0, 0.0
	for _, sc := range s.Scenarios {
		l.Clients += sc.Clients
		if sc.Open() {
			open++
			rate += sc.Rate
		}
	}
	allOpen := open == len(s.Scenarios)
	if allOpen {
		l.Rate = rate
	}
	if r := l.Ramp; r != nil {
		switch {
		case r.By == RampRate && open == 0:
			d.problem(d.marks["load.ramp.by"], "load.ramp.by", "a ramp by rate scales the open scenarios' rates, and every scenario is closed: give a scenario a rate, or ramp by clients")
		case r.By == RampClients && r.From < float64(len(s.Scenarios)):
			d.problem(d.marks["load.ramp.from"], "load.ramp.from", "%g clients are fewer than the %d scenarios, each of which needs a client: start the ramp at %d clients or more", r.From, len(s.Scenarios), len(s.Scenarios))
		}
		if key := d.marks["slo"]; key != nil && len(s.SLOs) > 0 && r.By == RampRate && !allOpen {
			d.problem(key, "slo", "SLOs judge the latency of all the run's transactions, and a closed scenario's understates what users see: make every scenario open (rate), or leave slo out")
		}
		return
	}
	// A fixed load: open when every scenario is, else closed (as the
	// run's model in run.json).
	l.Closed = !allOpen
}
