package metrics

import "strings"

// NamedQuantile is one of the response-time quantiles pgtrial reports and
// accepts in SLOs: Name as files and flags write it, Q in (0, 1).
type NamedQuantile struct {
	Name string // "p99.9"
	Q    float64
}

// Quantiles are the reported quantiles, lowest first: p50, p90, p95, p99
// and p99.9 (with the maximum, results.Percentiles; the experiment's run
// records; SLO keys and --slo).
func Quantiles() []NamedQuantile {
	return []NamedQuantile{{"p50", 0.5}, {"p90", 0.9}, {"p95", 0.95}, {"p99", 0.99}, {"p99.9", 0.999}}
}

// QuantileNames are the names of Quantiles, in order.
func QuantileNames() []string {
	qs := Quantiles()
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Name
	}
	return out
}

// QuantileNamed is the quantile a name stands for (case-insensitive):
// 0.99 for "p99"; false for a name not in Quantiles.
func QuantileNamed(name string) (float64, bool) {
	for _, q := range Quantiles() {
		if strings.EqualFold(q.Name, name) {
			return q.Q, true
		}
	}
	return 0, false
}

// QuantileName is the name of q: "p99" for 0.99; false for a quantile not
// in Quantiles.
func QuantileName(q float64) (string, bool) {
	for _, nq := range Quantiles() {
		if nq.Q == q {
			return nq.Name, true
		}
	}
	return "", false
}
