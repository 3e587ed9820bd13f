package checks

import (
	"math"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/stats"
)

// fitLine is stats.LinearFit (tested there) with the checklist's rule: a
// trend needs 3 usable points for a p-value.
func TestFitLineRule(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name  string
		x, y  []float64
		ok    bool
		n     int
		slope float64
	}{
		{"exact line", []float64{1, 2, 3}, []float64{5, 7, 9}, true, 3, 2},
		{"2 points: no p-value", []float64{1, 2}, []float64{5, 7}, false, 2, 2},
		{"non-finite pairs left out", []float64{1, 2, nan, 4, 5}, []float64{5, 7, 1, math.Inf(1), 13}, true, 3, 2},
		{"no spread in x", []float64{1, 1, 1}, []float64{1, 2, 3}, false, 3, 0},
		{"overflow", []float64{1, 2, 3}, []float64{-math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}, false, 3, 0},
		{"empty", nil, nil, false, 0, 0},
	} {
		f, ok := fitLine(tc.x, tc.y)
		if ok != tc.ok || f.N != tc.n || math.Abs(f.Slope-tc.slope) > 1e-12 {
			t.Errorf("%s: ok %v, %+v; want ok %v, n %d, slope %g", tc.name, ok, f, tc.ok, tc.n, tc.slope)
		}
		if tc.ok && f.P > 1e-12 { // the usable points lie on a line
			t.Errorf("%s: p = %g, want 0", tc.name, f.P)
		}
	}
}

func TestPRising(t *testing.T) {
	for _, tc := range []struct {
		slope, p, want float64
	}{
		{2, 0.04, 0.02},  // rising: half the two-sided p
		{-2, 0.04, 0.98}, // falling: no evidence of a rise
		{0, 1, 0.5},
		{3, 0, 0}, // an exact rising line
	} {
		if got := pRising(stats.TrendResult{Slope: tc.slope, P: tc.p}); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("slope %g, p %g: one-sided p %g, want %g", tc.slope, tc.p, got, tc.want)
		}
	}
}

func TestUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"128MB", 128 << 20, true},
		{"8GB", 8 << 30, true},
		{"16384", 16384 * 8192, true},
		{"16kB", 16 << 10, true},
		{" 1 TB ", 1 << 40, true},
		{"512B", 512, true},
		{"1.5GB", 3 << 29, true},
		{"lots", 0, false},
		{"12XB", 0, false},
		{"-1MB", 0, false},
		{"", 0, false},
		{"1e300TB", 0, false},
	} {
		got, err := parseBytes(tc.in, blockSize)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"5min", 5 * time.Minute, true},
		{"30s", 30 * time.Second, true},
		{"300", 300 * time.Second, true},
		{"1h", time.Hour, true},
		{"1d", 24 * time.Hour, true},
		{"250ms", 250 * time.Millisecond, true},
		{"5 min", 5 * time.Minute, true},
		{"5m", 0, false}, // PostgreSQL's minute is "min"
		{"soon", 0, false},
		{"-5min", 0, false},
		{"1e30d", 0, false},
	} {
		got, err := parseDuration(tc.in, time.Second)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
