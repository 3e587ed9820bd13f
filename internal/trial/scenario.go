package trial

import (
	"fmt"
	"math"
	"sort"

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

// ScaleScenarios is a ramp's level applied to scenarios together: each
// scenario keeps its share of the level.
//
//   - A ramp over clients (byRate false) to level L: scenario i of c_i of
//     the C = Σ c_j clients gets L·c_i/C clients, rounded by the largest
//     remainder so that they add up to L, and at least 1 (so the sum may
//     exceed L when L is below the number of scenarios); its threads are
//     min(its threads, its clients), its rate unchanged.
//   - A ramp over rate (byRate true) to level R: an open scenario of rate
//     r_i of the open scenarios' total Σ r_j gets R·r_i/Σ r_j tx/s; closed
//     scenarios keep their clients.
//
// It returns new scenarios; base is not changed. Without an open scenario
// a rate ramp is an error, as is a level that is not positive.
func ScaleScenarios(base []Scenario, byRate bool, level float64) ([]Scenario, error) {
	out := append([]Scenario(nil), base...)
	if !(level > 0) {
		return nil, fmt.Errorf("scenarios: a ramp level must be positive, not %v", level)
	}
	if byRate {
		total := 0.0
		for _, s := range base {
			total += s.Rate
		}
		if total == 0 {
			return nil, fmt.Errorf("scenarios: a ramp over rate needs an open scenario (one with a rate); all %d are closed", len(base))
		}
		for i := range out {
			out[i].Rate = level * base[i].Rate / total
		}
		return out, nil
	}
	total := 0
	for _, s := range base {
		total += s.Clients
	}
	if total == 0 {
		return nil, fmt.Errorf("scenarios: no clients to scale")
	}
	l := int(math.Round(level))
	type rem struct {
		i int
		r float64
	}
	rems := make([]rem, len(out))
	given := 0
	for i, s := range base {
		exact := float64(l) * float64(s.Clients) / float64(total)
		out[i].Clients = int(math.Floor(exact))
		given += out[i].Clients
		rems[i] = rem{i, exact - math.Floor(exact)}
	}
	// Largest remainder first; ties to the earlier scenario.
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; given < l; k++ {
		out[rems[k%len(rems)].i].Clients++
		given++
	}
	for i := range out {
		out[i].Clients = max(out[i].Clients, 1)
		out[i].Threads = max(1, min(out[i].Threads, out[i].Clients))
	}
	return out, nil
}
