package report

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// Widths of the plans' texts, in characters.
const (
	planTextRunes = 160 // a statement
	planLineRunes = 600 // a plan's one-line shape
)

// planChangesTitle heads the plans that changed between variants.
const planChangesTitle = "plans that changed (EXPLAIN before each run's warm-up; shape: node types, relations, indexes, joins, scan direction; costs not compared)"

// planChangesBlocks are the plans that changed between variants: each
// statement whose shape differs, with every variant's shapes and the runs
// that had them; how many had one shape everywhere; the statements not
// explained and why; the runs without plans.json.
func planChangesBlocks(p *explain.PlanChanges) []Block {
	if p == nil {
		return nil
	}
	l := &Lines{Title: planChangesTitle}
	for _, c := range p.Changed {
		l.Lines = append(l.Lines, planChangeLines(p.Baseline, c)...)
	}
	l.Lines = append(l.Lines, fmt.Sprintf("%d %s had the same plan in every run of every variant (%d %s with plans.json)",
		p.Same, format.Plural(p.Same, "statement", "statements"), p.Runs, format.Plural(p.Runs, "run", "runs")))
	out := []Block{l}
	var notes []string
	if len(p.Utility) > 0 {
		n, kinds := 0, slices.Sorted(maps.Keys(p.Utility))
		for _, k := range kinds {
			n += p.Utility[k]
		}
		notes = append(notes, fmt.Sprintf("%d transaction-control or utility %s with no plan to compare (%s)",
			n, format.Plural(n, "statement", "statements"), strings.Join(kinds, ", ")))
	}
	for _, n := range p.NotExplained {
		notes = append(notes, fmt.Sprintf("%s %s — %s (%d %s)", planWhere(n.Script, n.Command, n.Part, 0),
			format.OneLine(results.RedactSQL(n.Text), planTextRunes), redact(n.Reason), n.Runs, format.Plural(n.Runs, "run", "runs")))
	}
	for _, m := range p.Missing {
		notes = append(notes, "missing: "+redact(m))
	}
	if len(notes) > 0 {
		out = append(out, &Notes{Prefix: "plans: ", Lines: notes})
	}
	return out
}

// planChangeLines are one statement's lines: where it is, what differs,
// and each variant's shapes.
func planChangeLines(baseline string, c *explain.PlanChange) []string {
	var changed, unstable []string
	for _, v := range c.Variants {
		if v.Changed {
			changed = append(changed, v.Variant)
		}
		if v.Unstable {
			unstable = append(unstable, v.Variant)
		}
	}
	var what []string
	if len(changed) > 0 {
		what = append(what, "plan changed from "+baseline+" in "+strings.Join(changed, ", "))
	}
	if len(unstable) > 0 {
		what = append(what, "plan differs between the runs of "+strings.Join(unstable, ", ")+" (each run samples its parameters from its own seed; statistics may differ too)")
	}
	out := []string{planWhere(c.Script, c.Command, c.Part, c.Line) + ": " + strings.Join(what, "; "),
		"  " + format.OneLine(results.RedactSQL(c.Text), planTextRunes)}
	for _, v := range c.Variants {
		for _, s := range v.Shapes {
			runs := fmt.Sprintf("%d %s", len(s.Runs), format.Plural(len(s.Runs), "run", "runs"))
			if len(s.Runs) <= 3 {
				runs += ": " + strings.Join(s.Runs, ", ")
			}
			method := ""
			if s.Method == results.PlanGeneric {
				method = ", generic plan"
			} else if len(s.Params) > 0 {
				var ps []string
				for _, p := range s.Params {
					ps = append(ps, ":"+p.Name+"="+format.OneLine(results.RedactSQL(p.Value), 40))
				}
				method = ", " + strings.Join(ps, " ")
			}
			out = append(out, fmt.Sprintf("    %s (%s%s): %s", v.Variant, runs, method, format.OneLine(results.RedactSQL(s.Line), planLineRunes)))
		}
	}
	return out
}

// planWhere names a statement: "tpcb-like command 3 (line 6)"; a script
// file by its base name.
func planWhere(script string, command, part, line int) string {
	w := fmt.Sprintf("%s command %d", filepath.Base(script), command)
	if part > 0 {
		w += fmt.Sprintf(" part %d", part+1)
	}
	if line > 0 {
		w += fmt.Sprintf(" (line %d)", line)
	}
	return w
}
