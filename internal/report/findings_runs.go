package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// runFindingsShown is how many runs the experiment's summary lists with
// their changes; the rest are counted (each run's report has them).
const runFindingsShown = 12

// runFindingsTitle heads the runs' own findings in an experiment's summary.
const runFindingsTitle = "the runs' timelines (level shifts in tps, p99 or lag, and why the tail was slow; in full in each run's run.json and report)"

// experimentRunFindingsBlocks are the runs' own findings in an
// experiment's summary, one line a run: its changes (short: the first
// occurrence matched to each) and, for a run with a change or an
// injection, the first sentence of why its tail was slow. Nil when no run
// has a change.
func experimentRunFindingsBlocks(rec *experiment.Record, dir string) []Block {
	l := &Lines{Title: runFindingsTitle, Indent: 2}
	quiet, more, read := 0, 0, 0
	for _, rr := range rec.Runs {
		if rr.Dir == "" {
			continue
		}
		run, err := results.Load(filepath.Join(dir, rr.Dir))
		if err != nil || run.Findings == nil {
			continue
		}
		read++
		var parts []string
		if c := run.Findings.Changes; c != nil {
			for _, g := range changeGroups(c.Changes) {
				parts = append(parts, changeSentence(g, c.MatchS, true))
			}
		}
		if t := run.Findings.Tail; t != nil && len(t.Summary) > 0 && (len(parts) > 0 || len(rr.Injected) > 0) {
			parts = append(parts, "tail: "+t.Summary[0])
		}
		switch {
		case len(parts) == 0:
			quiet++
		case len(l.Lines) >= runFindingsShown:
			more++
		default:
			l.Lines = append(l.Lines, filepath.Base(rr.Dir)+": "+strings.Join(parts, "; "))
		}
	}
	if len(l.Lines) == 0 {
		return nil
	}
	if more > 0 {
		l.Lines = append(l.Lines, fmt.Sprintf("%d more %s with changes (in their reports)", more, format.Plural(more, "run", "runs")))
	}
	if quiet > 0 {
		l.Lines = append(l.Lines, fmt.Sprintf("%d other %s of %d: no level shift in tps, p99 or lag", quiet, format.Plural(quiet, "run", "runs"), read))
	}
	return []Block{l}
}
