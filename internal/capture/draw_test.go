package capture

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/script"
)

// simulate parses d's \set lines with pgbench's grammar and runs them n
// times on a seeded client: the values of :pN, counted.
func simulate(t *testing.T, d drawing, v string, n int) map[string]int {
	t.Helper()
	src := strings.Join(d.sets, "\n") + "\nSELECT " + d.expr + ";\n"
	s, err := script.ParsePgbench("draw", src)
	if err != nil {
		t.Fatalf("the drawing does not parse as pgbench's:\n%s\n%v", src, err)
	}
	c := script.NewProgram(s).NewClient(0, prng.NewState(42), nil)
	counts := map[string]int{}
	for range n {
		c.Begin(0)
		for i := range s.Commands {
			if err := c.Exec(i); err != nil {
				t.Fatalf("%s: %v", src, err)
			}
		}
		val, ok := c.Get(v)
		if !ok {
			t.Fatalf("%s is not set by\n%s", v, src)
		}
		counts[val]++
	}
	return counts
}

// TestDrawIntegerSimulation: an integer column's most common values come
// with their frequencies among the non-NULL rows, the rest uniformly from
// the histogram's buckets, every value between the first and last bound
// (seeded: 200,000 draws, tolerance 0.5 points, about 5 standard errors).
func TestDrawIntegerSimulation(t *testing.T) {
	st := &colStats{table: "t", column: "k", typ: "integer", integer: true, nullFrac: 0.2,
		mcv: []string{"7", "3"}, freqs: []float64{0.4, 0.2}, hist: []string{"100", "110", "200"}}
	d, err := draw(1, st)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200_000
	counts := simulate(t, d, "p1", n)
	share := func(k string) float64 { return float64(counts[k]) / n }
	// Among the non-NULL rows (0.8): 7 is 0.5, 3 is 0.25, the histogram 0.25.
	if math.Abs(share("7")-0.5) > 0.005 || math.Abs(share("3")-0.25) > 0.005 {
		t.Errorf("MCV shares %.4f, %.4f; want 0.5, 0.25", share("7"), share("3"))
	}
	var low, high int // buckets (100, 110] and (110, 200]
	for k, c := range counts {
		if k == "7" || k == "3" {
			continue
		}
		x, err := strconv.Atoi(k)
		if err != nil || x < 100 || x > 200 {
			t.Fatalf("value %q outside the histogram", k)
		}
		if x <= 110 {
			low += c
		} else {
			high += c
		}
	}
	// Each bucket 0.125 (1/2 of 0.25), the shared bound 110 slightly favouring low.
	if math.Abs(float64(low)/n-0.125) > 0.005 || math.Abs(float64(high)/n-0.125) > 0.005 {
		t.Errorf("bucket shares %.4f, %.4f; want 0.125 each", float64(low)/n, float64(high)/n)
	}
}

// TestDrawTextSimulation: a text column's parameter is an index into the
// array literal of MCVs then bounds, chosen with the same frequencies.
func TestDrawTextSimulation(t *testing.T) {
	st := &colStats{table: "t", column: "s", typ: "text", mcv: []string{"it's", "b"}, freqs: []float64{0.6, 0.3},
		hist: []string{"c", "d"}}
	d, err := draw(2, st)
	if err != nil {
		t.Fatal(err)
	}
	if want := `('{"it''s","b","c","d"}'::text[])[:p2]`; d.expr != want {
		t.Errorf("expr %s, want %s", d.expr, want)
	}
	const n = 100_000
	counts := simulate(t, d, "p2", n)
	for idx, want := range map[string]float64{"1": 0.6, "2": 0.3, "3": 0.05, "4": 0.05} {
		if got := float64(counts[idx]) / n; math.Abs(got-want) > 0.007 {
			t.Errorf("index %s: share %.4f, want %.2f", idx, got, want)
		}
	}
	if len(counts) != 4 {
		t.Errorf("indexes %v, want 1..4", counts)
	}
}

// TestDrawOnlyMCVs: when the most common values are all the column holds
// (no histogram), they take the whole probability.
func TestDrawOnlyMCVs(t *testing.T) {
	st := &colStats{table: "t", column: "k", typ: "integer", integer: true, mcv: []string{"0"}, freqs: []float64{0.999}}
	d, err := draw(1, st)
	if err != nil {
		t.Fatal(err)
	}
	if counts := simulate(t, d, "p1", 1000); counts["0"] != 1000 {
		t.Errorf("values %v, want only 0", counts)
	}
	if _, err := draw(1, &colStats{table: "t", column: "k"}); err == nil || !strings.Contains(err.Error(), "ANALYZE") {
		t.Errorf("no statistics: %v", err)
	}
}
