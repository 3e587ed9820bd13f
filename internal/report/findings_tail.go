package report

import "github.com/pgtrial/pgtrial/internal/results"

// tailBlocks say why the slowest transactions were slow (not built yet).
func tailBlocks(t *results.Tail) []Block {
	_ = t
	return nil
}
