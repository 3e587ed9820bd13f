package engine

import (
	"fmt"
)

// Scenario is one of a run's concurrent scenarios (k6's scenarios): its own
// scripts with their weights, its own clients in its own groups, and either
// the closed model or its own rate, arrival process and overload policy.
// Scenarios run at the same time on the same clock and window.
//
// With Config.Scenarios the run's clients are the scenarios' clients in
// order: scenario 0 has clients [0, C₀), scenario 1 [C₀, C₀+C₁), …, and its
// groups likewise (a scenario's clients are dealt to its groups in blocks,
// as GroupOf deals a run's); a group never spans two scenarios. Each group
// of a scenario with a rate has its own schedule at Rate/Groups (as
// pgbench's threads share -R), and draws its scripts from its own stream
// with the scenario's weights. Config.Clients and Config.Groups must be the
// sums; Config.Weights, Rate, Arrival and Overload are not used.
type Scenario struct {
	Name     string
	Weights  []int // per script of Config.Program; 0: not one of this scenario's
	Clients  int   // ≥ 1
	Groups   int   // 1 ≤ Groups ≤ Clients
	Rate     float64
	Arrival  Arrival
	Overload Overload
}

// scenarioOf is a group's scenario as the engine uses it: the weights'
// total and, for a scenario of one script, that script (no draw, as
// pgbench's chooseScript with one script).
type scenarioOf struct {
	s     *Scenario
	total int64
	only  int // the one script with a weight; -1 with several
}

// validateScenarios checks cfg.Scenarios against the run: every scenario
// has clients, groups and a script, and the sums are the run's.
func validateScenarios(cfg *Config) error {
	if len(cfg.Scenarios) == 0 {
		return nil
	}
	clients, groups := 0, 0
	for i := range cfg.Scenarios {
		s := &cfg.Scenarios[i]
		if s.Clients < 1 {
			return fmt.Errorf("engine: scenario %q has no clients", s.Name)
		}
		if s.Groups < 1 || s.Groups > s.Clients {
			return fmt.Errorf("engine: scenario %q has %d groups for %d clients", s.Name, s.Groups, s.Clients)
		}
		if len(s.Weights) != len(cfg.Program.Scripts) {
			return fmt.Errorf("engine: scenario %q has %d weights for %d scripts", s.Name, len(s.Weights), len(cfg.Program.Scripts))
		}
		var total int64
		for _, w := range s.Weights {
			if w < 0 {
				return fmt.Errorf("engine: scenario %q has a negative weight", s.Name)
			}
			total += int64(w)
		}
		if total == 0 {
			return fmt.Errorf("engine: scenario %q has no script with a weight", s.Name)
		}
		if s.Rate < 0 {
			return fmt.Errorf("engine: scenario %q has a negative rate", s.Name)
		}
		clients += s.Clients
		groups += s.Groups
	}
	if clients != cfg.Clients || groups != cfg.Groups {
		return fmt.Errorf("engine: the scenarios have %d clients in %d groups, the run %d in %d", clients, groups, cfg.Clients, cfg.Groups)
	}
	return nil
}

// setScenarios gives each group its scenario and overload policy, and
// returns each client's group; without scenarios nil (GroupOf over the run).
func (e *engine) setScenarios(groups []*group) []int {
	if len(e.cfg.Scenarios) == 0 {
		return nil
	}
	of := make([]int, 0, e.cfg.Clients)
	g0 := 0
	for i := range e.cfg.Scenarios {
		s := &e.cfg.Scenarios[i]
		sc := &scenarioOf{s: s, only: -1}
		n := 0
		for j, w := range s.Weights {
			if w > 0 {
				sc.total += int64(w)
				sc.only = j
				n++
			}
		}
		if n > 1 {
			sc.only = -1
		}
		for g := g0; g < g0+s.Groups; g++ {
			groups[g].scen = sc
			groups[g].overload = s.Overload
		}
		for c := 0; c < s.Clients; c++ {
			of = append(of, g0+GroupOf(c, s.Clients, s.Groups))
		}
		g0 += s.Groups
	}
	return of
}

// scheduleScenarios gives every group of a scenario with a rate its
// schedule: delay = 1e6 / Rate · Groups µs, from the bench start.
func (e *engine) scheduleScenarios(groups []*group, bench int64) {
	for g, gr := range groups {
		s := gr.scen.s
		if s.Rate <= 0 {
			continue
		}
		delay := 1e6 / s.Rate * float64(s.Groups)
		rnd := e.cfg.Streams.Threads[g].Throttle
		gr.sched = newSchedule(s.Arrival, delay, bench, &rnd)
	}
}

// chooseScenarioScript is chooseScript within the group's scenario: w =
// getrand(0, total − 1) from the group's stream, then the first script
// whose cumulative weight exceeds w.
func (e *engine) chooseScenarioScript(g *group) int {
	sc := g.scen
	if sc.only >= 0 {
		return sc.only
	}
	g.mu.Lock()
	w := int64(g.choose.Uint64Range(0, uint64(sc.total-1)))
	g.mu.Unlock()
	ws := sc.s.Weights
	i := 0
	for {
		w -= int64(ws[i])
		i++
		if w < 0 || i == len(ws) {
			return i - 1
		}
	}
}
