package experiment

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/gate"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// analyse fills the record's conclusions from the runs made: each variant
// against the first (compare: medians, ratio with a bootstrap interval over
// runs, Mann-Whitney, verdict), the ramp's levels, the TPC-C-like figures,
// the SLOs and the checklist.
func (r *runner) analyse() {
	rec := r.rec
	loaded := map[int]*results.Run{} // RunRecord.N → run.json
	for _, rr := range rec.Runs {
		if rr.Error != "" && rr.TPS == 0 {
			continue
		}
		if run, err := results.Load(filepath.Join(r.env.Dir, rr.Dir)); err == nil && run.Summary != nil {
			loaded[rr.N] = run
		}
	}
	side := func(name string, level float64) []compare.RunRef {
		var out []compare.RunRef
		for _, rr := range rec.Runs {
			run := loaded[rr.N]
			if rr.Variant != name || rr.Level != level || run == nil || rr.Phase == "ceiling" {
				continue
			}
			out = append(out, compare.RunRef{Label: fmt.Sprintf("%s#%d", name, len(out)+1), Dir: filepath.Join(r.env.Dir, rr.Dir),
				Run: run, StartedAt: run.StartedAt, Interrupted: run.Interrupted, Aborted: run.Aborted})
		}
		return out
	}

	// Variants against the first, for a fixed load (open or closed).
	if r.spec.Search == nil && r.spec.Load.Ramp == nil && len(rec.Variants) > 1 {
		base := rec.Variants[0].Name
		a := side(base, 0)
		for _, v := range rec.Variants[1:] {
			b := side(v.Name, 0)
			if len(a) == 0 || len(b) == 0 {
				continue
			}
			// The settings either variant sets are the variant: left out of
			// what differs besides it.
			var set []string
			for name := range rec.Variants[0].Settings {
				set = append(set, name)
			}
			for name := range v.Settings {
				set = append(set, name)
			}
			rep := compare.Build(compare.Options{NameA: base, NameB: v.Name, Seed: rec.Seed | 1, Top: compare.DefaultTop,
				Primary: r.primary(), Margin: r.spec.Protocol.Margin,
				VariantKnown: true, VariantSettings: set, Rounds: r.rounds(a, b)}, a, b)
			rec.Comparisons = append(rec.Comparisons, rep)
		}
	}
	rec.Gate = nil
	if len(r.spec.Gate) > 0 {
		for _, rep := range rec.Comparisons {
			rec.Gate = append(rec.Gate, gate.Evaluate(r.spec.Gate, rep))
		}
	}

	// Ramp levels, per variant.
	if rp := r.spec.Load.Ramp; rp != nil {
		rec.StepS = rp.Step(r.window).Seconds()
		rec.Ramp = nil
		for _, v := range rec.Variants {
			for _, level := range rp.Levels() {
				runs := side(v.Name, level)
				if len(runs) == 0 {
					continue
				}
				rec.Ramp = append(rec.Ramp, rampLevel(v.Name, level, runs))
			}
		}
	}

	rec.Findings = explain.Experiment(r.explainInput(loaded), r.explainConfig())
	rec.TPCC = tpccSummaries(rec.Runs, loaded) // tpcc_summary.go

	// SLOs: each variant's median quantile over its repeats at each rate.
	rec.SLOs = nil
	for _, slo := range r.spec.SLOs {
		if _, err := quantileOf(&RunRecord{}, slo.Quantile); err != nil {
			rec.Warnings = append(rec.Warnings, fmt.Sprintf("SLO %s not judged: %v", slo, err))
			continue
		}
		for _, v := range rec.Variants {
			byRate := map[float64][]float64{}
			for _, rr := range rec.Runs {
				if rr.Variant != v.Name || loaded[rr.N] == nil || rr.Rate == 0 {
					continue
				}
				if slo.AtRate > 0 && rr.Rate != slo.AtRate {
					continue
				}
				q, _ := quantileOf(&rr, slo.Quantile) // known: checked above
				byRate[rr.Rate] = append(byRate[rr.Rate], q)
			}
			rates := make([]float64, 0, len(byRate))
			for rate := range byRate {
				rates = append(rates, rate)
			}
			sort.Float64s(rates)
			for _, rate := range rates {
				vals := byRate[rate]
				limit := float64(slo.Limit.Microseconds()) / 1000
				res := SLOResult{SLO: slo.String(), Variant: v.Name, Rate: rate, Median: stats.Median(vals),
					Worst: slices.Max(vals), LimitMs: limit, Runs: len(vals)}
				res.Met = res.Median <= limit
				res.AllMet = res.Worst <= limit
				rec.SLOs = append(rec.SLOs, res)
			}
		}
	}

	// The checklist: the runs' own items (worst status over the runs), at
	// least 3 runs per variant, and the variants interleaved in time.
	var labeled []checks.Labeled
	var vr []checks.VariantRuns
	counts := map[string]int{}
	var order []string
	for _, rr := range rec.Runs {
		run := loaded[rr.N]
		if run == nil {
			continue
		}
		if len(run.Checks) > 0 {
			labeled = append(labeled, checks.Labeled{Label: fmt.Sprintf("run %d (%s)", rr.N, rr.Variant), Checks: run.Checks})
		}
		if rr.Level == r.firstLevel() { // a ramp's repeat counts once
			counts[rr.Variant]++
			order = append(order, rr.Variant)
		}
	}
	for _, v := range rec.Variants {
		vr = append(vr, checks.VariantRuns{Variant: v.Name, Runs: counts[v.Name]})
	}
	items := []results.Check{checks.Repeats(vr)}
	if len(rec.Variants) > 1 {
		items = append(items, checks.Interleaving(order))
	}
	if stalls := r.stallRuns(); len(stalls) > 0 {
		items = append(items, checks.StallVisible(stalls))
	}
	if c, ok := checks.FreshData(r.dataAge()); ok { // spec_data.go
		items = append(items, c)
	}
	rec.Checks = checks.Replace(checks.Combine(labeled), items...)
	if r.spec.Search != nil {
		// A search's runs are single by design (each rate once); the
		// repeats item judges its ceiling runs.
		rec.Checks = checks.Replace(rec.Checks, checks.Repeats([]checks.VariantRuns{{Variant: "ceiling", Runs: r.spec.Search.CeilingRepeats}}))
	}
	// The collectors' warnings of the runs (a missing extension, a view
	// the role may not read), each once: they say why evidence is missing.
	for _, rr := range rec.Runs {
		run := loaded[rr.N]
		if run == nil {
			continue
		}
		for _, w := range run.Warnings {
			if strings.HasPrefix(w, "collector: ") {
				rec.Warnings = appendOnce(rec.Warnings, w)
			}
		}
		if run.Evidence != nil {
			for _, w := range run.Evidence.Warnings {
				rec.Warnings = appendOnce(rec.Warnings, "evidence: "+w)
			}
		}
	}
	if r.spec.Protocol.Window > 0 && r.spec.Protocol.Window < r.defaultWindow() {
		rec.Warnings = appendOnce(rec.Warnings, fmt.Sprintf("the measured window (%v) is shorter than the default max(2 × checkpoint_timeout, 60 s) = %v: a window may hold no checkpoint, so runs differ by whether one fell in them",
			r.spec.Protocol.Window, r.defaultWindow()))
	}
}

// rounds pairs the runs of a and b that ran in the same round of an
// interleaved protocol (A B, A B, …: the same repeat), as indexes into a and
// b in a's order (the order run); nil when the variants were not
// interleaved (a drift would then fall between the variants, not cancel
// within a round).
func (r *runner) rounds(a, b []compare.RunRef) [][2]int {
	if !r.rec.Interleave {
		return nil
	}
	repeat := map[string]int{} // run directory → repeat
	for _, rr := range r.rec.Runs {
		repeat[filepath.Join(r.env.Dir, rr.Dir)] = rr.Repeat
	}
	inB := map[int]int{} // repeat → index in b
	for j, rb := range b {
		if k := repeat[rb.Dir]; k > 0 {
			inB[k] = j
		}
	}
	var out [][2]int
	for i, ra := range a {
		if j, ok := inB[repeat[ra.Dir]]; ok && repeat[ra.Dir] > 0 {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func (r *runner) firstLevel() float64 {
	if rp := r.spec.Load.Ramp; rp != nil {
		return rp.Levels()[0]
	}
	return 0
}

// defaultWindow is the window the file's server would get by default.
func (r *runner) defaultWindow() time.Duration {
	return DefaultWindow(r.checkpointTimeout)
}

// rampLevel summarises one level of a ramp over its repeats.
func rampLevel(variant string, level float64, runs []compare.RunRef) RampLevel {
	rl := RampLevel{Variant: variant, Level: level, Waits: map[string]float64{}}
	var tps, p50, p99, calls, rows []float64
	var missing []string // why a run has no calls and rows
	waits := map[string][]float64{}
	for _, ref := range runs {
		run := ref.Run
		t := run.Summary.Total
		tps, p50, p99 = append(tps, t.TPS), append(p50, t.Response.P50), append(p99, t.Response.P99)
		rl.Runs = append(rl.Runs, ref.Label) // with or without evidence
		ev := run.Evidence
		if ev == nil {
			missing = appendOnce(missing, "no evidence (the collectors were off)")
			continue
		}
		for k, v := range ev.WaitTypes {
			waits[k] = append(waits[k], v)
		}
		if reason, ok := ev.MissingReason(results.EvidenceStatements); ok {
			missing = appendOnce(missing, reason)
		} else if sec := ev.To.Sub(ev.From).Seconds(); sec > 0 && ev.Calls > 0 {
			calls, rows = append(calls, float64(ev.Calls)/sec), append(rows, float64(ev.Rows)/sec)
		} else {
			missing = appendOnce(missing, "pg_stat_statements recorded no statements in the window")
		}
	}
	rl.TPS, rl.P50, rl.P99 = stats.Median(tps), stats.Median(p50), stats.Median(p99)
	for k, v := range waits {
		rl.Waits[k] = stats.Median(v)
	}
	if len(calls) > 0 {
		rl.CallsPerSec, rl.RowsPerSec = stats.Median(calls), stats.Median(rows)
	} else if len(missing) > 0 {
		rl.StatementsMissing = strings.Join(missing, "; ")
	}
	return rl
}

// stallRuns are the runs in which an injected lock was held, for the
// checklist's stall item.
func (r *runner) stallRuns() []checks.StallRun {
	var out []checks.StallRun
	for _, rr := range r.rec.Runs {
		for _, in := range rr.Injected {
			if in.Kind != "lock" || in.Acquired.IsZero() || in.End.IsZero() {
				continue
			}
			out = append(out, checks.StallRun{Label: fmt.Sprintf("run %d (%s)", rr.N, rr.Variant), Open: rr.Rate > 0,
				P99Ms: rr.P99, LockMs: float64(in.End.Sub(in.Acquired).Microseconds()) / 1000})
		}
	}
	return out
}

// primary is the metric the variants' comparison is about: protocol.primary,
// else the first SLO's quantile, else "" (compare.PrimaryFor the model).
func (r *runner) primary() string {
	if p := r.spec.Protocol.Primary; p != "" {
		return p
	}
	if len(r.spec.SLOs) > 0 {
		return r.spec.SLOs[0].Key()
	}
	return ""
}

// explainInput is the experiment's runs for its findings: the runs of a
// fixed load or of a ramp's steps that have a summary (a search's probes
// are left out: each rate runs once, by design).
func (r *runner) explainInput(loaded map[int]*results.Run) *explain.ExperimentInput {
	rec := r.rec
	in := &explain.ExperimentInput{Dir: r.env.Dir, Primary: r.primary(), Margin: r.spec.Protocol.Margin,
		Interleaved: rec.Interleave, Seed: rec.Seed}
	if rp := r.spec.Load.Ramp; rp != nil {
		in.By, in.Levels = "rate", rp.Levels()
		if rp.By == RampClients {
			in.By = "clients"
		}
	}
	for _, v := range rec.Variants {
		in.Variants = append(in.Variants, v.Name)
	}
	for _, rr := range rec.Runs {
		run := loaded[rr.N]
		if run == nil || (rr.Phase != "" && rr.Phase != "step") || r.spec.Search != nil {
			continue
		}
		in.Runs = append(in.Runs, explain.ExpRun{Variant: rr.Variant, Level: rr.Level, Repeat: rr.Repeat,
			Dir: filepath.Join(r.env.Dir, rr.Dir), Run: run})
	}
	return in
}

// explainConfig is the findings' settings: Env.Explain, else the defaults.
func (r *runner) explainConfig() explain.Config {
	if r.env.Explain != nil {
		return *r.env.Explain
	}
	return explain.Defaults()
}
