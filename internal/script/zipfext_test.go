package script

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// TestZipfianBelowOne: random_zipfian with s < 1 is pgbench's error unless
// the program allows pgtrial's extension (`pgtrial run`), which then draws
// in [lb, ub] by Gray et al.'s method.
func TestZipfianBelowOne(t *testing.T) {
	s, err := Parse("z", "\\set k random_zipfian(1, 1000, 0.99)\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, allow := range []bool{false, true} {
		prog := NewProgram(s)
		prog.ZipfianBelowOne = allow
		c := prog.NewClient(0, prng.NewState(7), nil)
		c.Begin(0)
		err := c.Exec(0)
		if !allow {
			if err == nil || !strings.Contains(err.Error(), "zipfian parameter must be in range [1.001, 1000] (not 0.990000)") {
				t.Errorf("pgbench mode: err = %v, want pgbench's range error", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("extension: %v", err)
		}
		ones := 0
		for range 2000 {
			c.Begin(0)
			if err := c.Exec(0); err != nil {
				t.Fatal(err)
			}
			v, _ := c.Value("k")
			k := v.Int()
			if k < 1 || k > 1000 {
				t.Fatalf("k = %d outside [1, 1000]", k)
			}
			if k == 1 {
				ones++
			}
		}
		// P(lb) = 1/ζ(1000, 0.99) ≈ 0.1348; 2000 draws: sd ≈ 0.0076.
		if share := float64(ones) / 2000; share < 0.1348-4*0.0076 || share > 0.1348+4*0.0076 {
			t.Errorf("share of lb = %.4f, want 0.1348 ± 0.030", share)
		}
	}
}
