package report

import (
	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/explain"
)

// rampFindingsBlocks are a ramp's levels, trends and knee (not built yet).
func rampFindingsBlocks(r *explain.Ramp) []Block {
	_ = r
	return nil
}

// variantChangeBlocks are each variant against the first (not built yet).
func variantChangeBlocks(v []*explain.VariantChange) []Block {
	_ = v
	return nil
}

// rampFindingsFigures are the ramp findings' charts (not built yet).
func rampFindingsFigures(rec *experiment.Record, ids *chartIDs) []anchored {
	_, _ = rec, ids
	return nil
}
