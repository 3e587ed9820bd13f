package explain

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results/resultstest"
)

// TestVariantPareto: a variant's Pareto is of the sums over its runs: two
// identical runs give the shares of one and twice its totals; a variant
// whose runs have no evidence is left out with a warning.
func TestVariantPareto(t *testing.T) {
	base := t.TempDir()
	in := &ExperimentInput{Variants: []string{"a", "bare"}}
	var one *runInput
	for i := range 2 {
		dir := filepath.Join(base, "a", string(rune('1'+i)))
		run, err := resultstest.WriteRun(dir, resultstest.Options{Seed: 3, StallAt: 20 * time.Second, StallFor: 6 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		in.Runs = append(in.Runs, ExpRun{Variant: "a", Level: 0, Repeat: i + 1, Dir: dir, Run: run})
		one = &runInput{dir: dir, run: run, cfg: Defaults()}
	}
	bare := filepath.Join(base, "bare")
	run, err := resultstest.WriteRun(bare, resultstest.Options{Seed: 3, NoCollectors: true})
	if err != nil {
		t.Fatal(err)
	}
	in.Runs = append(in.Runs, ExpRun{Variant: "bare", Repeat: 1, Dir: bare, Run: run})

	got, warns := variantParetos(in, Defaults())
	if len(got) != 1 || got[0].Variant != "a" || got[0].Runs != 2 {
		t.Fatalf("variant Paretos %+v, want one of a over 2 runs", got)
	}
	if len(warns) != 1 {
		t.Errorf("warnings %q, want one for the variant without evidence", warns)
	}
	single, _ := pareto(one)
	p := got[0].Pareto
	if math.Abs(p.WaitsTotal-2*single.WaitsTotal) > 1e-9 || math.Abs(p.TimeTotal-2*single.TimeTotal) > 1e-6 {
		t.Errorf("totals %g samples, %g ms; want twice one run's %g, %g", p.WaitsTotal, p.TimeTotal, single.WaitsTotal, single.TimeTotal)
	}
	if len(p.Waits) != len(single.Waits) || len(p.ByTime) != len(single.ByTime) {
		t.Fatalf("two equal runs changed the lists: %d/%d waits, %d/%d statements", len(p.Waits), len(single.Waits), len(p.ByTime), len(single.ByTime))
	}
	for i := range p.Waits {
		if p.Waits[i].Name != single.Waits[i].Name || math.Abs(p.Waits[i].Share-single.Waits[i].Share) > 1e-12 {
			t.Errorf("wait %d: %+v, one run %+v", i, p.Waits[i], single.Waits[i])
		}
	}
}
