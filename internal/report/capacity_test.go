package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/capacity"
)

// sampleSearch is a search that found 787.5–825 tx/s: 300 and 600 pass,
// 900 fails, 750 passes, 825 fails, 787.5 passes and (825 − 787.5)/787.5
// ≤ 5 %; then 787.5 passes twice more and 825 fails twice more. Its
// Config has only the limit: the report fills the defaults.
func sampleSearch() *capacity.Result {
	ms := time.Millisecond
	r := &capacity.Result{Config: capacity.Config{Limit: 50 * ms}, Ceiling: 1000, Stopped: capacity.StopPrecision}
	for i, a := range []float64{980, 1000, 1010} {
		r.CeilingRuns = append(r.CeilingRuns, capacity.Probe{Kind: capacity.KindClosed, Achieved: a, Dir: fmt.Sprintf("runs/%03d", i+1)})
	}
	steps := []struct {
		phase string
		rate  float64
		q     time.Duration
		pass  bool
	}{
		{capacity.PhaseFraction, 300, 4 * ms, true},
		{capacity.PhaseFraction, 600, 9 * ms, true},
		{capacity.PhaseFraction, 900, 92100 * time.Microsecond, false},
		{capacity.PhaseBisect, 750, 30 * ms, true},
		{capacity.PhaseBisect, 825, 52600 * time.Microsecond, false},
		{capacity.PhaseBisect, 787.5, 43300 * time.Microsecond, true},
		{capacity.PhaseRepeat, 787.5, 47 * ms, true},
		{capacity.PhaseRepeat, 787.5, 41 * ms, true},
		{capacity.PhaseRepeat, 825, 55 * ms, false},
		{capacity.PhaseRepeat, 825, 51 * ms, false},
	}
	repeat := map[float64]int{}
	for i, s := range steps {
		pr := capacity.Probe{Kind: capacity.KindOpen, Rate: s.rate, Achieved: s.rate, Quantile: s.q, Dir: fmt.Sprintf("runs/%03d", i+4)}
		pass, why := r.Config.Judge(pr)
		repeat[s.rate]++
		r.Steps = append(r.Steps, capacity.Step{N: i + 4, Phase: s.phase, Fraction: s.rate / r.Ceiling, Repeat: repeat[s.rate], Probe: pr, Pass: pass, Why: why})
	}
	r.Rates = []capacity.RateRuns{
		{Rate: 300, Runs: []int{4}, Passed: 1, Verdict: capacity.VerdictHolds},
		{Rate: 600, Runs: []int{5}, Passed: 1, Verdict: capacity.VerdictHolds},
		{Rate: 750, Runs: []int{7}, Passed: 1, Verdict: capacity.VerdictHolds},
		{Rate: 787.5, Runs: []int{9, 10, 11}, Passed: 3, Verdict: capacity.VerdictHolds},
		{Rate: 825, Runs: []int{8, 12, 13}, Passed: 0, Verdict: capacity.VerdictMisses},
		{Rate: 900, Runs: []int{6}, Passed: 0, Verdict: capacity.VerdictMisses},
	}
	r.Pass, r.Fail, r.Rate, r.Low, r.High, r.RunsPerRate = &r.Steps[5], &r.Steps[4], 787.5, 787.5, 825, 3
	return r
}

func TestCapacity(t *testing.T) {
	r := sampleSearch()
	out := text(t, Capacity(r))
	want := `capacity search: SLO p99 ≤ 50 ms from the intended start, lag not growing, rate achieved (started ≥ E − max(1 % of E, 3√E)), skipped + failed ≤ 1.0 %

closed-model ceiling: 1000 tx/s, median of 3 runs (not judged: closed-model latency counts from the actual start)
  run  achieved tx/s  skipped+failed  dir
  1    980            0 %             runs/001
  2    1000           0 %             runs/002
  3    1010           0 %             runs/003

open-model steps:
  run  phase     target tx/s  of ceiling  achieved tx/s  p99 ms  lag     skipped+failed  result  bracket   dir       why
  4    fraction  300          30 %        300            4.00    steady  0 %             pass              runs/004
  5    fraction  600          60 %        600            9.00    steady  0 %             pass              runs/005
  6    fraction  900          90 %        900            92.1    steady  0 %             FAIL              runs/006  p99 92.1 ms > 50 ms
  7    bisect    750          75 %        750            30.0    steady  0 %             pass              runs/007
  8    bisect    825          82 %        825            52.6    steady  0 %             FAIL    high end  runs/008  p99 52.6 ms > 50 ms
  9    bisect    788          79 %        788            43.3    steady  0 %             pass    low end   runs/009
  10   repeat    788          79 %        788            47.0    steady  0 %             pass    low end   runs/010
  11   repeat    788          79 %        788            41.0    steady  0 %             pass    low end   runs/011
  12   repeat    825          82 %        825            55.0    steady  0 %             FAIL    high end  runs/012  p99 55 ms > 50 ms
  13   repeat    825          82 %        825            51.0    steady  0 %             FAIL    high end  runs/013  p99 51 ms > 50 ms

rates tried (an end of the interval needs 3 runs that agree):
  target tx/s  of ceiling  met SLO  verdict  interval  runs
  300          30 %        1 of 1   holds              4
  600          60 %        1 of 1   holds              5
  750          75 %        1 of 1   holds              7
  788          79 %        3 of 3   holds    low end   9, 10, 11
  825          82 %        0 of 3   misses   high end  8, 12, 13
  900          90 %        0 of 1   misses             6

capacity: between 788 and 825 tx/s at p99 ≤ 50 ms (3 runs each): 788 tx/s meets it in 3 of 3 runs (p99 43.3 ms ≤ 50 ms, run runs/009); 825 tx/s in 0 of 3 (p99 52.6 ms > 50 ms, run runs/008)
search ended: precision reached; the interval is 788–825 tx/s, (825 − 788)/788 = 4.8 % wide; precision 5.0 % is where the bisection stops, not the capacity's precision
`
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	if c := capacity.Conclusion(r); !strings.Contains(out, "\n"+c+"\n") {
		t.Errorf("the report lacks the conclusion %q", c)
	}

	// In a larger report the title is the first line of the blocks.
	var e strings.Builder
	if err := WriteText(&e, &Doc{Title: "experiment x", Blocks: CapacityBlocks(r)}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.String(), "experiment x\n\ncapacity search: SLO p99 ≤ 50 ms") || !strings.HasSuffix(e.String(), want[strings.Index(want, "\n"):]) {
		t.Errorf("embedded:\n%s", e.String())
	}
}

// Without open-model steps (the search ended in its ceiling runs) there is
// no steps table; a failing lowest step has no bracket line.
func TestCapacityNoSteps(t *testing.T) {
	r := &capacity.Result{Config: capacity.Config{Limit: 10 * time.Millisecond, Quantile: 0.999}, Stopped: capacity.StopCanceled}
	want := `capacity search: SLO p99.9 ≤ 10 ms from the intended start, lag not growing, rate achieved (started ≥ E − max(1 % of E, 3√E)), skipped + failed ≤ 1.0 %

closed-model ceiling: 0 tx/s, median of 0 runs (not judged: closed-model latency counts from the actual start)

capacity so far (search ended early: interrupted): none found: no open-model run was made
search ended: interrupted
`
	if got := text(t, Capacity(r)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestCapacityMarkdown(t *testing.T) {
	checkMarkdown(t, Capacity(sampleSearch()),
		"# capacity search: SLO p99 ≤ 50 ms",
		"**open-model steps**\n\n| run | phase | target tx/s | of ceiling | achieved tx/s | p99 ms | lag | skipped+failed | result | bracket | dir | why |\n",
		"| 8 | bisect | 825 | 82 % | 825 | 52.6 | steady | 0 % | FAIL | high end | runs/008 | p99 52.6 ms &gt; 50 ms |\n",
		"| 788 | 79 % | 3 of 3 | holds | low end | 9, 10, 11 |\n",
		"| 1 | 980 | 0 % | runs/001 |\n",
	)
}
