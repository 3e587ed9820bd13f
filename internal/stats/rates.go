package stats

import "math"

// Rates is pg_expecto's "operational speed" done per unit: out[i] =
// counts[i]/seconds[i], e.g. statement calls per second or rows per second
// in each interval of a ramp step (or wait samples of one type per second).
// NaN where seconds[i] ≤ 0, either value is non-finite or the quotient
// overflows; the result has
// min(len(counts), len(seconds)) values.
//
// Keep calls and rows as separate series: pg_expecto adds them into one
// "speed" (median(calls/min) + median(rows/min)), which mixes units — a
// workload that returns more rows per call looks "faster" with no more work
// done, and the row term dominates (reference pg_expecto.md §3.2, §6.2).
func Rates(counts []float64, seconds []float64) []float64 {
	n := min(len(counts), len(seconds))
	out := make([]float64, n)
	for i := range n {
		c, s := counts[i], seconds[i]
		if !isFinite(c) || !isFinite(s) || s <= 0 {
			out[i] = math.NaN()
			continue
		}
		out[i] = c / s
		if !isFinite(out[i]) { // overflow
			out[i] = math.NaN()
		}
	}
	return out
}
