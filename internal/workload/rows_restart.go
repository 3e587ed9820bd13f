package workload

import "fmt"

// Restart makes r generate keys [first, end) next, as NewRows would, without a new
// generator: a loader that sends scattered runs of keys (a hash partition's) reuses one.
func (r *Rows) Restart(first, end int64) error {
	if first < 0 || end < first {
		return fmt.Errorf("bad key range [%d, %d) for %s", first, end, r.table)
	}
	r.next, r.end = first, end
	return nil
}
