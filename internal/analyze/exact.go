package analyze

import (
	"maps"
	"slices"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// denseLimit is the number of µs values counted in exact's dense array
// (0 … 524,287 µs, about half a second: 4 MB); larger ones go to its map.
const denseLimit = 1 << 19

// exact is an exact histogram of integer µs values: a count per distinct
// value, so that its percentiles are those of the sorted values
// themselves. Its memory is bounded by the distinct values (every value
// below denseLimit costs nothing more; each distinct one above, a map
// entry), not by how many were counted.
type exact struct {
	dense  []int64
	sparse map[int64]int64
	n      int64
	sum    float64 // Σ values, µs
}

func (e *exact) add(v int64) {
	if v < 0 {
		v = 0 // never in a pgbench log: the parser accepts only digits
	}
	e.n++
	e.sum += float64(v)
	if v < denseLimit {
		if e.dense == nil {
			e.dense = make([]int64, denseLimit)
		}
		e.dense[v]++
		return
	}
	if e.sparse == nil {
		e.sparse = map[int64]int64{}
	}
	e.sparse[v]++
}

// merge adds o to e.
func (e *exact) merge(o *exact) {
	e.n += o.n
	e.sum += o.sum
	if o.dense != nil {
		if e.dense == nil {
			e.dense = make([]int64, denseLimit)
		}
		for i, c := range o.dense {
			e.dense[i] += c
		}
	}
	for v, c := range o.sparse {
		if e.sparse == nil {
			e.sparse = map[int64]int64{}
		}
		e.sparse[v] += c
	}
}

// quantiles are the nearest-rank quantiles qs (each in [0, 1]) of the
// values, the k-th smallest with k = ⌈q·n⌉ (metrics.NearestRank: the
// seed's stats.py takes v[⌈n·q/100⌉ − 1] of the sorted values), in µs; all
// 0 when nothing was counted. qs must be in increasing order.
func (e *exact) quantiles(qs []float64) []int64 {
	out := make([]int64, len(qs))
	if e.n == 0 {
		return out
	}
	ranks := make([]int64, len(qs))
	for i, q := range qs {
		ranks[i] = metrics.NearestRank(q, e.n)
	}
	next := 0
	var cum int64
	visit := func(v, c int64) bool {
		cum += c
		for next < len(ranks) && cum >= ranks[next] {
			out[next] = v
			next++
		}
		return next < len(ranks)
	}
	for v, c := range e.dense {
		if c > 0 && !visit(int64(v), c) {
			return out
		}
	}
	for _, v := range slices.Sorted(maps.Keys(e.sparse)) {
		if !visit(v, e.sparse[v]) {
			return out
		}
	}
	return out
}
