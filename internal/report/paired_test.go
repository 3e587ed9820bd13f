package report

import (
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/compare"
)

// TestCompareVerdictsPaired: the paired-by-round line and the drift line
// come right after the primary's verdict; without rounds there is none.
func TestCompareVerdictsPaired(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	// Open runs: p99 is the primary. B 3 % slower each round; the machine
	// gets 4 % slower every round.
	var tpsA, tpsB, p99A, p99B []float64
	var rounds [][2]int
	for r := range 7 {
		f := 1 + 0.04*float64(r)
		tpsA, tpsB = append(tpsA, 1000), append(tpsB, 1000)
		p99A = append(p99A, 20*f)
		p99B = append(p99B, 20*f*1.03*(1+0.002*float64(r)))
		rounds = append(rounds, [2]int{r, r})
	}
	a := cmpSide("A", tpsA, p99A, 10, t0)
	b := cmpSide("B", tpsB, p99B, 10, t0.Add(time.Minute))
	rep := compare.Build(compare.Options{NameA: "A", NameB: "B", Rounds: rounds}, a, b)
	lines := CompareVerdicts(rep).Lines
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "primary: ") ||
		!strings.HasPrefix(lines[1], "paired by round (7 rounds): p99 ratio B/A 1.04, ") ||
		!strings.Contains(lines[1], "Wilcoxon signed-rank exact p = 0.016") ||
		!strings.HasPrefix(lines[2], "drift across rounds: A's p99 drifted +") {
		t.Errorf("verdict lines:\n%s", strings.Join(lines, "\n"))
	}
	rep = compare.Build(compare.Options{NameA: "A", NameB: "B"}, a, b)
	for _, l := range CompareVerdicts(rep).Lines {
		if strings.Contains(l, "paired") || strings.Contains(l, "drift across rounds") {
			t.Errorf("a line about rounds without rounds: %s", l)
		}
	}
}
