package results

import (
	"strconv"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// Scenario is one of a run's concurrent scenarios: its own scripts and load,
// and its summary over the measured window.
//
// A scenario's scripts are its own entries of Workload.Scripts and of the
// summary's per-script figures (Scripts, 0-based indexes into both): a
// script two scenarios use is loaded once per scenario, so per-script
// figures stay per scenario, and the scenario's figures are its scripts'
// histograms and counts merged.
type Scenario struct {
	Name    string `json:"name"`
	Scripts []int  `json:"scripts"` // indexes into Workload.Scripts and Summary.Scripts
	// The load: Kind is ModelClosed (each of Clients loops) or ModelOpen
	// (Rate tx/s of all its clients together, with Arrival and Overload).
	Kind     string  `json:"kind"`
	Clients  int     `json:"clients"`
	Threads  int     `json:"threads"`
	Rate     float64 `json:"rate,omitempty"`
	Arrival  string  `json:"arrival,omitempty"`
	Overload string  `json:"overload,omitempty"`

	// Summary is the scenario's figures over the measured window (nil
	// before the run ended): TargetRate is Rate (0 closed), AchievedRate
	// (committed + failed) / duration as the run's, Total its scripts
	// merged (named as the scenario), Scripts its own scripts' entries.
	Summary *Summary `json:"summary,omitempty"`
}

// SummarizeScenario is the summary of sc over iv (the measured phase):
// its scripts' histograms and counts merged. names names iv's scripts as
// Summarize does.
func SummarizeScenario(iv *metrics.Interval, sc *Scenario, names []string) Summary {
	sub := metrics.Interval{Start: iv.Start, End: iv.End, Total: metrics.NewHists()}
	var subNames []string
	for _, i := range sc.Scripts {
		if i < 0 || i >= len(iv.Scripts) {
			continue
		}
		sub.Scripts = append(sub.Scripts, iv.Scripts[i])
		sub.Total.Merge(&iv.Scripts[i])
		if i < len(iv.Commands) {
			sub.Commands = append(sub.Commands, iv.Commands[i])
		}
		name := "script" + strconv.Itoa(i+1) // its number in the run, as Summarize names it
		if i < len(names) && names[i] != "" {
			name = names[i]
		}
		subNames = append(subNames, name)
	}
	if len(sub.Commands) != len(sub.Scripts) {
		sub.Commands = nil
	}
	s := Summarize(&sub, subNames, sc.Rate)
	s.Total.Name = sc.Name
	return s
}
