package checks

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/results"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

const (
	warmupS  = 30
	measureS = 120
	rate     = 100.0
)

// fixture is a run that passes every item it can: an open-model tpcb-like
// run at 100 tx/s, 30 s warm-up, 120 s window with a checkpoint in it,
// checkpoint_timeout 1min, data larger than shared_buffers but smaller than
// RAM, pgtrial at 0.3 CPU.
type fixture struct {
	run    *results.Run
	rows   []results.TimelineRow
	events []results.Event
}

func newFixture() *fixture {
	rng := rand.New(rand.NewPCG(1, 2))
	f := &fixture{run: &results.Run{
		Schema:    results.Schema,
		StartedAt: t0,
		EndedAt:   at(warmupS + measureS),
		Target:    results.Target{Settings: map[string]string{"shared_buffers": "128MB", "checkpoint_timeout": "1min"}},
		Workload:  results.Workload{Name: "tpcb-like", Scripts: []results.ScriptWeight{{Name: "tpcb-like", Weight: 1}}, Scale: 50},
		Model:     results.Model{Kind: results.ModelOpen, Clients: 10, Threads: 2, Rate: rate, Arrival: "poisson", Overload: "queue"},
		Phases: []results.Phase{
			{Name: results.PhaseWarmup, Start: t0, End: at(warmupS)},
			{Name: results.PhaseMeasure, Start: at(warmupS), End: at(warmupS + measureS)},
		},
		Summary: &results.Summary{
			Duration: measureS, TargetRate: rate, AchievedRate: rate,
			Total: results.ScriptSummary{Name: "total", Committed: rate * measureS, TPS: rate},
		},
		Collectors: []string{"waits", "statements", "server", "os"},
		Server: &results.ServerInfo{
			Settings:      map[string]string{"shared_buffers": "128MB", "checkpoint_timeout": "1min"},
			DatabaseBytes: 800 << 20,
		},
		Host:     &results.Host{Local: true, CPUs: 4, MemoryBytes: 8 << 30},
		Evidence: &results.Evidence{From: at(warmupS), To: at(warmupS + measureS), Checkpoints: 1, ClientCPU: 0.3, CPU: &results.CPUShare{}},
	}}
	for i := 1; i <= warmupS+measureS; i++ {
		phase := results.PhaseMeasure
		if i <= warmupS {
			phase = results.PhaseWarmup
		}
		tps := math.Round(rate + 3*rng.NormFloat64())
		f.rows = append(f.rows, results.TimelineRow{
			Time: at(float64(i)), Elapsed: float64(i), Phase: phase,
			Started: int64(tps), Committed: int64(tps), TPS: tps,
			ResponseP50: 5 + 0.25*rng.NormFloat64(), ResponseP95: 9, ResponseP99: 12, ResponseMax: 20,
			LagP99: 1 + 0.3*math.Abs(rng.NormFloat64()),
		})
	}
	f.events = []results.Event{
		{Time: t0, Kind: results.EventPhase, Phase: results.PhaseWarmup},
		{Time: at(10), Kind: results.EventCheckpoint, Data: map[string]any{"kind": "timed"}}, // in the warm-up
		{Time: at(warmupS), Kind: results.EventPhase, Phase: results.PhaseMeasure},
		{Time: at(95), Kind: results.EventCheckpoint, Data: map[string]any{"kind": "timed"}},
	}
	return f
}

func (f *fixture) closed() {
	f.run.Model.Kind, f.run.Model.Rate, f.run.Model.Arrival, f.run.Model.Overload = results.ModelClosed, 0, "", ""
	f.run.Summary.TargetRate = 0
}

// measured calls fn on the i-th measured row.
func (f *fixture) measured(fn func(i int, r *results.TimelineRow)) {
	i := 0
	for k := range f.rows {
		if f.rows[k].Phase == results.PhaseMeasure {
			fn(i, &f.rows[k])
			i++
		}
	}
}

func (f *fixture) noCheckpoints() {
	f.run.Evidence.Checkpoints = 0
	var ev []results.Event
	for _, e := range f.events {
		if e.Kind != results.EventCheckpoint {
			ev = append(ev, e)
		}
	}
	f.events = ev
}

func find(list []results.Check, name string) (results.Check, bool) {
	for _, c := range list {
		if c.Name == name {
			return c, true
		}
	}
	return results.Check{}, false
}

func TestRunChecksItems(t *testing.T) {
	tests := []struct {
		name   string
		item   string
		mutate func(f *fixture)
		status string
		value  any      // checked when not nil (floats to 1e-9)
		words  []string // substrings of the message
	}{
		// warmup
		{"warmup steady", ItemWarmup, nil, Pass, nil, []string{"warm-up of 30 s discarded", "steady"}},
		{"warmup none", ItemWarmup, func(f *fixture) {
			f.run.Phases = f.run.Phases[1:]
			f.events = f.events[1:]
			f.rows = f.rows[warmupS:]
		}, Warn, nil, []string{"no warm-up phase"}},
		{"warmup cold start closed", ItemWarmup, func(f *fixture) {
			f.closed()
			f.measured(func(i int, r *results.TimelineRow) {
				if i < 15 {
					r.TPS *= 0.6
				}
			})
		}, Warn, nil, []string{"tps of the first 15 intervals differs by -", "MSER-5"}},
		{"warmup tps drifts closed", ItemWarmup, func(f *fixture) {
			f.closed()
			f.measured(func(i int, r *results.TimelineRow) { r.TPS *= 1 - 0.25*float64(i)/measureS })
		}, Warn, nil, []string{"tps drifts -"}},
		{"warmup p50 drifts open", ItemWarmup, func(f *fixture) {
			f.measured(func(i int, r *results.TimelineRow) { r.ResponseP50 *= 1 + float64(i)/measureS })
		}, Warn, nil, []string{"response p50 drifts +"}},
		{"warmup p50 on an exact line", ItemWarmup, func(f *fixture) {
			// s = b·T/ȳ = 0.05·119/(5 + 0.05·59.5) = 0.746
			f.measured(func(i int, r *results.TimelineRow) { r.ResponseP50 = 5 + 0.05*float64(i) })
		}, Warn, nil, []string{"response p50 drifts +75 % (s.e. 0.00 %) across the window (R² 1.00, p < 1e-06; t test on 120 intervals)"}},
		{"warmup too few intervals", ItemWarmup, func(f *fixture) {
			f.rows = f.rows[:warmupS+10]
		}, Pass, 30.0, []string{"10 measured intervals are too few"}},
		// The boundary: 20 intervals are enough, so when they are not tested it is
		// because one has no value (the old message said "20 measured intervals are
		// too few … (need 20)").
		{"warmup 20 intervals, one without a p50", ItemWarmup, func(f *fixture) {
			f.rows = f.rows[:warmupS+20]
			f.measured(func(i int, r *results.TimelineRow) {
				if i == 7 {
					r.Committed, r.ResponseP50 = 0, math.NaN()
				}
			})
		}, Pass, 30.0, []string{"only 19 of the 20 measured intervals have a value (the others committed nothing): too few to test for a steady state (need 20)"}},
		{"warmup 20 intervals tested", ItemWarmup, func(f *fixture) {
			f.rows = f.rows[:warmupS+20]
		}, Pass, nil, []string{"the measured window is steady"}},
		{"warmup from events and timeline only", ItemWarmup, func(f *fixture) {
			f.run.Phases, f.run.Summary = nil, nil // a run that crashed: run.json of the start
		}, Pass, nil, []string{"warm-up of 30 s discarded"}},

		// checkpoint_in_window
		{"checkpoint observed", ItemCheckpoint, nil, Pass, 1, []string{"1 checkpoint completed in the 120 s measured window"}},
		{"checkpoint counters event", ItemCheckpoint, func(f *fixture) {
			f.noCheckpoints()
			f.events = append(f.events, results.Event{Time: at(100), Kind: results.EventCheckpoint, Data: map[string]any{"checkpoints": 2.0, "source": "counters"}})
		}, Pass, 2, []string{"2 checkpoints"}},
		{"checkpoint from evidence", ItemCheckpoint, func(f *fixture) { f.events = nil }, Pass, 1, nil},
		{"checkpoint none, window 2 × timeout", ItemCheckpoint, func(f *fixture) { f.noCheckpoints() }, Pass, 0, []string{"at least 2 × checkpoint_timeout (1min)"}},
		{"checkpoint none, short window", ItemCheckpoint, func(f *fixture) {
			f.noCheckpoints()
			f.run.Server.Settings["checkpoint_timeout"] = "5min"
		}, Warn, 0, []string{"checkpoint_timeout = 5min", "10 min"}},
		{"checkpoint only in the warm-up", ItemCheckpoint, func(f *fixture) {
			f.noCheckpoints()
			f.events = append(f.events, results.Event{Time: at(20), Kind: results.EventCheckpoint})
			f.run.Server.Settings["checkpoint_timeout"] = "300" // seconds
		}, Warn, 0, []string{"none completed"}},
		{"checkpoint started in the window, completed after it", ItemCheckpoint, func(f *fixture) {
			f.noCheckpoints()
			f.run.Server.Settings["checkpoint_timeout"] = "5min"
			f.events = append(f.events,
				results.Event{Time: at(59), Kind: results.EventCheckpointStart, Data: map[string]any{"kind": "timed", "checkpoints": 1.0, "from": at(58).Format(time.RFC3339Nano)}},
				results.Event{Time: at(155), Kind: results.EventCheckpoint, Data: map[string]any{"kind": "timed", "checkpoint_time": at(58).Format(time.RFC3339)}})
		}, Pass, 1, []string{"a checkpoint ran in the 120 s measured window (started at 28 s, completed after the window)"}},
		{"checkpoint started in the window, never completed", ItemCheckpoint, func(f *fixture) {
			f.noCheckpoints()
			f.run.Server.Settings["checkpoint_timeout"] = "5min"
			f.events = append(f.events, results.Event{Time: at(140), Kind: results.EventCheckpointStart, Data: map[string]any{"kind": "requested", "checkpoints": 1.0}})
		}, Pass, 1, []string{"started at 110 s, not completed by the end of the run"}},
		{"checkpoint started and completed in the warm-up", ItemCheckpoint, func(f *fixture) {
			f.noCheckpoints()
			f.run.Server.Settings["checkpoint_timeout"] = "5min"
			f.events = append(f.events,
				results.Event{Time: at(5), Kind: results.EventCheckpointStart, Data: map[string]any{"kind": "timed", "checkpoints": 1.0}},
				results.Event{Time: at(20), Kind: results.EventCheckpoint, Data: map[string]any{"kind": "timed"}})
		}, Warn, 0, []string{"none completed"}},
		{"checkpoint completed in the window and another started", ItemCheckpoint, func(f *fixture) {
			f.events = append(f.events, results.Event{Time: at(149), Kind: results.EventCheckpointStart, Data: map[string]any{"kind": "timed", "checkpoints": 1.0}})
		}, Pass, 2, []string{"1 checkpoint completed", "1 more ran in it (started at 119 s, not completed by the end of the run)"}},
		{"checkpoint not observed, timeout unknown", ItemCheckpoint, func(f *fixture) {
			f.noCheckpoints()
			f.run.Collectors, f.run.Evidence = nil, nil
			delete(f.run.Server.Settings, "checkpoint_timeout")
			delete(f.run.Target.Settings, "checkpoint_timeout")
		}, Warn, 0, []string{"the server collector did not run", "checkpoint_timeout is unknown"}},

		// repeats
		{"repeats of a run", ItemRepeats, nil, Warn, 1, []string{"1 run: ", "repeat at least 3 times, interleaved (pgtrial experiment)"}},

		// open_model_latency
		{"open model", ItemOpenModel, nil, Pass, rate, []string{"open model at 100 tx/s"}},
		{"closed model", ItemOpenModel, func(f *fixture) { f.closed() }, Warn, 100.0, []string{"clients/tps = 10/100.0 = 100 ms", "Little's law"}},
		{"model unknown", ItemOpenModel, func(f *fixture) { f.run.Model.Kind = "" }, Warn, nil, []string{"unknown"}},

		// skipped_dropped_shown
		{"none skipped", ItemSkippedDropped, nil, Pass, 0.0, []string{"skipped 0, dropped 0 of 12000"}},
		{"5 % skipped", ItemSkippedDropped, func(f *fixture) {
			f.run.Summary.Total.Committed, f.run.Summary.Total.Skipped, f.run.Summary.Total.Dropped = 9500, 400, 100
		}, Warn, 0.05, []string{"= 5.0 %"}},
		{"20 % skipped", ItemSkippedDropped, func(f *fixture) {
			f.run.Summary.Total.Committed, f.run.Summary.Total.Skipped, f.run.Summary.Total.Failed = 7900, 2000, 100
		}, Fail, 0.2, []string{"= 20 %", "failed 1.0 %", "leave out more than 10 %"}},
		{"skipped from the timeline", ItemSkippedDropped, func(f *fixture) {
			f.run.Summary = nil
			f.measured(func(i int, r *results.TimelineRow) { r.Skipped = 3 })
		}, Warn, nil, []string{"skipped 360"}},
		{"no counts", ItemSkippedDropped, func(f *fixture) { f.run.Summary, f.rows = nil, nil }, Warn, nil, []string{"unknown"}},

		// failed_share
		{"none failed", ItemFailed, nil, Pass, 0.0, []string{"failed 0 of 12000 taken = 0 %"}},
		{"1 % failed: pass", ItemFailed, func(f *fixture) {
			f.run.Summary.Total.Committed, f.run.Summary.Total.Failed = 9900, 100
		}, Pass, 0.01, []string{"failed 100 of 10000"}},
		{"5 % failed", ItemFailed, func(f *fixture) {
			f.run.Summary.Total.Committed, f.run.Summary.Total.Failed = 9500, 500
			f.run.Summary.Total.FailedBy = map[string]int64{"serialization": 400, "other": 100, "deadlock": 0}
		}, Warn, 0.05, []string{"= 5.0 % (serialization 400, other 100)", "above 1.0 %"}},
		{"60 % failed", ItemFailed, func(f *fixture) {
			f.run.Summary.Total.Committed, f.run.Summary.Total.Failed = 4000, 6000
		}, Fail, 0.6, []string{"= 60 %", "more than 50 %"}},
		{"nothing committed (--continue-on-error, a script that always fails)", ItemFailed, func(f *fixture) {
			f.run.Summary.Total.Committed, f.run.Summary.Total.Failed = 0, 3901
			f.run.Summary.Total.FailedBy = map[string]int64{"other": 3901}
		}, Fail, 1.0, []string{"nothing committed: failed 3901 of 3901 taken = 100 % (other 3901)"}},
		{"nothing taken at all", ItemFailed, func(f *fixture) {
			f.run.Summary.Total.Committed, f.run.Summary.Total.Skipped = 0, 0
		}, Fail, 1.0, []string{"nothing committed"}},
		{"nothing ended: a server that did not answer", ItemFailed, func(f *fixture) {
			f.run.Summary.Total.Committed, f.run.Summary.Total.Skipped = 0, 0
			f.run.Summary.Total.Unfinished, f.run.Summary.Total.Unstarted = 2, 9
		}, Fail, 1.0, []string{"nothing committed: no transaction ended in the window; 2 unfinished and 9 unstarted at its end: the server did not answer"}},
		{"cut slots are scheduled ones", ItemSkippedDropped, func(f *fixture) {
			f.run.Summary.Total.Unfinished, f.run.Summary.Total.Unstarted = 4, 6
		}, Pass, 0.0, []string{"of 12010 scheduled", "6 unstarted and 4 unfinished at the window's end"}},
		{"failed from the timeline", ItemFailed, func(f *fixture) {
			f.run.Summary = nil
			f.measured(func(i int, r *results.TimelineRow) { r.Failed = r.Committed; r.Committed = 0 })
		}, Fail, nil, []string{"nothing committed"}},
		{"no failure counts", ItemFailed, func(f *fixture) { f.run.Summary, f.rows = nil, nil }, Warn, nil, []string{"unknown"}},

		// data_vs_memory
		{"fits in RAM", ItemDataVsMemory, nil, Pass, int64(800 << 20), []string{"6.2 × shared_buffers 128 MiB", "page cache"}},
		{"fits in shared_buffers (bare blocks)", ItemDataVsMemory, func(f *fixture) {
			f.run.Server.Settings["shared_buffers"] = "131072" // 8 kB blocks = 1 GiB
		}, Pass, nil, []string{"fits in shared_buffers 1 GiB"}},
		{"larger than RAM", ItemDataVsMemory, func(f *fixture) { f.run.Host.MemoryBytes = 512 << 20 }, Pass, nil, []string{"reach the disk"}},
		{"sizes from tables", ItemDataVsMemory, func(f *fixture) {
			f.run.Server.DatabaseBytes = 0
			f.run.Server.Tables = []results.TableSize{{Name: "pgbench_accounts", TotalBytes: 64 << 20}, {Name: "pgbench_branches", TotalBytes: 1 << 20}}
		}, Pass, int64(65 << 20), []string{"fits in shared_buffers"}},
		{"RAM unknown", ItemDataVsMemory, func(f *fixture) { f.run.Host = nil }, Warn, nil, []string{"RAM is unknown"}},
		{"sizes unknown", ItemDataVsMemory, func(f *fixture) {
			f.run.Server = nil
			f.run.Target.Settings = nil
		}, Warn, nil, []string{"the data size and shared_buffers unknown"}},

		// scale_vs_clients
		{"scale ≥ clients", ItemScaleVsClients, nil, Pass, 50, nil},
		{"scale < clients", ItemScaleVsClients, func(f *fixture) { f.run.Workload.Scale = 4 }, Warn, 4, []string{"one of 4 pgbench_branches rows"}},
		{"scale unknown", ItemScaleVsClients, func(f *fixture) { f.run.Workload.Scale = 0 }, Warn, nil, []string{"unknown scale"}},
		{"pgbench's description", ItemScaleVsClients, func(f *fixture) {
			f.run.Workload = results.Workload{Name: "<builtin: TPC-B (sort of)>", Scripts: []results.ScriptWeight{{Name: "<builtin: TPC-B (sort of)>", Weight: 1}}, Scale: 1}
		}, Warn, 1, nil},
		{"not tpcb-like", ItemScaleVsClients, func(f *fixture) {
			f.run.Workload = results.Workload{Name: "select-only", Scripts: []results.ScriptWeight{{Name: "select-only", Weight: 1}}, Scale: 1}
		}, Pass, nil, []string{"not tpcb-like"}},
		{"tpcb-like at weight 0", ItemScaleVsClients, func(f *fixture) {
			f.run.Workload = results.Workload{Name: "tpcb-like+select-only", Scripts: []results.ScriptWeight{{Name: "tpcb-like", Weight: 0}, {Name: "select-only", Weight: 1}}, Scale: 1}
		}, Pass, nil, nil},

		// client_cpu
		{"client cpu low", ItemClientCPU, nil, Pass, 0.3, []string{"15 % of its 2 threads", "7.5 % of the 4 CPUs"}},
		{"client cpu near threads", ItemClientCPU, func(f *fixture) { f.run.Evidence.ClientCPU = 1.7 }, Warn, 1.7, []string{"85 % of its 2 threads"}},
		{"client cpu saturates threads", ItemClientCPU, func(f *fixture) { f.run.Evidence.ClientCPU = 1.95 }, Fail, nil, []string{"saturated"}},
		{"client cpu half the shared machine", ItemClientCPU, func(f *fixture) {
			f.run.Model.Threads, f.run.Evidence.ClientCPU = 8, 2.5
		}, Warn, nil, []string{"62 % of the 4 CPUs"}},
		{"client cpu takes the machine", ItemClientCPU, func(f *fixture) {
			f.run.Model.Threads, f.run.Evidence.ClientCPU = 8, 3.8
		}, Fail, nil, nil},
		{"client cpu remote server", ItemClientCPU, func(f *fixture) {
			f.run.Model.Threads, f.run.Evidence.ClientCPU, f.run.Host.Local = 8, 3.8, false
		}, Pass, nil, []string{"48 % of its 8 threads"}},
		{"client cpu not measured", ItemClientCPU, func(f *fixture) {
			f.run.Evidence, f.run.Collectors = nil, []string{"server"}
		}, Warn, nil, []string{"not measured"}},
		{"client cpu without limits", ItemClientCPU, func(f *fixture) {
			f.run.Model.Threads, f.run.Host = 0, nil
		}, Warn, nil, []string{"not judged"}},

		// rate_achieved
		{"rate achieved", ItemRateAchieved, nil, Pass, 1.0, []string{"lag not growing"}},
		{"rate within Poisson noise", ItemRateAchieved, func(f *fixture) { f.run.Summary.AchievedRate = 98 }, Pass, 0.98, []string{"3√E for Poisson"}},
		{"rate short, uniform arrivals", ItemRateAchieved, func(f *fixture) {
			f.run.Summary.AchievedRate, f.run.Model.Arrival = 98, "uniform"
		}, Fail, 0.98, []string{"achieved 98.0 of 100 tx/s"}},
		{"rate short", ItemRateAchieved, func(f *fixture) { f.run.Summary.AchievedRate = 95 }, Fail, 0.95, []string{"schedule was not kept"}},
		{"lag grows", ItemRateAchieved, func(f *fixture) {
			f.measured(func(i int, r *results.TimelineRow) { r.LagP99 += 5 * float64(i) })
		}, Fail, nil, []string{"the lag grows", "fitted rise +595 ms, one-sided p < 1e-06", "not sustainable"}}, // b·T = 5·119
		{"lag falls", ItemRateAchieved, func(f *fixture) {
			f.measured(func(i int, r *results.TimelineRow) { r.LagP99 += 5 * float64(measureS-1-i) })
		}, Pass, nil, []string{"lag not growing", "fitted rise -595 ms, one-sided p = 1)"}},
		{"lag too few intervals", ItemRateAchieved, func(f *fixture) {
			f.rows = f.rows[:warmupS+7]
		}, Pass, nil, []string{"lag trend not tested (7 intervals)"}},
		{"lag spike at the end", ItemRateAchieved, func(f *fixture) {
			f.measured(func(i int, r *results.TimelineRow) {
				if i >= measureS-5 {
					r.LagP99 = 400
				}
			})
		}, Pass, nil, []string{"lag not growing"}},
		{"rate unknown", ItemRateAchieved, func(f *fixture) {
			f.run.Summary, f.rows, f.run.Model.Rate = nil, nil, 0
		}, Fail, nil, []string{"unknown"}},
		{"rate closed", ItemRateAchieved, func(f *fixture) { f.closed() }, Pass, nil, []string{"closed model"}},
		{"rate from the timeline", ItemRateAchieved, func(f *fixture) { f.run.Summary = nil }, Pass, nil, nil},

		// autovacuum_in_window
		{"autovacuum none", ItemAutovacuum, nil, Pass, int64(0), []string{"no autovacuum"}},
		{"autovacuum ran", ItemAutovacuum, func(f *fixture) {
			f.events = append(f.events,
				results.Event{Time: at(60), Kind: results.EventAutovacuum, Data: map[string]any{"table": "pgbench_tellers", "vacuums": 2.0, "analyzes": 0.0}},
				results.Event{Time: at(70), Kind: results.EventAutovacuum, Data: map[string]any{"table": "pgbench_accounts", "vacuums": int64(1), "analyzes": 1}},
				results.Event{Time: at(5), Kind: results.EventAutovacuum, Data: map[string]any{"table": "pgbench_history", "vacuums": 1.0}}, // warm-up
			)
		}, Warn, int64(4), []string{"pgbench_accounts (1 vacuum, 1 analyze), pgbench_tellers (2 vacuums)"}},
		{"autovacuum from evidence", ItemAutovacuum, func(f *fixture) {
			f.events = nil
			f.run.Evidence.Autovacuum = []results.TableVacuum{{Table: "pgbench_branches", Analyzes: 1}}
		}, Warn, int64(1), []string{"pgbench_branches (1 analyze)"}},
		{"autovacuum only in the warm-up", ItemAutovacuum, func(f *fixture) {
			f.events = append(f.events, results.Event{Time: at(5), Kind: results.EventAutovacuum, Data: map[string]any{"table": "pgbench_history", "vacuums": 1.0}})
		}, Pass, int64(0), nil},
		{"autovacuum not observed", ItemAutovacuum, func(f *fixture) {
			f.noCheckpoints()
			f.run.Collectors = nil
		}, Warn, nil, []string{"not observed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			if tc.mutate != nil {
				tc.mutate(f)
			}
			list := RunChecks(f.run, f.rows, f.events)
			if len(list) != 11 {
				t.Fatalf("%d items, want 11", len(list))
			}
			c, ok := find(list, tc.item)
			if !ok {
				t.Fatalf("no item %s", tc.item)
			}
			if c.Status != tc.status {
				t.Errorf("status %s, want %s: %s", c.Status, tc.status, c.Message)
			}
			if tc.value != nil && !sameValue(c.Value, tc.value) {
				t.Errorf("value %#v, want %#v: %s", c.Value, tc.value, c.Message)
			}
			for _, w := range tc.words {
				if !strings.Contains(c.Message, w) {
					t.Errorf("message %q lacks %q", c.Message, w)
				}
			}
		})
	}
}

func sameValue(got, want any) bool {
	if g, ok := got.(float64); ok {
		w, ok := want.(float64)
		return ok && math.Abs(g-w) < 1e-9
	}
	return got == want
}

// TestRunChecksNeverPanics feeds nil, empty and garbage input.
func TestRunChecksNeverPanics(t *testing.T) {
	nan := math.NaN()
	garbage := newFixture()
	garbage.run.Model = results.Model{Kind: "open", Clients: -3, Threads: -1, Rate: nan}
	garbage.run.Summary.Duration = nan
	garbage.run.Summary.AchievedRate = math.Inf(1)
	garbage.run.Server.Settings = map[string]string{"shared_buffers": "lots", "checkpoint_timeout": "-5min"}
	garbage.run.Evidence.ClientCPU = nan
	garbage.events = append(garbage.events, results.Event{Time: at(50), Kind: results.EventAutovacuum, Data: map[string]any{"vacuums": "x"}})
	for i := range garbage.rows {
		garbage.rows[i].TPS, garbage.rows[i].LagP99, garbage.rows[i].ResponseP50 = nan, math.Inf(1), nan
	}
	for _, tc := range []struct {
		name string
		f    *fixture
	}{
		{"nil", &fixture{}},
		{"empty run", &fixture{run: &results.Run{}}},
		{"garbage", garbage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := RunChecks(tc.f.run, tc.f.rows, tc.f.events)
			if len(list) != 11 {
				t.Fatalf("%d items, want 11", len(list))
			}
			for _, c := range list {
				if c.Status != Pass && c.Status != Warn && c.Status != Fail {
					t.Errorf("%s: status %q", c.Name, c.Status)
				}
				if c.Message == "" {
					t.Errorf("%s: no message", c.Name)
				}
			}
			if tc.name == "empty run" && Worst(list) == Pass {
				t.Error("an empty run passes every item")
			}
		})
	}
}

// The collector kinds match run.json's "collectors" as internal/collect
// writes them.
func TestCollectorNames(t *testing.T) {
	if collectorServer != collect.KindServer || collectorOS != collect.KindOS {
		t.Errorf("collector names %q %q, collect has %q %q", collectorServer, collectorOS, collect.KindServer, collect.KindOS)
	}
}
