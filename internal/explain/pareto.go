package explain

import (
	"fmt"
	"strconv"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// pareto is the run's Pareto at cfg.Pareto (80 %) of the wait events of
// active client backends by samples (waits.csv over the measured window)
// and of the run's statements by total execution time and by shared blocks
// hit + read (statements.csv, the measured phase): the fewest items, largest
// first, whose shares reach the cut (stats.Pareto).
//
// Unlike pg_expecto (§4.10) the totals are the window's own counts, not
// sums of 61-minute rolling medians, and the waits are those of every
// client backend, not only of statements pg_stat_statements knows (its
// join on queryid drops and can multiply samples).
func pareto(in *runInput) (*results.Pareto, []string) {
	p := &results.Pareto{Share: in.cfg.Pareto}
	if why := paretoWaits(in, p); why != "" {
		p.WaitsMissing = why
	}
	if why := paretoStatements(in, p); why != "" {
		p.StmtsMissing = why
	}
	if p.WaitsMissing != "" && p.StmtsMissing != "" {
		return nil, []string{"Pareto: missing (waits: " + p.WaitsMissing + "; statements: " + p.StmtsMissing + ")"}
	}
	return p, nil
}

// paretoWaits fills the waits' Pareto; it returns why it could not.
func paretoWaits(in *runInput, p *results.Pareto) string {
	w := results.MeasuredWindow(in.run)
	if !w.Known() {
		return "run.json has no measured phase"
	}
	rows, err := results.ReadWaits(in.dir)
	if err != nil {
		return readWhy(in.run, results.EvidenceWaits, results.WaitsFile, err)
	}
	class := "all"
	for _, r := range rows {
		if r.Class == "client" {
			class = "client"
			break
		}
	}
	ivl := medianGap(len(rows), func(i int) float64 { return rows[i].Elapsed })
	by := map[waitKey]float64{}
	for _, r := range rows {
		if r.Class != class || r.Samples <= 0 || r.Type == "" && r.Event == "" || !w.Holds(r.Time, secondsDur(ivl)) {
			continue
		}
		by[waitKey{waitTypeClass(r.Type), r.Event}] += float64(r.Samples)
	}
	if len(by) == 0 {
		return results.WaitsFile + " has no active samples in the measured window"
	}
	items := make([]stats.Item, 0, len(by))
	for k, v := range by {
		items = append(items, stats.Item{Name: waitName(k.typ, k.event), Value: v})
		p.WaitsTotal += v
	}
	p.WaitsOf = len(items)
	p.Waits = stats.Pareto(items, p.Share)
	return ""
}

// waitName is "Type:Event", "CPU" for active without a wait.
func waitName(typ, event string) string {
	if event == "" || typ == event {
		return typ
	}
	return typ + ":" + event
}

// paretoStatements fills the statements' Pareto; it returns why it could
// not.
func paretoStatements(in *runInput, p *results.Pareto) string {
	rows, err := results.ReadStatements(in.dir)
	if err != nil {
		return readWhy(in.run, results.EvidenceStatements, results.StatementsFile, err)
	}
	type key struct {
		id     int64
		nested bool
	}
	type acc struct {
		name       string
		ms, blocks float64
	}
	by := map[key]*acc{}
	var order []key
	for _, r := range rows {
		if r.Phase != results.PhaseMeasure || r.Sessions != results.SessionsRun {
			continue
		}
		k := key{r.QueryID, r.Nested}
		a := by[k]
		if a == nil {
			name := r.Query
			if name == "" {
				name = "queryid " + strconv.FormatInt(r.QueryID, 10)
			}
			if r.Nested {
				name += " (nested)"
			}
			a = &acc{name: name}
			by[k] = a
			order = append(order, k)
		}
		a.ms += r.TotalExecMs
		a.blocks += float64(r.SharedBlksHit + r.SharedBlksRead)
	}
	if len(by) == 0 {
		return fmt.Sprintf("no statements of the measured phase in %s", results.StatementsFile)
	}
	ids := map[string]int64{}
	var byTime, byBlocks []stats.Item
	for _, k := range order {
		a := by[k]
		// Names must be unique for the ids: two statements with one text
		// (another queryid) get theirs appended.
		if _, dup := ids[a.name]; dup {
			a.name += " [queryid " + strconv.FormatInt(k.id, 10) + "]"
		}
		ids[a.name] = k.id
		byTime = append(byTime, stats.Item{Name: a.name, Value: a.ms})
		byBlocks = append(byBlocks, stats.Item{Name: a.name, Value: a.blocks})
		p.TimeTotal += a.ms
		p.BlocksTotal += a.blocks
	}
	p.StatementsOf = len(order)
	p.ByTime = stats.Pareto(byTime, p.Share)
	p.ByBlocks = stats.Pareto(byBlocks, p.Share)
	for _, it := range p.ByTime {
		p.ByTimeIDs = append(p.ByTimeIDs, ids[it.Name])
	}
	for _, it := range p.ByBlocks {
		p.ByBlocksIDs = append(p.ByBlocksIDs, ids[it.Name])
	}
	return ""
}
