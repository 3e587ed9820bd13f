package stats

import (
	"math"
	"slices"
	"testing"
)

func TestPareto(t *testing.T) {
	waits := []Item{
		{Name: "LWLock", Value: 15}, {Name: "IO", Value: 50}, {Name: "IPC", Value: 5}, {Name: "Lock", Value: 30},
	}
	type row struct {
		name       string
		share, cum float64
	}
	tests := []struct {
		name  string
		items []Item
		share float64
		want  []row
	}{
		{"80 % reached exactly", waits, 0.8, []row{{"IO", 0.5, 0.5}, {"Lock", 0.3, 0.8}}},
		{"NaN means 80 %", waits, math.NaN(), []row{{"IO", 0.5, 0.5}, {"Lock", 0.3, 0.8}}},
		{"81 % needs a third", waits, 0.81, []row{{"IO", 0.5, 0.5}, {"Lock", 0.3, 0.8}, {"LWLock", 0.15, 0.95}}},
		{"all: breakdown by type", waits, 1, []row{{"IO", 0.5, 0.5}, {"Lock", 0.3, 0.8}, {"LWLock", 0.15, 0.95}, {"IPC", 0.05, 1}}},
		{"zero share gives the top item", waits, 0, []row{{"IO", 0.5, 0.5}}},
		{"ties by name; junk dropped", []Item{
			{Name: "b", Value: 2}, {Name: "a", Value: 2}, {Name: "neg", Value: -5}, {Name: "nan", Value: math.NaN()}, {Name: "zero"},
		}, 0.8, []row{{"a", 0.5, 0.5}, {"b", 0.5, 1}}},
		{"nothing counts", []Item{{Name: "z"}}, 0.8, nil},
		{"empty", nil, 0.8, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.items)
			got := Pareto(in, tc.share)
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Name != w.name || !near(g.Share, w.share, 1e-12) || !near(g.Cumulative, w.cum, 1e-12) {
					t.Errorf("item %d = %+v, want %+v", i, g, w)
				}
			}
			same := func(a, b Item) bool {
				return a.Name == b.Name && (a.Value == b.Value || (math.IsNaN(a.Value) && math.IsNaN(b.Value))) &&
					a.Share == b.Share && a.Cumulative == b.Cumulative
			}
			if !slices.EqualFunc(in, tc.items, same) {
				t.Errorf("input modified: %+v", in)
			}
		})
	}
}
