package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// tpccExperimentTitle starts the title of a TPC-C-like experiment's table.
const tpccExperimentTitle = "TPC-C-like per variant ("

// TPCCExperimentBlocks are a TPC-C-like experiment's figures per variant
// (a ramp: per level), from experiment.json's tpcc: tpmC-like, NOPM and
// NOPM/tpmC as median (min–max) over the runs, how many runs' ratios agree
// with the expected 0.99, the 90th-percentile limits and the consistency
// checks counted over the runs; then each transaction type's p90 against
// its limit. Counts, not verdicts: a limit or a check passes or fails in a
// run. None for another workload.
func TPCCExperimentBlocks(rec *experiment.Record) []Block {
	if rec == nil || len(rec.TPCC) == 0 {
		return nil
	}
	first := rec.TPCC[0]
	ramp := false
	for _, s := range rec.TPCC {
		ramp = ramp || s.Level > 0
	}
	head := fmt.Sprintf("%s%s mode", tpccExperimentTitle, first.Mode)
	if first.Warehouses > 0 {
		head += fmt.Sprintf(", %d %s", first.Warehouses, format.Plural(first.Warehouses, "warehouse", "warehouses"))
	}
	head += "; median (min–max) over the runs): " + tpccNote(first.Mode, first.Note)
	fig := &Table{Title: head, Head: []string{"variant"}}
	lim := &Table{Title: "TPC-C 90th-percentile response-time limits per variant (clause 5.2.5.3; p90 median (min–max) over the runs):",
		Head: []string{"variant"}}
	if ramp {
		fig.Head, lim.Head = append(fig.Head, "level"), append(lim.Head, "level")
	}
	fig.Head = append(fig.Head, "tpmC-like", "NOPM", "NOPM/tpmC", "agree ±10 %", "limits met", "consistency", "tpcc runs")
	lim.Head = append(lim.Head, "transaction", "p90 ms", "limit ms", "met in", "failed tx")
	var missing []string
	for _, s := range rec.TPCC {
		n := len(s.Runs)
		lead := []Cell{Text(s.Variant)}
		if ramp {
			lead = append(lead, Text(format.Sig3(s.Level)))
		}
		nopm, ratio := Text(spreadOf(s.NOPM, format.Rate)), Text(spreadOf(s.Ratio, ratio3))
		if s.NOPM.N == 0 {
			why := "no run has NOPM: " + strings.Join(s.NOPMMissing, "; ")
			nopm, ratio = Absent(why), Absent(why)
		} else {
			missing = append(missing, s.NOPMMissing...)
		}
		agree := Text(fmt.Sprintf("%d of %d", s.Agree, s.NOPM.N))
		fig.Rows = append(fig.Rows, append(append([]Cell(nil), lead...), Text(spreadOf(s.TpmC, format.Rate)), nopm, ratio, agree,
			Text(tpccLimitsMet(s)), Text(tpccConsistency(s.Consistency, n)), Text(strconv.Itoa(n))))
		for _, ty := range s.Types {
			p90 := Text(spreadOf(ty.P90Ms, format.Ms))
			if ty.P90Ms.N == 0 {
				p90 = Absent(ty.Name + " completed none in any run")
			}
			lim.Rows = append(lim.Rows, append(append([]Cell(nil), lead...), Text(ty.Name), p90, Text(format.Ms(ty.LimitMs)),
				Text(fmt.Sprintf("%d of %d %s", ty.Pass, ty.Pass+ty.Fail, format.Plural(ty.Pass+ty.Fail, "run", "runs"))), Text(format.Count(ty.Failed))))
		}
	}
	fig.Notes = []string{
		fmt.Sprintf("tpmC-like: New-Orders per minute, the 1 %% rolled back included; NOPM: Δ sum(d_next_o_id) per minute, committed New-Orders only; "+
			"NOPM/tpmC is expected at %.2f, and a run agrees when within 10 %% of it", first.ExpectedRatio),
		"limits met: runs in which every transaction type's p90 met its limit; consistency: conditions 1–4 (clause 3.3.2) after each run",
	}
	for _, m := range missing {
		fig.Notes = append(fig.Notes, "NOPM missing in "+m)
	}
	lim.Notes = []string{"met in: runs whose p90 of the response time (from the intended start in the open model) is within the limit; failed tx: summed over the runs"}
	return []Block{fig, lim}
}

// spreadOf is a summary's "median (min–max)", one value alone, "—" for none.
func spreadOf(s stats.Summary, f func(float64) string) string {
	return format.Spread(s.Sorted, f)
}

func ratio3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// tpccLimitsMet is in how many runs every type met its limit, and the
// types that missed it: "1 of 2 runs (payment missed in 1)".
func tpccLimitsMet(s experiment.TPCCSummary) string {
	n := len(s.Runs)
	out := fmt.Sprintf("%d of %d %s", s.LimitsMet, n, format.Plural(n, "run", "runs"))
	var missed []string
	for _, ty := range s.Types {
		if ty.Fail > 0 {
			missed = append(missed, fmt.Sprintf("%s missed in %d", ty.Name, ty.Fail))
		}
	}
	if len(missed) > 0 {
		out += " (" + strings.Join(missed, ", ") + ")"
	}
	return out
}

// tpccConsistency is "pass in 2 of 2 runs", "FAILED in run 3; pass in 1
// of 2 runs", with the runs not checked and why.
func tpccConsistency(c experiment.TPCCConsistency, n int) string {
	var parts []string
	if len(c.Failed) > 0 {
		ns := make([]string, len(c.Failed))
		for i, r := range c.Failed {
			ns[i] = strconv.Itoa(r)
		}
		parts = append(parts, fmt.Sprintf("FAILED in %s %s", format.Plural(len(ns), "run", "runs"), strings.Join(ns, ", ")))
	}
	parts = append(parts, fmt.Sprintf("pass in %d of %d %s", c.Pass, n, format.Plural(n, "run", "runs")))
	if len(c.Skipped) > 0 {
		parts = append(parts, "not checked in "+strings.Join(c.Skipped, "; "))
	}
	return strings.Join(parts, "; ")
}
