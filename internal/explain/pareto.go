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
	acc := newParetoAcc()
	acc.add(in)
	p := acc.pareto(in.cfg.Pareto)
	if p.WaitsMissing != "" && p.StmtsMissing != "" {
		return nil, []string{"Pareto: missing (waits: " + p.WaitsMissing + "; statements: " + p.StmtsMissing + ")"}
	}
	return p, nil
}

// paretoAcc sums the wait samples and the statements' time and blocks of
// one run or of several (a variant's runs in an experiment: the Pareto of
// their sums, each run's measured window counted once).
type paretoAcc struct {
	waits    map[waitKey]float64
	stmts    map[stmtKey]*stmtCost
	order    []stmtKey
	waitsWhy string // why the first run without waits had none ("" when a run had them)
	stmtsWhy string
	runs     int
	anyWaits bool
	anyStmts bool
}

// stmtKey is a statement of pg_stat_statements: its queryid, top level or
// nested.
type stmtKey struct {
	id     int64
	nested bool
}

// stmtCost is a statement's summed cost.
type stmtCost struct {
	name       string
	ms, blocks float64
}

func newParetoAcc() *paretoAcc {
	return &paretoAcc{waits: map[waitKey]float64{}, stmts: map[stmtKey]*stmtCost{}}
}

// add adds the run's waits and statements.
func (a *paretoAcc) add(in *runInput) {
	a.runs++
	if why := a.addWaits(in); why != "" {
		if a.waitsWhy == "" {
			a.waitsWhy = why
		}
	} else {
		a.anyWaits = true
	}
	if why := a.addStatements(in); why != "" {
		if a.stmtsWhy == "" {
			a.stmtsWhy = why
		}
	} else {
		a.anyStmts = true
	}
}

// pareto is the Pareto of the sums at share; a part none of the runs had
// is missing with the first run's reason.
func (a *paretoAcc) pareto(share float64) *results.Pareto {
	p := &results.Pareto{Share: share}
	if !a.anyWaits {
		p.WaitsMissing = a.waitsWhy
	} else {
		a.fillWaits(p)
	}
	if !a.anyStmts {
		p.StmtsMissing = a.stmtsWhy
	} else {
		a.fillStatements(p)
	}
	return p
}

// addWaits adds the run's wait samples; it returns why it could not.
func (a *paretoAcc) addWaits(in *runInput) string {
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
	n := 0
	for _, r := range rows {
		if r.Class != class || r.Samples <= 0 || r.Type == "" && r.Event == "" || !w.Holds(r.Time, secondsDur(ivl)) {
			continue
		}
		a.waits[waitKey{waitTypeClass(r.Type), r.Event}] += float64(r.Samples)
		n++
	}
	if n == 0 {
		return results.WaitsFile + " has no active samples in the measured window"
	}
	return ""
}

// fillWaits is the waits' Pareto of the sums.
func (a *paretoAcc) fillWaits(p *results.Pareto) {
	items := make([]stats.Item, 0, len(a.waits))
	for k, v := range a.waits {
		items = append(items, stats.Item{Name: waitName(k.typ, k.event), Value: v})
		p.WaitsTotal += v
	}
	p.WaitsOf = len(items)
	p.Waits = stats.Pareto(items, p.Share)
}

// waitName is "Type:Event", "CPU" for active without a wait.
func waitName(typ, event string) string {
	if event == "" || typ == event {
		return typ
	}
	return typ + ":" + event
}

// addStatements adds the run's statements of the measured phase; it
// returns why it could not.
func (a *paretoAcc) addStatements(in *runInput) string {
	rows, err := results.ReadStatements(in.dir)
	if err != nil {
		return readWhy(in.run, results.EvidenceStatements, results.StatementsFile, err)
	}
	n := 0
	for _, r := range rows {
		if r.Phase != results.PhaseMeasure || r.Sessions != results.SessionsRun {
			continue
		}
		k := stmtKey{r.QueryID, r.Nested}
		c := a.stmts[k]
		if c == nil {
			name := r.Query
			if name == "" {
				name = "queryid " + strconv.FormatInt(r.QueryID, 10)
			}
			if r.Nested {
				name += " (nested)"
			}
			c = &stmtCost{name: name}
			a.stmts[k] = c
			a.order = append(a.order, k)
		}
		c.ms += r.TotalExecMs
		c.blocks += float64(r.SharedBlksHit + r.SharedBlksRead)
		n++
	}
	if n == 0 {
		return fmt.Sprintf("no statements of the measured phase in %s", results.StatementsFile)
	}
	return ""
}

// fillStatements is the statements' Pareto of the sums.
func (a *paretoAcc) fillStatements(p *results.Pareto) {
	ids := map[string]int64{}
	var byTime, byBlocks []stats.Item
	for _, k := range a.order {
		c := a.stmts[k]
		// Names must be unique for the ids: two statements with one text
		// (another queryid) get theirs appended.
		name := c.name
		if _, dup := ids[name]; dup {
			name += " [queryid " + strconv.FormatInt(k.id, 10) + "]"
		}
		ids[name] = k.id
		byTime = append(byTime, stats.Item{Name: name, Value: c.ms})
		byBlocks = append(byBlocks, stats.Item{Name: name, Value: c.blocks})
		p.TimeTotal += c.ms
		p.BlocksTotal += c.blocks
	}
	p.StatementsOf = len(a.order)
	p.ByTime = stats.Pareto(byTime, p.Share)
	p.ByBlocks = stats.Pareto(byBlocks, p.Share)
	for _, it := range p.ByTime {
		p.ByTimeIDs = append(p.ByTimeIDs, ids[it.Name])
	}
	for _, it := range p.ByBlocks {
		p.ByBlocksIDs = append(p.ByBlocksIDs, ids[it.Name])
	}
}

// VariantPareto is the Pareto of one variant's runs together: the wait
// events and statements that make the cut of their sums over every
// level and repeat.
type VariantPareto struct {
	Variant string          `json:"variant"`
	Runs    int             `json:"runs"`
	Pareto  *results.Pareto `json:"pareto"`
}

// variantParetos is each variant's Pareto over its runs (nil when no run
// has waits or statements).
func variantParetos(in *ExperimentInput, cfg Config) ([]*VariantPareto, []string) {
	var out []*VariantPareto
	var warns []string
	for _, v := range in.Variants {
		acc := newParetoAcc()
		for i := range in.Runs {
			r := &in.Runs[i]
			if r.Variant == v && r.Run != nil {
				acc.add(&runInput{dir: r.Dir, run: r.Run, cfg: cfg})
			}
		}
		if acc.runs == 0 {
			continue
		}
		p := acc.pareto(cfg.Pareto)
		if p.WaitsMissing != "" && p.StmtsMissing != "" {
			warns = append(warns, fmt.Sprintf("Pareto of %s: missing (waits: %s; statements: %s)", v, p.WaitsMissing, p.StmtsMissing))
			continue
		}
		out = append(out, &VariantPareto{Variant: v, Runs: acc.runs, Pareto: p})
	}
	return out, warns
}
