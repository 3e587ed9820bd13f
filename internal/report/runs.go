package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/runlist"
)

// Runs is the history of `pgtrial runs DIR`: one row per run or experiment
// directory under root, oldest first, with when it started (UTC), what and
// under which model it ran, its tps and response p99 (an experiment's: the
// median over its first variant's runs), and its verdicts (an experiment's
// comparisons on their primary metric) or checklist counts. Directories that
// could not be read are listed under the table with the reason.
func Runs(root string, entries []runlist.Entry) *Doc {
	d := &Doc{Title: fmt.Sprintf("runs under %s: %s", root, countOf(len(entries), "directory", "directories"))}
	t := &Table{Head: []string{"started (UTC)", "kind", "dir", "workload", "model", "tps", "p99 (ms)", "verdicts / checklist"}, Sortable: true}
	var broken []string
	for _, e := range entries {
		if e.Error != "" {
			broken = append(broken, e.Dir+": "+e.Error)
			continue
		}
		started := format.Missing
		if !e.StartedAt.IsZero() {
			started = e.StartedAt.UTC().Format("2006-01-02 15:04:05")
		}
		kind := e.Kind
		if e.Kind == runlist.KindExperiment {
			kind += fmt.Sprintf(" (%s)", countOf(e.Runs, "run", "runs"))
		}
		if e.Interrupted {
			kind += ", interrupted"
		}
		tps, p99 := Cell{Text: format.Missing, Why: "no summary"}, Cell{Text: format.Missing, Why: "no summary"}
		if e.TPS != nil {
			tps = Text(format.Sig3(*e.TPS))
		}
		if e.P99 != nil {
			p99 = Text(format.Ms(*e.P99))
		}
		t.Rows = append(t.Rows, []Cell{Text(started), Text(kind), Text(e.Dir), Text(orDash(e.Workload)), Text(runsModel(e)), tps, p99, Text(runsVerdicts(e))})
	}
	if len(t.Rows) > 0 {
		d.Add(t)
	}
	if len(broken) > 0 {
		d.Add(&Lines{Title: "not readable:", Lines: broken, Indent: 2})
	}
	if len(entries) == 0 {
		d.Add(&Lines{Lines: []string{"no run.json or experiment.json found (pgtrial runs looks --depth levels down)"}})
	}
	return d
}

// runsModel is "open 500/s, 8 clients", "closed, 4 clients" or an
// experiment's model.
func runsModel(e runlist.Entry) string {
	var parts []string
	switch {
	case e.Model == results.ModelOpen && e.Rate > 0:
		parts = append(parts, "open "+format.Sig3(e.Rate)+"/s")
	case e.Model != "":
		parts = append(parts, e.Model)
	}
	if e.Clients > 0 {
		parts = append(parts, countOf(e.Clients, "client", "clients"))
	}
	if len(parts) == 0 {
		return format.Missing
	}
	return strings.Join(parts, ", ")
}

// runsVerdicts is an experiment's verdicts, "off vs on: tps differs ×2.5
// (2.1–2.9)", else the checklist's counts, "1 fail, 2 warn".
func runsVerdicts(e runlist.Entry) string {
	var out []string
	for _, v := range e.Verdicts {
		s := fmt.Sprintf("%s vs %s: %s", v.NameB, v.NameA, v.Metric)
		if v.Outcome == "" {
			s += " not compared"
		} else {
			s += " " + v.Outcome
		}
		if v.Ratio != nil {
			s += fmt.Sprintf(" ×%s (%s–%s)", format.Sig3(v.Ratio.Point), format.Sig3(v.Ratio.Lo), format.Sig3(v.Ratio.Hi))
		}
		out = append(out, s)
	}
	if len(out) == 0 && len(e.Checks) > 0 {
		var statuses []string
		for s := range e.Checks {
			if s != "pass" {
				statuses = append(statuses, s)
			}
		}
		sort.Strings(statuses)
		for _, s := range statuses {
			out = append(out, fmt.Sprintf("%d %s", e.Checks[s], s))
		}
		if len(out) == 0 {
			out = append(out, "checklist passes")
		}
	}
	if len(out) == 0 {
		return format.Missing
	}
	return strings.Join(out, "; ")
}

func orDash(s string) string {
	if s == "" {
		return format.Missing
	}
	return s
}

// countOf is "1 run", "3 runs".
func countOf(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, format.Plural(n, one, many))
}
