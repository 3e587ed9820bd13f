package report

import "github.com/pgtrial/pgtrial/internal/explain"

// planChangesBlocks are the plans that changed between variants (not
// built yet).
func planChangesBlocks(p *explain.PlanChanges) []Block {
	_ = p
	return nil
}
