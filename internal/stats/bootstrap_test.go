package stats

import (
	"math"
	"strings"
	"testing"
)

func TestRatioCI(t *testing.T) {
	sepA := []float64{100, 101, 102, 103}
	sepB := []float64{120, 121, 122, 123}
	tests := []struct {
		name       string
		a, b       []float64
		resamples  int
		conf       float64
		ok         bool
		point      float64
		loMin      float64 // Lo ≥ loMin
		hiMax      float64 // Hi ≤ hiMax
		unreliable bool
		wantR      int
		wantConf   float64
	}{
		{
			// Every resample's median of b* lies in [120, 123] and of a* in
			// [100, 103], so every ratio lies in [120/103, 123/100].
			name: "separated", a: sepA, b: sepB, resamples: 2000, conf: 0.95, ok: true,
			point: 121.5 / 101.5, loMin: 120.0 / 103, hiMax: 1.23, wantR: 2000, wantConf: 0.95,
		},
		{
			name: "resamples raised, conf defaulted", a: sepA, b: sepB, resamples: 10, conf: 1.5, ok: true,
			point: 121.5 / 101.5, loMin: 120.0 / 103, hiMax: 1.23, wantR: MinResamples, wantConf: DefaultConf,
		},
		{
			name: "3 runs a side: unreliable", a: sepA[:3], b: sepB[:3], resamples: 2000, conf: 0.9, ok: true,
			point: 121.0 / 101, loMin: 120.0 / 102, hiMax: 122.0 / 100, unreliable: true, wantR: 2000, wantConf: 0.9,
		},
		{
			name: "0/0 is 1", a: []float64{0, 0, 0, 0}, b: []float64{0, 0, 0, 0}, resamples: 2000, conf: 0.95, ok: true,
			point: 1, loMin: 1, hiMax: 1, wantR: 2000, wantConf: 0.95,
		},
		{
			name: "x/0 undefined", a: []float64{0, 0, 0, 1}, b: []float64{1, 2, 3, 4}, resamples: 2000, conf: 0.95, ok: false,
			wantR: 2000, wantConf: 0.95,
		},
		{
			name: "empty", a: nil, b: sepB, resamples: 2000, conf: 0.95, ok: false, wantR: 2000, wantConf: 0.95,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			iv := RatioCI(tc.a, tc.b, nil, tc.resamples, tc.conf, 42)
			if iv.OK != tc.ok || iv.Resamples != tc.wantR || iv.Conf != tc.wantConf || iv.Unreliable != tc.unreliable {
				t.Fatalf("got %+v, want ok=%v resamples=%d conf=%v unreliable=%v", iv, tc.ok, tc.wantR, tc.wantConf, tc.unreliable)
			}
			if !tc.ok {
				if iv.Reason == "" || iv.Point != 0 || iv.Lo != 0 || iv.Hi != 0 {
					t.Errorf("undefined interval should carry a reason and zeros: %+v", iv)
				}
				return
			}
			if !near(iv.Point, tc.point, 1e-12) || iv.Lo < tc.loMin-1e-12 || iv.Hi > tc.hiMax+1e-12 || iv.Lo > iv.Hi {
				t.Errorf("got point %v [%v, %v], want point %v within [%v, %v]", iv.Point, iv.Lo, iv.Hi, tc.point, tc.loMin, tc.hiMax)
			}
			if tc.unreliable && !strings.Contains(iv.Reason, "unreliable") {
				t.Errorf("reason %q should say unreliable", iv.Reason)
			}
		})
	}
}

func TestRatioCIDeterministicAndSeeded(t *testing.T) {
	a := []float64{812, 790, 845, 801, 830}
	b := []float64{905, 870, 940, 812, 899}
	x := RatioCI(a, b, Median, 5000, 0.95, 1)
	y := RatioCI(a, b, Median, 5000, 0.95, 1)
	if x != y {
		t.Errorf("same seed, different intervals: %+v vs %+v", x, y)
	}
	z := RatioCI(a, b, Median, 5000, 0.95, 2)
	if x.Point != z.Point {
		t.Errorf("the point estimate must not depend on the seed: %v vs %v", x.Point, z.Point)
	}
	// Different seeds give nearly the same bounds with 5000 resamples.
	if !near(x.Lo, z.Lo, 0.03) || !near(x.Hi, z.Hi, 0.03) {
		t.Errorf("seeds 1 and 2 disagree too much: [%v, %v] vs [%v, %v]", x.Lo, x.Hi, z.Lo, z.Hi)
	}
	// A wider confidence gives a wider interval.
	w := RatioCI(a, b, Median, 5000, 0.99, 1)
	if w.Lo > x.Lo || w.Hi < x.Hi {
		t.Errorf("99 %% [%v, %v] should contain 95 %% [%v, %v]", w.Lo, w.Hi, x.Lo, x.Hi)
	}
}

func TestDiffCI(t *testing.T) {
	a := []float64{10, 11, 12, 13}
	b := []float64{20, 21, 22, 23}
	iv := DiffCI(a, b, Mean, 2000, 0.95, 3)
	// Means of resamples lie in [10, 13] and [20, 23]: differences in [7, 13].
	if !iv.OK || iv.Point != 10 || iv.Lo < 7 || iv.Hi > 13 || !iv.Excludes(0) {
		t.Errorf("DiffCI = %+v, want point 10 within [7, 13], excluding 0", iv)
	}
	if iv.Excludes(10) {
		t.Errorf("interval [%v, %v] should contain 10", iv.Lo, iv.Hi)
	}
	// stat may reorder its scratch slice; the caller's data stay intact.
	in := []float64{3, 1, 2, 5}
	DiffCI(in, in, func(v []float64) float64 { v[0], v[1] = v[1], v[0]; return v[0] }, 2000, 0.95, 3)
	if in[0] != 3 || in[1] != 1 {
		t.Errorf("input modified: %v", in)
	}
	if (Interval{OK: false, Lo: 2, Hi: 3}).Excludes(0) {
		t.Error("an undefined interval excludes nothing")
	}
	if got := DiffCI([]float64{math.NaN()}, []float64{1}, nil, 0, 0, 0); got.OK {
		t.Errorf("all-NaN side: %+v, want not OK", got)
	}
}
