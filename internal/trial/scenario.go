package trial

import (
	"fmt"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// Scenario is one of a run's concurrent scenarios (engine.Scenario): its
// scripts are Config.Scripts[First : First+N] with their weights, loaded
// for it alone; its clients and threads are its own; Rate 0 is the closed
// model.
//
// With Config.Scenarios, Config.Clients and Threads are the scenarios'
// sums, and Config.Rate, Arrival and Overload describe the run as a whole
// in run.json's model: open at the sum of the rates when every scenario is
// open, else closed (each scenario's own model is in run.json's
// scenarios).
type Scenario struct {
	Name     string
	First, N int
	Clients  int
	Threads  int
	Rate     float64
	Arrival  engine.Arrival
	Overload engine.Overload
}

// ScenarioTotals sets c's clients, threads and run-wide model from its
// scenarios (see Scenario); nothing without scenarios.
func (c *Config) ScenarioTotals() {
	if len(c.Scenarios) == 0 {
		return
	}
	c.Clients, c.Threads, c.Rate = 0, 0, 0
	open := true
	for i, s := range c.Scenarios {
		c.Clients += s.Clients
		c.Threads += s.Threads
		c.Rate += s.Rate
		open = open && s.Rate > 0
		if i == 0 {
			c.Arrival, c.Overload = s.Arrival, s.Overload
		}
	}
	if !open {
		c.Rate = 0
	}
}

// checkScenarios: the scenarios cover the scripts in order, and the sums
// are the run's.
func (c *Config) checkScenarios() error {
	if len(c.Scenarios) == 0 {
		return nil
	}
	next, clients, threads := 0, 0, 0
	for _, s := range c.Scenarios {
		if s.First != next || s.N < 1 {
			return fmt.Errorf("trial: scenario %q's scripts [%d, %d) do not follow the previous scenario's (%d)", s.Name, s.First, s.First+s.N, next)
		}
		next += s.N
		clients += s.Clients
		threads += s.Threads
	}
	if next != len(c.Scripts) || clients != c.Clients || threads != c.Threads {
		return fmt.Errorf("trial: the scenarios have %d scripts, %d clients, %d threads; the run %d, %d, %d (call ScenarioTotals)",
			next, clients, threads, len(c.Scripts), c.Clients, c.Threads)
	}
	return nil
}

// engineScenarios are the engine's scenarios: each weighs its own scripts
// and gives 0 to the others.
func (c *Config) engineScenarios() []engine.Scenario {
	if len(c.Scenarios) == 0 {
		return nil
	}
	out := make([]engine.Scenario, len(c.Scenarios))
	for i, s := range c.Scenarios {
		w := make([]int, len(c.Scripts))
		for j := s.First; j < s.First+s.N; j++ {
			w[j] = c.Scripts[j].Weight
		}
		out[i] = engine.Scenario{Name: s.Name, Weights: w, Clients: s.Clients, Groups: s.Threads,
			Rate: s.Rate, Arrival: s.Arrival, Overload: s.Overload}
	}
	return out
}

// resultScenarios are run.json's scenarios, with their summaries over
// measure (nil: not yet).
func (c *Config) resultScenarios(measure *metrics.Interval, names []string) []results.Scenario {
	if len(c.Scenarios) == 0 {
		return nil
	}
	out := make([]results.Scenario, len(c.Scenarios))
	for i, s := range c.Scenarios {
		r := results.Scenario{Name: s.Name, Kind: results.ModelClosed, Clients: s.Clients, Threads: s.Threads}
		for j := s.First; j < s.First+s.N; j++ {
			r.Scripts = append(r.Scripts, j)
		}
		if s.Rate > 0 {
			r.Kind, r.Rate, r.Arrival, r.Overload = results.ModelOpen, s.Rate, s.Arrival.String(), s.Overload.String()
		}
		if measure != nil {
			sum := results.SummarizeScenario(measure, &r, names)
			r.Summary = &sum
		}
		out[i] = r
	}
	return out
}
