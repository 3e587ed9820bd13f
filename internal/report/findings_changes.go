package report

import "github.com/pgtrial/pgtrial/internal/results"

// changesBlocks are the changes in a run's timeline (not built yet).
func changesBlocks(c *results.Changes) []Block {
	_ = c
	return nil
}
