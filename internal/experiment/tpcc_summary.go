package experiment

import (
	"fmt"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// TPCCSummary is one variant's TPC-C-like figures (a ramp: one level's)
// over its runs, from each run's run.json "tpcc": every figure as each
// run's value summarised by median (min–max) — nothing is averaged or
// pooled — and the limits and consistency checks counted over the runs.
// No verdict beyond the runs' own: a limit or a check passes or fails in a
// run, and the summary says in how many.
type TPCCSummary struct {
	Variant    string  `json:"variant"`
	Level      float64 `json:"level,omitempty"` // a ramp's level; 0: a fixed load
	Mode       string  `json:"mode"`            // "throughput" or "spec"
	Warehouses int     `json:"warehouses,omitempty"`
	Note       string  `json:"note"` // what the figures compare with (results.TPCC.Note)
	Runs       []int   `json:"runs"` // RunRecord.N of the runs summarised, in the order run

	// TpmC is New-Orders per minute, the rolled-back 1 % included.
	TpmC stats.Summary `json:"tpmc"`
	// NOPM and Ratio (NOPM / tpmC) are over the runs that have NOPM;
	// NOPMMissing says why the others have none ("run 3: …").
	NOPM          stats.Summary `json:"nopm"`
	Ratio         stats.Summary `json:"ratio"`
	ExpectedRatio float64       `json:"expected_ratio"`
	// Agree counts the runs whose ratio lies within 10 % of ExpectedRatio
	// (results.TPCC.Agree).
	Agree       int      `json:"agree"`
	NOPMMissing []string `json:"nopm_missing,omitempty"`

	Types []TPCCTypeSummary `json:"types"` // in the mix's order
	// LimitsMet counts the runs in which every type met its limit.
	LimitsMet   int             `json:"limits_met"`
	Consistency TPCCConsistency `json:"consistency"`
}

// TPCCTypeSummary is one transaction type against its 90th-percentile
// limit over the runs.
type TPCCTypeSummary struct {
	Name    string  `json:"name"`
	LimitMs float64 `json:"limit_ms"`
	// P90Ms is the runs' p90 of the response time, over the runs in which
	// the type completed any.
	P90Ms stats.Summary `json:"p90_ms"`
	Pass  int           `json:"pass"` // runs with p90 ≤ the limit
	// Fail is the runs with p90 over the limit or none completed.
	Fail   int   `json:"fail"`
	Failed int64 `json:"failed"` // failed transactions, summed over the runs
}

// TPCCConsistency is the consistency conditions 1–4 over the runs: each run
// passes (all four hold after it), fails (one does not), or was not checked.
type TPCCConsistency struct {
	Pass    int      `json:"pass"`
	Failed  []int    `json:"failed,omitempty"`  // RunRecord.N of the runs with a failed condition
	Skipped []string `json:"skipped,omitempty"` // "run 2: why not checked"
}

// tpccSummaries summarises the TPC-C-like runs of a fixed load or a ramp's
// steps, per variant and level in the order first run (a search's probes
// and failed runs left out). loaded is run.json by RunRecord.N; nil when
// no run has a tpcc section.
func tpccSummaries(runs []RunRecord, loaded map[int]*results.Run) []TPCCSummary {
	type key struct {
		variant string
		level   float64
	}
	var order []key
	groups := map[key][]int{} // → indexes into runs
	for i, rr := range runs {
		run := loaded[rr.N]
		if run == nil || run.TPCC == nil || (rr.Phase != "" && rr.Phase != "step") {
			continue
		}
		k := key{rr.Variant, rr.Level}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	var out []TPCCSummary
	for _, k := range order {
		var ts []*results.TPCC
		var ns []int
		for _, i := range groups[k] {
			ts, ns = append(ts, loaded[runs[i].N].TPCC), append(ns, runs[i].N)
		}
		s := summariseTPCC(ts, ns)
		s.Variant, s.Level = k.variant, k.level
		out = append(out, s)
	}
	return out
}

// summariseTPCC is the summary of one group's runs ts, numbered ns.
func summariseTPCC(ts []*results.TPCC, ns []int) TPCCSummary {
	first := ts[0]
	s := TPCCSummary{Mode: first.Mode, Warehouses: first.Warehouses, Note: first.Note, Runs: ns, ExpectedRatio: first.ExpectedRatio}
	var tpmc, nopm, ratio []float64
	types := map[string]*tpccTypeValues{}
	var names []string
	for i, t := range ts {
		tpmc = append(tpmc, t.TpmC)
		switch {
		case t.NOPMMissing != "":
			s.NOPMMissing = append(s.NOPMMissing, fmt.Sprintf("run %d: %s", ns[i], t.NOPMMissing))
		default:
			nopm = append(nopm, t.NOPM)
			if t.TpmC > 0 {
				ratio = append(ratio, t.Ratio)
			}
			if t.Agree {
				s.Agree++
			}
		}
		met := len(t.Types) > 0
		for _, ty := range t.Types {
			met = met && ty.Pass
			v := types[ty.Name]
			if v == nil {
				v = &tpccTypeValues{sum: TPCCTypeSummary{Name: ty.Name, LimitMs: ty.LimitMs}}
				types[ty.Name] = v
				names = append(names, ty.Name)
			}
			if ty.Committed > 0 {
				v.p90 = append(v.p90, ty.P90Ms)
			}
			if ty.Pass {
				v.sum.Pass++
			} else {
				v.sum.Fail++
			}
			v.sum.Failed += ty.Failed
		}
		if met {
			s.LimitsMet++
		}
		switch {
		case t.ChecksFailed():
			s.Consistency.Failed = append(s.Consistency.Failed, ns[i])
		case t.Consistent():
			s.Consistency.Pass++
		default:
			why := t.ChecksSkipped
			if why == "" {
				why = "not checked"
			}
			s.Consistency.Skipped = append(s.Consistency.Skipped, fmt.Sprintf("run %d: %s", ns[i], why))
		}
	}
	s.TpmC, s.NOPM, s.Ratio = stats.Summarize(tpmc), stats.Summarize(nopm), stats.Summarize(ratio)
	for _, n := range names {
		v := types[n]
		v.sum.P90Ms = stats.Summarize(v.p90)
		s.Types = append(s.Types, v.sum)
	}
	return s
}

// tpccTypeValues gathers one type's values over the runs.
type tpccTypeValues struct {
	sum TPCCTypeSummary
	p90 []float64
}
