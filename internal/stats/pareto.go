package stats

import (
	"cmp"
	"math"
	"slices"
)

// DefaultParetoShare is the share a Pareto selection covers (80 %).
const DefaultParetoShare = 0.8

// Item is one contributor to a total: a wait event or type with its sample
// count, a statement with its time or blocks.
type Item struct {
	Name       string  `json:"name"`
	Value      float64 `json:"value"`
	Share      float64 `json:"share"`      // Value / total (set by Pareto)
	Cumulative float64 `json:"cumulative"` // sum of Share of this item and the larger ones (set by Pareto)
}

// Pareto returns the largest items, in descending order of Value (ties by
// Name), up to and including the first whose Cumulative share reaches share,
// with Share = Value/total and Cumulative = Σ Share so far; total is the sum
// over all items with a finite positive Value (the others are left out).
// share NaN means DefaultParetoShare; it is clamped to [0, 1], and at least
// one item is returned when any counts. Pareto(items, 1) gives every item
// with its share: the breakdown of waits by type.
func Pareto(items []Item, share float64) []Item {
	if math.IsNaN(share) {
		share = DefaultParetoShare
	}
	share = clamp01(share)
	var kept []Item
	var total float64
	for _, it := range items {
		if isFinite(it.Value) && it.Value > 0 {
			kept = append(kept, it)
			total += it.Value
		}
	}
	if len(kept) == 0 || !isFinite(total) {
		return nil
	}
	slices.SortFunc(kept, func(a, b Item) int {
		if c := cmp.Compare(b.Value, a.Value); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	// 1e-12 absorbs rounding: 0.5 + 0.3 must reach 0.8.
	const eps = 1e-12
	var cum float64
	for i := range kept {
		kept[i].Share = kept[i].Value / total
		cum += kept[i].Share
		kept[i].Cumulative = min(1, cum)
		if cum >= share-eps {
			return kept[:i+1]
		}
	}
	return kept
}
