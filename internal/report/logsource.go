package report

import (
	"maps"
	"slices"

	"github.com/pgtrial/pgtrial/internal/results"
)

// LogSourceBlocks says, for a run directory made from pgbench's logs
// (pgtrial analyze, run.json's logs), what the logs cannot tell, subject by
// subject; nothing for a run's own directory.
func LogSourceBlocks(src *results.LogSource) []Block {
	if src == nil || len(src.Missing) == 0 {
		return nil
	}
	l := &Lines{Title: "not in the pgbench log (" + src.Format + ")"}
	for _, k := range slices.Sorted(maps.Keys(src.Missing)) {
		l.Lines = append(l.Lines, k+": "+src.Missing[k])
	}
	return []Block{l}
}
