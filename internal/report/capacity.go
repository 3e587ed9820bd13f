package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/capacity"
	"github.com/pgtrial/pgtrial/internal/report/format"
)

// Capacity is the report of a capacity search: the SLO as its title, the
// closed-model ceiling and its runs, every open-model step, the conclusion
// and why the search ended.
func Capacity(r *capacity.Result) *Doc {
	r = r.WithRates()
	return &Doc{Title: capacitySLO(r), Blocks: capacityBody(r)}
}

// CapacityBlocks is Capacity's blocks with its title as the first line, for
// a report that holds a search (the experiment summary).
func CapacityBlocks(r *capacity.Result) []Block {
	r = r.WithRates()
	return append([]Block{&Lines{Lines: []string{capacitySLO(r)}}}, capacityBody(r)...)
}

// capacitySLO is the line that states the SLO every open-model run is
// judged against.
func capacitySLO(r *capacity.Result) string {
	c := r.Config.Normalized()
	return fmt.Sprintf("capacity search: SLO %s ≤ %s from the intended start, lag not growing, rate achieved (started ≥ E − max(1 %% of E, 3√E)), skipped + failed ≤ %s",
		capacity.QuantileName(c.Quantile), format.Duration(c.Limit), format.Pct(c.MaxFailedShare))
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
		blocks = append(blocks, capacitySteps(r), capacityRates(r))
	}

	ended := "search ended: " + r.Stopped
	if r.Low > 0 && r.High > 0 {
		ended += fmt.Sprintf("; the interval is %s–%s tx/s, (%s − %s)/%s = %s wide; precision %s is where the bisection stops, not the capacity's precision",
			format.Sig3(r.Low), format.Sig3(r.High), format.Sig3(r.High), format.Sig3(r.Low), format.Sig3(r.Low), format.Pct((r.High-r.Low)/r.Low), format.Pct(c.Precision))
	}
	lines := []string{capacity.Conclusion(r), ended}
	if c.BracketRepeats == 1 {
		lines = append(lines, "each end of the interval is a single run: noise can move it (--bracket-repeats 3 repeats them)")
	}
	return append(blocks, &Lines{Lines: lines})
}

// capacityRates is the table of the rates tried, increasing, with their
// runs and verdicts, and the interval's ends marked.
func capacityRates(r *capacity.Result) *Table {
	c := r.Config.Normalized()
	t := &Table{Title: fmt.Sprintf("rates tried (an end of the interval needs %s that agree):", format.Plural(c.BracketRepeats, "1 run", strconv.Itoa(c.BracketRepeats)+" runs")),
		Head: []string{"target tx/s", "of ceiling", "met SLO", "verdict", "interval", "runs"}}
	for _, rr := range r.Rates {
		end := ""
		switch rr.Rate {
		case r.Low:
			end = "low end"
		case r.High:
			end = "high end"
		}
		runs := make([]string, len(rr.Runs))
		for i, n := range rr.Runs {
			runs[i] = strconv.Itoa(n)
		}
		frac := ""
		if r.Ceiling > 0 {
			frac = format.Pct(rr.Rate / r.Ceiling)
		}
		t.AddRow(format.Sig3(rr.Rate), frac, fmt.Sprintf("%d of %d", rr.Passed, len(rr.Runs)), rr.Verdict, end, strings.Join(runs, ", "))
	}
	return t
}

// capacitySteps is the table of the open-model runs of r, one row per Step
// in the order run. The "bracket" column marks the runs at the interval's
// low and high ends; "why" is filled for failures only.
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
		switch pr.Rate {
		case r.Low:
			bracket = "low end"
		case r.High:
			bracket = "high end"
		}
		t.AddRow(strconv.Itoa(st.N), st.Phase, format.Sig3(pr.Rate), format.Pct(st.Fraction), format.Sig3(pr.Achieved),
			format.Ms(float64(pr.Quantile)/float64(time.Millisecond)), lag, format.Pct(pr.SkippedShare+pr.FailedShare), result, bracket, pr.Dir, why)
	}
	return t
}
