package trial

import (
	"math"
	"strings"
	"testing"
)

// TestScaleScenarios: a ramp keeps each scenario's share of the level.
func TestScaleScenarios(t *testing.T) {
	// pg_expecto's split (seed 004): select 0.5, select+update 0.35,
	// insert 0.15 of the sessions, given as 10, 7 and 3 clients.
	base := []Scenario{
		{Name: "select", Clients: 10, Threads: 2},
		{Name: "update", Clients: 7, Threads: 2},
		{Name: "insert", Clients: 3, Threads: 1, Rate: 50},
	}
	for _, tc := range []struct {
		level float64
		want  []int
	}{
		{20, []int{10, 7, 3}},
		{40, []int{20, 14, 6}},
		{10, []int{5, 4, 1}}, // 5, 3.5, 1.5: the remainders .5 go to the earlier one first
		{7, []int{4, 2, 1}},  // 3.5, 2.45, 1.05
		{2, []int{1, 1, 1}},  // at least 1 each
	} {
		got, err := ScaleScenarios(base, false, tc.level)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range got {
			if s.Clients != tc.want[i] || s.Threads > s.Clients || s.Threads < 1 || s.Rate != base[i].Rate {
				t.Errorf("level %v: %+v, want clients %v", tc.level, got, tc.want)
				break
			}
		}
	}
	if base[0].Clients != 10 {
		t.Errorf("base changed: %+v", base)
	}
	// A rate ramp scales the open scenarios' rates in proportion.
	open := []Scenario{{Name: "r", Clients: 1, Rate: 300}, {Name: "w", Clients: 2}, {Name: "s", Clients: 1, Rate: 100}}
	got, err := ScaleScenarios(open, true, 800)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got[0].Rate-600) > 1e-9 || got[1].Rate != 0 || got[1].Clients != 2 || math.Abs(got[2].Rate-200) > 1e-9 {
		t.Errorf("rate ramp to 800: %+v", got)
	}
	if _, err := ScaleScenarios([]Scenario{{Name: "w", Clients: 2}}, true, 100); err == nil || !strings.Contains(err.Error(), "needs an open scenario") {
		t.Errorf("rate ramp of closed scenarios: %v", err)
	}
	if _, err := ScaleScenarios(base, false, 0); err == nil {
		t.Error("level 0 accepted")
	}
}
