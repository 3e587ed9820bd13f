// Package shape regenerates the values of a table's column so that the data
// looks like production's (seed 001, "uniform data lies"): keys drawn from a
// named distribution (zipf, log-uniform, exponential, gaussian, uniform, with
// an optional permutation so that the hot keys are not the low ones), or
// values of a size distribution (padding text or JSON, so that TOAST is
// exercised); and it reports the shape reached (rows, distinct values, share
// of the rows in the top 1 % of keys, TOAST share).
//
// Values are produced client-side by pgtrial's prng (pgbench's generators bit
// for bit) from one seed, one draw per row in the order of the table's key,
// and written in bounded transactions by UPDATE … FROM unnest(keys, values):
// the same seed on the same rows gives the same column.
package shape

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// Kinds of distribution (Dist.Kind).
const (
	Uniform     = "uniform"
	Zipf        = "zipf"
	LogUniform  = "loguniform"
	Exponential = "exponential"
	Gaussian    = "gaussian"
)

// Dist is a distribution of integer keys in [Min, Max].
type Dist struct {
	Kind string
	// Param is zipf's s (1.001–1000, pgbench's random_zipfian), exponential's
	// p (> 0: about p % of the draws in the lowest 1 % of the range,
	// random_exponential), gaussian's p (>= 2: standard deviations from the
	// middle to each bound, random_gaussian); unused otherwise.
	Param float64
	// N is log-uniform's n when given (then the range is [Min, Min+N−1]).
	N        int64
	Min, Max int64
	// Permute maps each draw v through pgbench's permute(v−Min, Max−Min+1,
	// seed) + Min, so the hot keys are scattered over the range.
	Permute bool
}

// ParseDist reads "uniform", "zipf:s=1.1", "loguniform:n=20000",
// "exponential:p=5", "gaussian:p=4" (the parameter's name may be left out:
// "zipf:1.1"). The range is set by the caller.
func ParseDist(spec string) (Dist, error) {
	kind, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	d := Dist{Kind: strings.ToLower(kind)}
	want := map[string]string{Zipf: "s", LogUniform: "n", Exponential: "p", Gaussian: "p", Uniform: ""}
	name, ok := want[d.Kind]
	if !ok {
		return d, fmt.Errorf("--dist %q: unknown distribution %q; give uniform, zipf:s=S, loguniform:n=N, exponential:p=P or gaussian:p=P", spec, kind)
	}
	if name == "" {
		if hasArg {
			return d, fmt.Errorf("--dist %q: uniform takes no parameter", spec)
		}
		return d, nil
	}
	if !hasArg {
		if d.Kind == LogUniform {
			return d, nil // n is the range's size
		}
		return d, fmt.Errorf("--dist %q: %s needs its parameter, e.g. %s:%s=…", spec, d.Kind, d.Kind, name)
	}
	k, v, hasName := strings.Cut(arg, "=")
	if !hasName {
		k, v = name, arg
	}
	if strings.TrimSpace(k) != name {
		return d, fmt.Errorf("--dist %q: %s's parameter is %s, not %q", spec, d.Kind, name, k)
	}
	if d.Kind == LogUniform {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 1 {
			return d, fmt.Errorf("--dist %q: n must be an integer >= 1", spec)
		}
		d.N = n
		return d, nil
	}
	p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
		return d, fmt.Errorf("--dist %q: %s=%q is not a number", spec, name, v)
	}
	switch {
	case d.Kind == Zipf && (p < 1.001 || p > 1000):
		return d, fmt.Errorf("--dist %q: zipf's s must be in [1.001, 1000] (pgbench's random_zipfian)", spec)
	case d.Kind == Exponential && p <= 0:
		return d, fmt.Errorf("--dist %q: exponential's p must be > 0", spec)
	case d.Kind == Gaussian && p < 2:
		return d, fmt.Errorf("--dist %q: gaussian's p must be >= 2", spec)
	}
	d.Param = p
	return d, nil
}

// String is the distribution as ParseDist reads it, with its range.
func (d Dist) String() string {
	if d.Kind == LogUniform && d.N > 0 {
		d.Max = d.Min + d.N - 1
	}
	var s string
	switch d.Kind {
	case Uniform:
		s = Uniform
	case LogUniform:
		s = fmt.Sprintf("loguniform:n=%d", d.Max-d.Min+1)
	case Zipf:
		s = "zipf:s=" + strconv.FormatFloat(d.Param, 'g', -1, 64)
	default:
		s = d.Kind + ":p=" + strconv.FormatFloat(d.Param, 'g', -1, 64)
	}
	s += fmt.Sprintf(" over [%d, %d]", d.Min, d.Max)
	if d.Permute {
		s += ", permuted"
	}
	return s
}

// check validates the range.
func (d Dist) check() error {
	if d.Min > d.Max {
		return fmt.Errorf("empty range [%d, %d]: --min must be <= --max", d.Min, d.Max)
	}
	if d.Max-d.Min+1 <= 0 {
		return fmt.Errorf("range [%d, %d] is too large", d.Min, d.Max)
	}
	return nil
}

// Generator draws a Dist's keys from one seeded stream.
type Generator struct {
	d    Dist
	st   prng.State
	seed int64 // permute's seed
}

// NewGenerator is d's generator for seed: the draws from the stream
// prng.NewState(seed), permute's seed seed XOR 0x9e3779b97f4a7c15 (permute
// makes its own stream of its seed: the two must differ).
func NewGenerator(d Dist, seed uint64) (*Generator, error) {
	if d.Kind == LogUniform && d.N > 0 {
		d.Max = d.Min + d.N - 1
	}
	if err := d.check(); err != nil {
		return nil, err
	}
	return &Generator{d: d, st: prng.NewState(seed), seed: int64(seed ^ 0x9e3779b97f4a7c15)}, nil
}

// Dist is the generator's distribution with its final range.
func (g *Generator) Dist() Dist { return g.d }

// Next draws one key. Log-uniform is seed 001's floor(exp(u·ln n)) with
// u = Double() ∈ [0, 1) and n = Max−Min+1, shifted to Min: Min − 1 +
// floor(e^(u·ln n)) ∈ [Min, Max]; key Min gets about 1/ln(n)·ln 2 of the rows.
func (g *Generator) Next() int64 {
	d := g.d
	var v int64
	switch d.Kind {
	case Zipf:
		v = g.st.Zipfian(d.Min, d.Max, d.Param)
	case Exponential:
		v = g.st.Exponential(d.Min, d.Max, d.Param)
	case Gaussian:
		v = g.st.Gaussian(d.Min, d.Max, d.Param)
	case LogUniform:
		n := float64(d.Max - d.Min + 1)
		k := int64(math.Floor(math.Exp(g.st.Double() * math.Log(n))))
		v = d.Min - 1 + min(max(k, 1), d.Max-d.Min+1)
	default:
		v = g.st.Uniform(d.Min, d.Max)
	}
	if d.Permute {
		v = d.Min + prng.Permute(v-d.Min, d.Max-d.Min+1, g.seed)
	}
	return v
}
