package experiment

import (
	"fmt"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// Concurrent scenarios in the runner (spec_scenarios.go): their scripts
// are the run's (scenario by scenario, in order), each run's
// trial.Config.Scenarios are the file's, scaled to a ramp's level by
// trial.ScaleScenarios, and each run's record keeps every scenario's
// figures from run.json.

// ScenarioRecord is one of the experiment's scenarios as the file gives
// it (experiment.json's scenarios): its scripts, clients and model before
// a ramp scales them.
type ScenarioRecord struct {
	Name     string  `json:"name"`
	Workload string  `json:"workload"` // its scripts (trial.WorkloadName)
	Kind     string  `json:"kind"`     // results.ModelOpen or ModelClosed
	Clients  int     `json:"clients"`
	Threads  int     `json:"threads,omitempty"` // 0: min(clients, CPUs)
	Rate     float64 `json:"rate,omitempty"`    // tx/s, open only
	Arrival  string  `json:"arrival,omitempty"`
	Overload string  `json:"overload,omitempty"`
}

// ScenarioRun is one scenario's load and figures in one run (a run
// record's scenarios; run.json's scenarios have them all): the clients and
// rate of this run (a ramp's level scaled), the committed transactions per
// second of the measured window and the response time's p50 and p99 (ms)
// of its transactions alone.
type ScenarioRun struct {
	Name         string  `json:"name"`
	Clients      int     `json:"clients"`
	Threads      int     `json:"threads"`
	Rate         float64 `json:"rate,omitempty"` // tx/s target, open only
	TPS          float64 `json:"tps"`
	P50          float64 `json:"p50_ms"`
	P99          float64 `json:"p99_ms"`
	Committed    int64   `json:"committed"`
	Failed       int64   `json:"failed,omitempty"`
	SkippedShare float64 `json:"skipped_share,omitempty"` // skipped + dropped of scheduled
}

// loadScenarios loads the scenarios' scripts into r.scripts, each
// scenario's in turn, and keeps the scenarios as trial's (their threads as
// the file gives them: 0 is resolved per run).
func (r *runner) loadScenarios() error {
	s := r.spec
	for i, sc := range s.Scenarios {
		first := len(r.scripts)
		if sc.Builtin != "" {
			ts, err := trial.LoadScript(true, sc.Builtin, 1)
			if err != nil {
				return fmt.Errorf("%s:%d:%d: scenarios[%d]: %w", s.File, sc.Pos.Line, sc.Pos.Column, i, err)
			}
			r.scripts = append(r.scripts, ts)
		}
		for j, f := range sc.Scripts {
			ts, err := trial.LoadScript(false, f.Path, f.Weight)
			if err != nil {
				return fmt.Errorf("%s:%d:%d: scenarios[%d].scripts[%d]: %w", s.File, f.Pos.Line, f.Pos.Column, i, j, err)
			}
			r.scripts = append(r.scripts, ts)
		}
		r.scenarios = append(r.scenarios, trial.Scenario{Name: sc.Name, First: first, N: len(r.scripts) - first,
			Clients: sc.Clients, Threads: sc.Threads, Rate: sc.Rate, Arrival: sc.Arrival, Overload: sc.Overload})
	}
	return nil
}

// scenarioRecords are experiment.json's scenarios; nil without.
func (r *runner) scenarioRecords() []ScenarioRecord {
	var out []ScenarioRecord
	for _, sc := range r.scenarios {
		rec := ScenarioRecord{Name: sc.Name, Workload: trial.WorkloadName(r.scripts[sc.First : sc.First+sc.N]),
			Kind: results.ModelClosed, Clients: sc.Clients, Threads: sc.Threads}
		if sc.Rate > 0 {
			rec.Kind, rec.Rate, rec.Arrival, rec.Overload = results.ModelOpen, sc.Rate, sc.Arrival.String(), sc.Overload.String()
		}
		out = append(out, rec)
	}
	return out
}

// useScenarios gives a run's config the scenarios at the run's level (a
// ramp's, scaled by trial.ScaleScenarios; the file's otherwise), each with
// its threads resolved as engine.Load.Groups does, and the sums
// (ScenarioTotals); p's clients become the sum. Nothing without scenarios.
func (r *runner) useScenarios(tc *trial.Config, p *runPlan) error {
	if len(r.scenarios) == 0 {
		return nil
	}
	list := r.scenarios
	if rp := r.spec.Load.Ramp; rp != nil && p.level > 0 {
		scaled, err := trial.ScaleScenarios(list, rp.By == RampRate, p.level)
		if err != nil {
			return err
		}
		list = scaled
	}
	out := make([]trial.Scenario, len(list))
	for i, sc := range list {
		sc.Threads = engine.Load{Clients: sc.Clients, Threads: r.scenarios[i].Threads}.Groups()
		out[i] = sc
	}
	tc.Scenarios = out
	tc.ScenarioTotals()
	p.clients = tc.Clients
	return nil
}

// scenarioRuns are a run's scenarios with their figures from run.json
// (those with a summary); nil without scenarios.
func scenarioRuns(run *results.Run) []ScenarioRun {
	if run == nil {
		return nil
	}
	var out []ScenarioRun
	for _, sc := range run.Scenarios {
		sr := ScenarioRun{Name: sc.Name, Clients: sc.Clients, Threads: sc.Threads, Rate: sc.Rate}
		if s := sc.Summary; s != nil {
			t := &s.Total
			sr.TPS, sr.P50, sr.P99, sr.Committed, sr.Failed = t.TPS, t.Response.P50, t.Response.P99, t.Committed, t.Failed
			if sched := t.Committed + t.Skipped + t.Failed + t.Dropped; sched > 0 {
				sr.SkippedShare = float64(t.Skipped+t.Dropped) / float64(sched)
			}
		}
		out = append(out, sr)
	}
	return out
}

// outScenarios prints a line per scenario of a run after its own line:
// "  reader (open 50 tx/s, 2 clients): 49.8 tps, p50 0.41 ms, p99 1.2 ms".
func (r *runner) outScenarios(rr *RunRecord) {
	for _, sc := range rr.Scenarios {
		load := "closed"
		if sc.Rate > 0 {
			load = "open " + format.Sig3(sc.Rate) + " tx/s"
		}
		r.out("pgtrial:   %s (%s, %d %s): %.1f tps, p50 %s ms, p99 %s ms%s", sc.Name, load, sc.Clients,
			format.Plural(sc.Clients, "client", "clients"), sc.TPS, format.Ms(sc.P50), format.Ms(sc.P99), skippedText(sc.SkippedShare))
	}
}
