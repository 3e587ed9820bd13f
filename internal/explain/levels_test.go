package explain

import (
	"math"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

// TestLevelAlarms: the alarms per variant and level are the median, lowest
// and highest of the runs' shares (from each run's findings), the worst
// over the runs, and "missing" only when no run measured the alarm.
func TestLevelAlarms(t *testing.T) {
	runWith := func(variant string, level, iowait float64, blockedMissing bool) ExpRun {
		a := &results.Alarms{Items: []results.Alarm{
			{Name: "iowait", Condition: "wa > 10 % of CPU time", Unit: "share", Measured: 10, Share: iowait, Worst: iowait + 0.2},
			{Name: "blocked", Condition: "b > 1 × CPUs", Unit: "tasks", Measured: 10, Worst: 1},
			{Name: "free memory", Condition: "MemAvailable < 5 % of RAM", Unit: "share", Measured: 10, Worst: 0.3 + iowait},
		}}
		if blockedMissing {
			a.Items[1] = results.Alarm{Name: "blocked", Missing: "the host's CPU count is not known"}
		}
		return ExpRun{Variant: variant, Level: level, Run: &results.Run{Findings: &results.Findings{Alarms: a}}}
	}
	in := &ExperimentInput{Variants: []string{"a", "b"}, Runs: []ExpRun{
		runWith("a", 4, 0.1, false), runWith("b", 4, 0.0, true), runWith("a", 2, 0.5, false),
		runWith("a", 4, 0.5, false), runWith("a", 4, 0.3, false), runWith("b", 4, 0.2, true),
	}}
	out := levelAlarms(in, Defaults())
	if len(out) != 3 || out[0].Level != 2 || out[1].Variant != "a" || out[2].Variant != "b" {
		t.Fatalf("order: %+v", out)
	}
	a4 := out[1]
	if it := a4.Items[0]; a4.Runs != 3 || it.Median != 0.3 || it.Min != 0.1 || it.Max != 0.5 || math.Abs(it.Worst-0.7) > 1e-12 {
		t.Errorf("a at 4: %d runs, iowait %+v", a4.Runs, it)
	}
	if it := a4.Items[2]; math.Abs(it.Worst-0.4) > 1e-12 {
		t.Errorf("free memory's worst is the lowest: %+v", it)
	}
	if it := out[2].Items[1]; it.Runs != 0 || !strings.Contains(it.Missing, "CPU count") {
		t.Errorf("b's blocked alarm: %+v", it)
	}
	if it := out[2].Items[0]; it.Median != 0.1 || it.Missing != "" {
		t.Errorf("b's iowait: %+v", it)
	}
}
