package checks

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/results"
)

func TestRepeats(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     []VariantRuns
		status string
		value  int
		words  string
	}{
		{"lone run", []VariantRuns{{Runs: 1}}, Warn, 1, "1 run: "},
		{"none", nil, Warn, 0, "no runs"},
		// Compared variants need 4: 3 vs 3 cannot go below p = 0.10.
		{"3 and 3", []VariantRuns{{"A", 3}, {"B", 3}}, Warn, 3, "with 3 vs 3 runs the smallest possible p is 0.1"},
		{"4 and 4", []VariantRuns{{"A", 4}, {"B", 4}}, Pass, 4, "at least 4 runs of each variant (A 4, B 4)"},
		{"one variant 3", []VariantRuns{{"A", 3}}, Pass, 3, "at least 3 runs"},
		{"one variant 4", []VariantRuns{{"A", 4}}, Pass, 4, "at least 4 runs"},
		{"B short", []VariantRuns{{"A", 4}, {"B", 2}}, Warn, 2, "B has 2 runs (A 4, B 2)"},
		{"zero runs", []VariantRuns{{"A", 0}, {"B", 3}}, Warn, 0, "A has 0 runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Repeats(tc.in)
			if c.Name != ItemRepeats || c.Status != tc.status || c.Value != tc.value || !strings.Contains(c.Message, tc.words) {
				t.Errorf("got %+v; want %s, %d, %q", c, tc.status, tc.value, tc.words)
			}
		})
	}
}

func TestInterleaving(t *testing.T) {
	for _, tc := range []struct {
		order  string
		status string
		words  string
	}{
		{"A B A B A B", Pass, "6 runs in rounds of the 2 variants"},
		{"A B B A A B", Pass, ""}, // counterbalanced rounds
		{"A B C C A B B C A", Pass, ""},
		{"A B A", Pass, ""}, // last round cut short
		{"A A B B", Warn, "round 1 repeats a variant"},
		{"A B A A B B", Warn, "round 2"},
		{"A A A", Pass, "one variant"},
		{"", Pass, "one variant"},
	} {
		t.Run(tc.order, func(t *testing.T) {
			c := Interleaving(strings.Fields(tc.order))
			if c.Name != ItemInterleaved || c.Status != tc.status || !strings.Contains(c.Message, tc.words) || c.Value != strings.Join(strings.Fields(tc.order), " ") {
				t.Errorf("got %+v; want %s, %q", c, tc.status, tc.words)
			}
		})
	}
}

func TestReplaceWorstText(t *testing.T) {
	base := []results.Check{
		{Name: ItemWarmup, Status: Pass, Message: "ok"},
		{Name: ItemRepeats, Status: Warn, Value: 1, Message: "1 run"},
	}
	out := Replace(base, Repeats([]VariantRuns{{"A", 4}, {"B", 4}}), Interleaving([]string{"A", "B", "A", "B"}))
	if len(out) != 3 || out[1].Name != ItemRepeats || out[1].Status != Pass || out[2].Name != ItemInterleaved {
		t.Errorf("Replace: %+v", out)
	}
	if base[1].Status != Warn {
		t.Error("Replace modified its input")
	}
	for _, tc := range []struct {
		statuses []string
		want     string
	}{
		{nil, Pass},
		{[]string{Pass, Pass}, Pass},
		{[]string{Pass, Warn}, Warn},
		{[]string{Fail, Warn, Pass}, Fail},
		{[]string{Pass, "bogus"}, Warn},
	} {
		var list []results.Check
		for _, s := range tc.statuses {
			list = append(list, results.Check{Status: s})
		}
		if got := Worst(list); got != tc.want {
			t.Errorf("Worst(%v) = %s, want %s", tc.statuses, got, tc.want)
		}
	}
	if len(out) != 3 || out[0].Name != ItemWarmup || out[0].Message != "ok" ||
		out[1].Name != ItemRepeats || out[1].Message != "at least 4 runs of each variant (A 4, B 4)" {
		t.Errorf("checks: %+v", out)
	}
}

func TestCombine(t *testing.T) {
	runs := []Labeled{
		{"A#1", []results.Check{{Name: ItemWarmup, Status: Pass, Message: "fine"}, {Name: ItemAutovacuum, Status: Pass, Message: "none"}}},
		{"B#1", []results.Check{{Name: ItemWarmup, Status: Warn, Value: 0.2, Message: "drifts"}, {Name: ItemAutovacuum, Status: Pass, Message: "none"}}},
		{"A#2", []results.Check{{Name: ItemWarmup, Status: Warn, Value: 0.3, Message: "drifts more"}, {Name: ItemAutovacuum, Status: Fail, Message: "bad"}}},
		{"B#2", []results.Check{{Name: ItemWarmup, Status: Pass, Message: "fine"}}},
	}
	out := Combine(runs)
	if len(out) != 2 {
		t.Fatalf("%d items: %+v", len(out), out)
	}
	w, a := out[0], out[1]
	if w.Name != ItemWarmup || w.Status != Warn || w.Value != 0.2 || w.Message != "warn in 2 of 4 runs; B#1: drifts" {
		t.Errorf("warmup: %+v", w)
	}
	if a.Name != ItemAutovacuum || a.Status != Fail || a.Message != "fail in 1 of 3 runs; A#2: bad" {
		t.Errorf("autovacuum: %+v", a)
	}
	if all := Combine(runs[:1]); all[0].Message != "pass in 1 of 1 runs; A#1: fine" {
		t.Errorf("all pass: %+v", all[0])
	}
	if Combine(nil) == nil || len(Combine(nil)) != 0 {
		t.Error("Combine(nil) is not an empty list")
	}
}

func TestStallVisible(t *testing.T) {
	cases := []struct {
		name   string
		runs   []StallRun
		status string
		value  any
		says   []string
	}{
		{"open run shows it", []StallRun{{Label: "run 2", Open: true, P99Ms: 4900, LockMs: 5000}, {Label: "run 1", P99Ms: 8, LockMs: 5000}},
			Pass, 0.98, []string{"p99 of the open-model run", "closed model for contrast: run 1 p99 8 ms"}},
		{"open run hides it", []StallRun{{Label: "run 3", Open: true, P99Ms: 40, LockMs: 5000}},
			Warn, 0.008, []string{"not visible in p99 of run 3", "5 s lock", "more than 1 %"}},
		{"closed only", []StallRun{{Label: "run 1", P99Ms: 8, LockMs: 5000}}, Warn, nil, []string{"only closed-model runs", "coordinated omission"}},
		{"no lock held", []StallRun{{Label: "run 1", Open: true, P99Ms: 8}}, Warn, nil, []string{"no lock was held"}},
	}
	for _, c := range cases {
		got := StallVisible(c.runs)
		if got.Name != ItemStallVisible || got.Status != c.status {
			t.Errorf("%s: %+v, want status %s", c.name, got, c.status)
		}
		if c.value != nil {
			if v, ok := got.Value.(float64); !ok || v < c.value.(float64)-1e-9 || v > c.value.(float64)+1e-9 {
				t.Errorf("%s: value %v, want %v", c.name, got.Value, c.value)
			}
		}
		for _, s := range c.says {
			if !strings.Contains(got.Message, s) {
				t.Errorf("%s: message %q lacks %q", c.name, got.Message, s)
			}
		}
	}
}
