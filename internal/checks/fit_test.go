package checks

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// Two-sided 5 % and 1 % critical values of Student's t (any statistics
// table): P(|T| ≥ t) must come back as 0.05 or 0.01.
func TestStudentTwoSided(t *testing.T) {
	for _, tc := range []struct {
		t, df, p float64
	}{
		{12.7062, 1, 0.05},
		{4.302653, 2, 0.05},
		{2.228139, 10, 0.05},
		{2.042272, 30, 0.05},
		{4.032143, 5, 0.01},
		{2.750, 30, 0.01},
		{0, 10, 1},
		{-2.228139, 10, 0.05},
		{math.Inf(1), 10, 0},
		{math.NaN(), 10, 1},
		{1, 0, 1},
	} {
		if got := studentTwoSided(tc.t, tc.df); math.Abs(got-tc.p) > 2e-4 {
			t.Errorf("t = %g, df = %g: p = %.6f, want %.4f", tc.t, tc.df, got, tc.p)
		}
	}
}

func TestIncBeta(t *testing.T) {
	for _, tc := range []struct{ a, b, x, want float64 }{
		{2, 2, 0.5, 0.5},             // symmetric
		{1, 1, 0.3, 0.3},             // uniform
		{2, 1, 0.6, 0.36},            // x²
		{1, 3, 0.2, 1 - 0.8*0.8*0.8}, // 1 − (1−x)³
		{5, 1, 0.9, 0.59049},         // x⁵, by the symmetry branch
		{3, 4, 0, 0},
		{3, 4, 1, 1},
	} {
		if got := incBeta(tc.a, tc.b, tc.x); math.Abs(got-tc.want) > 1e-3 {
			t.Errorf("I_%g(%g, %g) = %g, want %g", tc.x, tc.a, tc.b, got, tc.want)
		}
	}
}

func TestFitLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	x := make([]float64, 100)
	exact, flat, noisyUp := make([]float64, 100), make([]float64, 100), make([]float64, 100)
	for i := range x {
		x[i] = float64(i + 1)
		exact[i] = 3 + 2*x[i]
		flat[i] = 50 + rng.NormFloat64()
		noisyUp[i] = 50 + 0.1*x[i] + rng.NormFloat64()
	}
	f, ok := fitLine(x, exact)
	if !ok || math.Abs(f.slope-2) > 1e-12 || math.Abs(f.r2-1) > 1e-12 || f.pTwo != 0 || math.Abs(f.span-99) > 1e-12 {
		t.Errorf("exact line: %+v", f)
	}
	// s = b·T/ȳ = 2·99/104
	if d := f.drift(); math.Abs(d-2*99/104.0) > 1e-12 {
		t.Errorf("drift %g", d)
	}
	if f, _ := fitLine(x, flat); f.pTwo < 0.01 || math.Abs(f.drift()) > 0.02 || f.r2 > 0.1 {
		t.Errorf("flat noise: %+v", f)
	}
	// +10 across the window on 55: significant, upwards.
	if f, _ := fitLine(x, noisyUp); f.pUp() > 1e-6 || f.pTwo > 1e-6 || f.r2 < 0.3 || math.Abs(f.rise()-9.9) > 1.5 {
		t.Errorf("rising noise: %+v, pUp %g", f, f.pUp())
	}
	if _, ok := fitLine(x[:2], exact[:2]); ok {
		t.Error("2 points fitted")
	}
	if _, ok := fitLine([]float64{1, 1, 1}, []float64{1, 2, 3}); ok {
		t.Error("no spread in x fitted")
	}
}

func TestMSER5(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	step := make([]float64, 100)
	steady := make([]float64, 100)
	for i := range step {
		step[i] = 100 + 2*rng.NormFloat64()
		steady[i] = 100 + 2*rng.NormFloat64()
		if i < 30 {
			step[i] -= 40
		}
	}
	// MSER may cut a batch more when one right after the step is low.
	if d, k, ok := mser5(step); !ok || k != 20 || d*mserBatch < 30 || d*mserBatch > 40 {
		t.Errorf("step at 30: d = %d (cut %d), k = %d, ok %v", d, d*mserBatch, k, ok)
	}
	if d, _, ok := mser5(steady); !ok || d > 1 {
		t.Errorf("steady series: d = %d", d)
	}
	if _, _, ok := mser5(steady[:19]); ok {
		t.Error("19 points (3 batches) accepted")
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
	for _, tc := range []struct {
		b    int64
		want string
	}{{100, "100 B"}, {128 << 20, "128 MiB"}, {1129 << 20, "1.1 GiB"}, {16 << 30, "16 GiB"}} {
		if got := fmtBytes(tc.b); got != tc.want {
			t.Errorf("fmtBytes(%d) = %q, want %q", tc.b, got, tc.want)
		}
	}
}
