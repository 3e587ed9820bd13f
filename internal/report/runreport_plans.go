package report

import (
	"errors"
	"io/fs"
	"strconv"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// planBlocks are the run's plans (plans.json): each statement of the
// scripts with its plan's shape, or why it has none. A run without
// plans.json (an older pgtrial, the collectors off) has no block.
func (r *runReport) planBlocks() []Block {
	p, err := results.ReadPlans(r.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return []Block{&Notes{Prefix: "plans: ", Lines: []string{"missing (" + redact(err.Error()) + ")"}}}
	}
	t := &Table{Title: "plans (EXPLAIN before the warm-up, values of client 0's first transaction)",
		Head: []string{"script", "command", "statement", "plan", "est. cost"}}
	for _, s := range p.Statements {
		cmd := strconv.Itoa(s.Command)
		if s.Part > 0 {
			cmd += "." + strconv.Itoa(s.Part+1)
		}
		row := []Cell{Text(s.Script), Text(cmd), Text(format.OneLine(results.RedactSQL(s.Text), planTextRunes))}
		if s.Shape == nil {
			row = append(row, Absent(redact(s.Reason)), Absent("not explained"))
		} else {
			line := format.OneLine(results.RedactSQL(s.Shape.Line()), planLineRunes)
			if s.Method == results.PlanGeneric {
				line += " (generic plan)"
			}
			row = append(row, Text(line), Text(format.Sig3(s.Cost)))
		}
		t.Rows = append(t.Rows, row)
	}
	out := []Block{t}
	if len(p.Warnings) > 0 {
		out = append(out, &Notes{Prefix: "plans: ", Lines: redactAll(p.Warnings)})
	}
	return out
}
