package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/pgtrial/pgtrial/internal/capacity"
	"github.com/pgtrial/pgtrial/internal/report/format"
)

// Capacity is the report of a capacity search: the SLO as its title, the
// closed-model ceiling and its runs, every open-model step, the conclusion
// and why the search ended.
func Capacity(r *capacity.Result) *Doc {
	return &Doc{Title: capacitySLO(r), Blocks: capacityBody(r)}
}

// CapacityBlocks is Capacity's blocks with its title as the first line, for
// a report that holds a search (the experiment summary).
func CapacityBlocks(r *capacity.Result) []Block {
	return append([]Block{&Lines{Lines: []string{capacitySLO(r)}}}, capacityBody(r)...)
}

// capacitySLO is the line that states the SLO every open-model run is
// judged against.
func capacitySLO(r *capacity.Result) string {
	c := r.Config.Normalized()
	return fmt.Sprintf("capacity search: SLO %s ≤ %s from the intended start, lag not growing, achieved ≥ %s of the target, skipped + failed ≤ %s",
		capacity.QuantileName(c.Quantile), format.Duration(c.Limit), format.Pct(1-c.AchievedTolerance), format.Pct(c.MaxFailedShare))
}

func capacityBody(r *capacity.Result) []Block {
	c := r.Config.Normalized()
	var blocks []Block
	ceiling := fmt.Sprintf("closed-model ceiling: %s tx/s, median of %d runs (not judged: closed-model latency counts from the actual start)",
		format.Sig3(r.Ceiling), len(r.CeilingRuns))
	if len(r.CeilingRuns) == 0 {
		blocks = append(blocks, &Lines{Lines: []string{ceiling}})
	} else {
		t := &Table{Title: ceiling, Head: []string{"run", "achieved tx/s", "skipped+failed", "dir"}}
		for i, pr := range r.CeilingRuns {
			t.AddRow(strconv.Itoa(i+1), format.Sig3(pr.Achieved), format.Pct(pr.SkippedShare+pr.FailedShare), pr.Dir)
		}
		blocks = append(blocks, t)
	}
	if len(r.Steps) > 0 {
		blocks = append(blocks, capacitySteps(r))
	}

	ended := "search ended: " + r.Stopped
	if r.Pass != nil && r.Fail != nil {
		lo, hi := r.Pass.Probe.Rate, r.Fail.Probe.Rate
		op := "≤"
		if (hi-lo)/lo > c.Precision {
			op = ">"
		}
		ended += fmt.Sprintf(": bracket (%s − %s)/%s = %s %s precision %s",
			format.Sig3(hi), format.Sig3(lo), format.Sig3(lo), format.Pct((hi-lo)/lo), op, format.Pct(c.Precision))
	}
	return append(blocks, &Lines{Lines: []string{capacity.Conclusion(r), ended}})
}

// capacitySteps is the table of the open-model runs of r, one row per Step
// in the order run. The "bracket" column marks the run at the capacity and
// the lowest failing run above it; "why" is filled for failures only.
func capacitySteps(r *capacity.Result) *Table {
	q := capacity.QuantileName(r.Config.Normalized().Quantile)
	t := &Table{Title: "open-model steps:", Head: []string{"run", "phase", "target tx/s", "of ceiling", "achieved tx/s",
		q + " ms", "lag", "skipped+failed", "result", "bracket", "dir", "why"}}
	for _, st := range r.Steps {
		pr := st.Probe
		lag, result, why := "steady", "pass", ""
		if pr.LagGrowing {
			lag = "grows"
		}
		if !st.Pass {
			result, why = "FAIL", st.Why
		}
		bracket := ""
		switch {
		case r.Pass != nil && st.N == r.Pass.N:
			bracket = "capacity"
		case r.Fail != nil && st.N == r.Fail.N:
			bracket = "lowest miss"
		}
		t.AddRow(strconv.Itoa(st.N), st.Phase, format.Sig3(pr.Rate), format.Pct(st.Fraction), format.Sig3(pr.Achieved),
			format.Ms(float64(pr.Quantile)/float64(time.Millisecond)), lag, format.Pct(pr.SkippedShare+pr.FailedShare), result, bracket, pr.Dir, why)
	}
	return t
}
