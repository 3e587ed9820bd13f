package stats

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"
)

// floatsFromBytes splits data into float64s (8 bytes each, little-endian
// bits, so NaN, ±Inf, subnormals and ±MaxFloat64 all occur), at most 64 of
// them; the first byte says how many go to the first sample.
func floatsFromBytes(data []byte) (a, b []float64) {
	if len(data) == 0 {
		return nil, nil
	}
	split := int(data[0])
	var all []float64
	for i := 1; i+8 <= len(data) && len(all) < 64; i += 8 {
		all = append(all, math.Float64frombits(binary.LittleEndian.Uint64(data[i:i+8])))
	}
	split = min(split%(len(all)+1), len(all))
	return all[:split], all[split:]
}

func bytesFromFloats(split byte, xs ...float64) []byte {
	out := []byte{split}
	for _, x := range xs {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
	}
	return out
}

// FuzzVerdict feeds arbitrary samples to every function of the package: none
// may panic, p-values stay in [0, 1], and every result marshals to JSON
// (which fails on NaN or ±Inf) as it would in experiment.json.
func FuzzVerdict(f *testing.F) {
	nan, inf := math.NaN(), math.Inf(1)
	f.Add([]byte{})
	f.Add(bytesFromFloats(4, 1, 2, 3, 4, 5, 6, 7, 8))
	f.Add(bytesFromFloats(2, 3, 3, 3, 3))
	f.Add(bytesFromFloats(3, nan, inf, -inf, 0, 0, 1))
	f.Add(bytesFromFloats(2, math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64))
	f.Add(bytesFromFloats(1, 0, 5e-324, -5e-324))
	f.Add(bytesFromFloats(0, 1, 2))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b := floatsFromBytes(data)
		check := func(name string, v any) {
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("%s: result does not marshal: %v (%+v) for a=%v b=%v", name, err, v, a, b)
			}
		}
		inUnit := func(name string, p float64) {
			if !(p >= 0 && p <= 1) {
				t.Fatalf("%s: p = %v outside [0, 1] for a=%v b=%v", name, p, a, b)
			}
		}
		v := Verdict(VerdictConfig{Metric: "p99"}, a, b)
		check("Verdict", v)
		inUnit("Verdict", v.P)
		if v.Text == "" || (v.Direction != DirBetter && v.Direction != DirWorse && v.Direction != DirNone) {
			t.Fatalf("Verdict: direction %q text %q", v.Direction, v.Text)
		}
		mw := MannWhitney(a, b)
		check("MannWhitney", mw)
		inUnit("MannWhitney", mw.P)
		check("NonOverlap", NonOverlap(a, b))
		check("Summarize", Summarize(a))
		check("Trend", Trend(a, 1))
		check("LinearFit", LinearFit(a, b))
		for _, c := range []CorrResult{Pearson(a, b), Spearman(a, b)} {
			check("correlation", c)
			inUnit("correlation", c.P)
		}
		st := SteadyState(append(a, b...))
		if st.Truncate < 0 || st.Truncate > len(a)+len(b) {
			t.Fatalf("SteadyState: truncate %d of %d", st.Truncate, len(a)+len(b))
		}
		items := make([]Item, len(a))
		for i, x := range a {
			items[i] = Item{Name: "w", Value: x}
		}
		check("Pareto", Pareto(items, 0.8))
		_ = Rates(a, b)
		_ = NonOverlappingMeans(b, 3)
		_ = Quantile(a, 0.99)
	})
}
