package shape

import (
	"slices"
	"strings"
	"testing"
)

// topShare draws n keys of d and returns the share of the draws in the
// lowest 1 % of the range (key ≤ min + range/100 − 1) and the share of key min.
func topShare(t *testing.T, d Dist, seed uint64, n int) (low, first float64) {
	t.Helper()
	g, err := NewGenerator(d, seed)
	if err != nil {
		t.Fatal(err)
	}
	d = g.Dist()
	cut := d.Min + (d.Max-d.Min+1)/100 - 1
	var l, f int
	for range n {
		v := g.Next()
		if v < d.Min || v > d.Max {
			t.Fatalf("%s: draw %d outside the range", d, v)
		}
		if v <= cut {
			l++
		}
		if v == d.Min {
			f++
		}
	}
	return float64(l) / float64(n), float64(f) / float64(n)
}

// TestDistShares: the seed's figures for 20,000 project ids (40,000 draws):
// zipf s=1.1 sends about 68 % of the draws to the first 1 %, exponential p=5
// about 5 %, log-uniform gives key 1 about 7 % and the first 1 % over half;
// uniform about 1 %.
func TestDistShares(t *testing.T) {
	for _, c := range []struct {
		spec           string
		lowLo, lowHi   float64
		firstLo, first float64
	}{
		{"zipf:s=1.1", 0.55, 0.80, 0, 1},
		{"exponential:p=5", 0.03, 0.07, 0, 1},
		{"loguniform", 0.50, 0.60, 0.06, 0.08},
		{"uniform", 0.005, 0.015, 0, 0.001},
	} {
		d, err := ParseDist(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		d.Min, d.Max = 1, 20000
		low, first := topShare(t, d, 42, 40000)
		if low < c.lowLo || low > c.lowHi || first < c.firstLo || first > c.first {
			t.Errorf("%s: %.3f in the first 1 %% (want %.2f–%.2f), %.3f on key 1 (want %.3f–%.3f)",
				c.spec, low, c.lowLo, c.lowHi, first, c.firstLo, c.first)
		}
	}
}

// TestDistPermuteAndSeed: the same seed gives the same keys; --permute
// moves the hot key off the range's bottom but keeps the draws in range and
// as concentrated.
func TestDistPermuteAndSeed(t *testing.T) {
	d := Dist{Kind: Zipf, Param: 1.1, Min: 1, Max: 1000}
	draw := func(d Dist, seed uint64) []int64 {
		g, err := NewGenerator(d, seed)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]int64, 2000)
		for i := range out {
			out[i] = g.Next()
		}
		return out
	}
	a, b, c := draw(d, 7), draw(d, 7), draw(d, 8)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Errorf("seed 7 twice equal %v, seed 7 vs 8 equal %v", slices.Equal(a, b), slices.Equal(a, c))
	}
	d.Permute = true
	p := draw(d, 7)
	counts := map[int64]int{}
	hot, hotN := int64(0), 0
	for _, v := range p {
		if v < 1 || v > 1000 {
			t.Fatalf("permuted draw %d outside [1, 1000]", v)
		}
		counts[v]++
		if counts[v] > hotN {
			hot, hotN = v, counts[v]
		}
	}
	if hot == 1 || hotN < 2000/20 {
		t.Errorf("permuted zipf: hottest key %d with %d of 2000 draws; want a key other than 1 with ≥ 5 %%", hot, hotN)
	}
}

func TestParseDist(t *testing.T) {
	for spec, want := range map[string]string{
		"zipf:s=1.1":         "zipf:s=1.1 over [1, 10]",
		"zipf:2":             "zipf:s=2 over [1, 10]",
		"loguniform:n=20000": "loguniform:n=20000 over [1, 20000]", // n sets the range
		"exponential:p=5":    "exponential:p=5 over [1, 10]",
		"gaussian:p=4":       "gaussian:p=4 over [1, 10]",
		"uniform":            "uniform over [1, 10]",
	} {
		d, err := ParseDist(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		d.Min, d.Max = 1, 10
		if got := d.String(); got != want {
			t.Errorf("%s: %q, want %q", spec, got, want)
		}
	}
	for spec, want := range map[string]string{
		"pareto":        "unknown distribution",
		"zipf":          "needs its parameter",
		"zipf:s=0.5":    "[1.001, 1000]",
		"zipf:p=2":      "parameter is s",
		"gaussian:p=1":  ">= 2",
		"uniform:3":     "no parameter",
		"loguniform:n=": "integer >= 1",
	} {
		if _, err := ParseDist(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to say %q", spec, err, want)
		}
	}
	if _, err := NewGenerator(Dist{Kind: Uniform, Min: 5, Max: 4}, 1); err == nil {
		t.Error("an empty range was accepted")
	}
}

func TestSizes(t *testing.T) {
	z, err := ParseSizes(PadJSON, "1KB-8KB")
	if err != nil || z.Min != 1024 || z.Max != 8192 {
		t.Fatalf("1KB-8KB: %+v %v", z, err)
	}
	m := &valueMaker{z: z, st: newSizeState(3)}
	for i := range 200 {
		v := m.next(int64(i))
		if len(v) < 1024 || len(v) > 8192 || !strings.HasPrefix(v, `{"seq": `) || !strings.HasSuffix(v, `"}`) {
			t.Fatalf("value %d: %d bytes, %.20q…", i, len(v), v)
		}
	}
	for _, bad := range []string{"8KB-1KB", "x", "2MB", "1"} {
		if _, err := ParseSizes(PadText, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
