package stats

import (
	"math"
	"testing"
)

func TestRates(t *testing.T) {
	calls := []float64{600, 1200, 90, 5, math.NaN(), 1}
	secs := []float64{60, 60, 0, -1, 10, 1, 99} // longer: extra ignored
	want := []float64{10, 20, math.NaN(), math.NaN(), math.NaN(), 1}
	got := Rates(calls, secs)
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Errorf("rate %d = %v, want %v", i, got[i], want[i])
		}
	}
	if r := Rates([]float64{math.MaxFloat64}, []float64{1e-300}); !math.IsNaN(r[0]) {
		t.Errorf("overflow: got %v, want NaN", r[0])
	}
	if r := Rates(nil, nil); len(r) != 0 {
		t.Errorf("empty: got %v", r)
	}
}
