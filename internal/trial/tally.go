package trial

import (
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

// runTallies are the scripts' \tally counts for run.json. They count the
// \tally commands run in the measured window: after the warm-up
// (engine.Config.TallyAfter) and up to the window's end, by when each ran.
func runTallies(ts []script.Tally) []results.Tally {
	if len(ts) == 0 {
		return nil
	}
	out := make([]results.Tally, len(ts))
	for i, t := range ts {
		top := t.TopCounts
		if len(top) > results.MaxTallyTop {
			top = top[:results.MaxTallyTop]
		}
		out[i] = results.Tally{Name: t.Name, Draws: t.Draws, Distinct: t.Distinct, TopCounts: top, Capped: t.Capped}
	}
	return out
}
