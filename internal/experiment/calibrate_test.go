package experiment

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// TestCalibrateKey: protocol.calibrate as true, false, a number of runs or
// a mapping lands in Protocol.Calibrate.
func TestCalibrateKey(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  Calibrate
	}{
		{"", Calibrate{}},
		{"calibrate: true", Calibrate{Runs: 4}},
		{"calibrate: false", Calibrate{}},
		{"calibrate: 6", Calibrate{Runs: 6}},
		{"calibrate: {runs: 5, adjust: true}", Calibrate{Runs: 5, Adjust: true}},
		{"calibrate: {adjust: true}", Calibrate{Runs: 4, Adjust: true}},
		{"calibrate: {runs: 3}", Calibrate{Runs: 3}},
	} {
		s, err := Parse("x.yaml", []byte("load: {closed: true}\nprotocol: {"+tc.value+"}\n"))
		if err != nil {
			t.Errorf("%q: %v", tc.value, err)
			continue
		}
		if s.Protocol.Calibrate != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.value, s.Protocol.Calibrate, tc.want)
		}
	}
}

// TestCalibrateKeyBad: bad values, and a calibration of a ramp or a
// search, are problems at the value or the key.
func TestCalibrateKeyBad(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"load: {closed: true}\nprotocol: {calibrate: 2}\n",
			"x.yaml:2:23: protocol.calibrate: 2 is out of range: 3 to 100 A/A runs of the first variant (default 4)"},
		{"load: {closed: true}\nprotocol: {calibrate: 3.5}\n",
			"x.yaml:2:23: protocol.calibrate: 3.5 is not a whole number: 3 to 100 A/A runs of the first variant (default 4)"},
		{"load: {closed: true}\nprotocol: {calibrate: often}\n",
			`x.yaml:2:23: protocol.calibrate: expected true, false, a number of runs (3 to 100 A/A runs of the first variant (default 4)) or a mapping (runs, adjust), got "often"`},
		{"load: {closed: true}\nprotocol: {calibrate: [4]}\n",
			"x.yaml:2:23: protocol.calibrate: expected true, false, a number of runs (3 to 100 A/A runs of the first variant (default 4)) or a mapping (runs, adjust), got a list"},
		{"load: {closed: true}\nprotocol:\n  calibrate: {runs: 1000, adjust: maybe}\n",
			"x.yaml:3:21: protocol.calibrate.runs: 1000 is out of range: 3 to 100 A/A runs of the first variant (default 4)\n" +
				`x.yaml:3:35: protocol.calibrate.adjust: expected true or false, got "maybe"`},
		{"load: {closed: true}\nprotocol:\n  calibrate: {rnus: 4}\n",
			`x.yaml:3:15: protocol.calibrate.rnus: unknown key "rnus"; did you mean "runs"?`},
		{"load: {ramp: {by: clients, from: 1, to: 4, steps: 2}}\nprotocol:\n  calibrate: true\n",
			"x.yaml:3:3: protocol.calibrate: calibration measures the spread of runs at one load (rate or closed): a ramp or a capacity search has no such runs"},
		{"search: {slo: {p99: 50ms}}\nload: {clients: 4}\nprotocol: {calibrate: 4}\n",
			"x.yaml:3:12: protocol.calibrate: calibration measures the spread of runs at one load (rate or closed): a ramp or a capacity search has no such runs"},
	} {
		_, err := Parse("x.yaml", []byte(tc.yaml))
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%q: error %v, want a *ValidationError", tc.yaml, err)
			continue
		}
		if got := err.Error(); got != tc.want {
			t.Errorf("%q:\n%s\nwant:\n%s", tc.yaml, got, tc.want)
		}
	}
	// A ramp's false is no calibration: no problem.
	if _, err := Parse("x.yaml", []byte("load: {ramp: {by: clients, from: 1, to: 4, steps: 2}}\nprotocol: {calibrate: false}\n")); err != nil {
		t.Errorf("calibrate: false with a ramp: %v", err)
	}
}

// TestSetCalibrate: --calibrate's checks.
func TestSetCalibrate(t *testing.T) {
	s, err := Parse("x.yaml", []byte("load: {rate: 100}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetCalibrate(Calibrate{Runs: 5, Adjust: true}); err != nil || s.Protocol.Calibrate != (Calibrate{Runs: 5, Adjust: true}) {
		t.Errorf("5 runs: %v, %+v", err, s.Protocol.Calibrate)
	}
	if err := s.SetCalibrate(Calibrate{Runs: 2}); err == nil || !strings.Contains(err.Error(), "3 to 100") {
		t.Errorf("2 runs: %v", err)
	}
	if err := s.SetCalibrate(Calibrate{}); err != nil || s.Protocol.Calibrate.Runs != 0 {
		t.Errorf("off: %v", err)
	}
}

// TestCalibrated: the CV is the sample SD of the logs, the runs needed are
// stats.RunsNeeded's for ln(1 + margin), and the sentence says both with
// the experiment's repeats.
func TestCalibrated(t *testing.T) {
	vals := []float64{1000, 1035, 975, 1010}
	c := Calibrated("baseline", "tps", vals, nil, 0, 5)
	var lm, ss float64
	for _, v := range vals {
		lm += math.Log(v) / 4
	}
	for _, v := range vals {
		ss += (math.Log(v) - lm) * (math.Log(v) - lm)
	}
	want := math.Sqrt(ss / 3) // 0.0247
	if c.CV == nil || math.Abs(*c.CV-want) > 1e-12 {
		t.Fatalf("CV %v, want %v", c.CV, want)
	}
	need := stats.RunsNeeded(want, math.Log(1.05), 0.05, 0.8)
	if c.RunsNeeded != need || need != 6 || c.Margin != 0.05 || c.Alpha != 0.05 || c.Power != 0.8 {
		t.Errorf("runs needed %d (stats: %d), margin %v", c.RunsNeeded, need, c.Margin)
	}
	if w := "calibration: 4 runs of baseline: tps CV 2.5 %; detecting ±5 % needs 6 runs a side at 80 % power (the experiment has 5)"; c.Text != w {
		t.Errorf("text %q\nwant %q", c.Text, w)
	}
	if !c.Short() {
		t.Errorf("5 repeats for 6 needed: not short")
	}
	if c.Split != nil || !strings.Contains(c.Note, "per-interval rates") {
		t.Errorf("split %+v without intervals, note %q", c.Split, c.Note)
	}
	// A wider margin needs fewer runs, never fewer than 4 (the exact
	// test's floor at α = 0.05).
	if c := Calibrated("a", "p99", vals, nil, 0.2, 5); c.RunsNeeded != 4 || c.Short() || !strings.Contains(c.Text, "p99 CV 2.5 %; detecting ±20 % needs 4 runs") {
		t.Errorf("margin 0.2: %d, %q", c.RunsNeeded, c.Text)
	}
	// Nothing to measure.
	if c := Calibrated("a", "p99", []float64{3, 0, 4}, nil, 0, 5); c.CV != nil || c.RunsNeeded != 0 || c.Short() ||
		c.Text != "calibration: 3 runs of a: p99 not measured (a run's p99 is 0: no coefficient of variation)" {
		t.Errorf("a zero: %+v", c)
	}
	if c := Calibrated("a", "tps", []float64{300}, nil, 0, 5); c.CV != nil || !strings.Contains(c.Text, "1 run of a: tps not measured (fewer than 2 runs measured") {
		t.Errorf("one run: %q", c.Text)
	}
}

// TestCalibrationSplit: a seeded simulation of calibrations (4 runs of 60
// intervals; each run's level off by a between-run factor of σ_b, its
// intervals AR(1) with φ = 0.5 and σ_w around it): the split's within part
// estimates the within-run SD of a run's mean rate, σ_w·√((1+φ)/(1−φ)/k),
// on average, and the CV predicted for a window twice as long is close to
// the CV measured with 120-interval runs.
func TestCalibrationSplit(t *testing.T) {
	const (
		sims, runs, k = 400, 4, 60
		phi, sw, sb   = 0.5, 0.05, 0.02
	)
	rng := rand.New(rand.NewPCG(15, 6))
	sim := func(k int) ([]float64, [][]float64) {
		var vals []float64
		var ivs [][]float64
		for range runs {
			level := 1000 * math.Exp(sb*rng.NormFloat64())
			e := sw * rng.NormFloat64()
			x := make([]float64, k)
			for i := range x {
				e = phi*e + sw*math.Sqrt(1-phi*phi)*rng.NormFloat64()
				x[i] = level * (1 + e)
			}
			vals, ivs = append(vals, mean(x)), append(ivs, x)
		}
		return vals, ivs
	}
	var within2, cv2x2, long2 float64
	for range sims {
		vals, ivs := sim(k)
		c := Calibrated("a", "tps", vals, ivs, 0.05, 5)
		if c.Split == nil {
			t.Fatalf("no split: %s", c.Note)
		}
		within2 += c.Split.Within * c.Split.Within / sims
		cv2x2 += c.Split.CV2x * c.Split.CV2x / sims
		lv, _ := sim(2 * k)
		l := Calibrated("a", "tps", lv, nil, 0.05, 5)
		long2 += *l.CV * *l.CV / sims
	}
	trueWithin := sw * math.Sqrt((1+phi)/(1-phi)/k)
	gotWithin, gotCV2x, gotLong := math.Sqrt(within2), math.Sqrt(cv2x2), math.Sqrt(long2)
	t.Logf("within-run SD of a run's mean: estimated %.4f (rms over %d simulations), true %.4f; CV for a 2× window: predicted %.4f, measured %.4f",
		gotWithin, sims, trueWithin, gotCV2x, gotLong)
	if math.Abs(gotWithin/trueWithin-1) > 0.2 {
		t.Errorf("within part %.4f, true %.4f: off by more than 20 %%", gotWithin, trueWithin)
	}
	if math.Abs(gotCV2x/gotLong-1) > 0.15 {
		t.Errorf("predicted CV %.4f for a 2× window, measured %.4f: off by more than 15 %%", gotCV2x, gotLong)
	}
}

// TestExperimentCalibrateAdjust: with adjust, 1 repeat is raised to the
// runs needed (4 for ±50 %: the exact test's floor) before the real runs,
// and the record says so.
func TestExperimentCalibrateAdjust(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Measure(t)
	spec := experimentFile(t, `
name: adjust
workload: {builtin: select-only, scale: 1}
load: {clients: 1, closed: true}
protocol: {warmup: 0s, window: 1s, repeats: 1, equivalence: 0.5, calibrate: {runs: 3, adjust: true}}
collect: false
`)
	env, log := testEnv(t, url, nil)
	rec := execute(t, spec, env, log)
	c := rec.Calibration
	// The runs needed follow this machine's noise (CV 8–17 % seen here):
	// check them against the formula, and the plan against them.
	if c == nil || c.CV == nil || c.Repeats != 1 || len(c.RunRecords) != 3 {
		t.Fatalf("calibration %+v\n%s", c, log)
	}
	need := stats.RunsNeeded(*c.CV, math.Log1p(0.5), stats.DefaultAlpha, stats.DefaultPower)
	if c.RunsNeeded != need || c.Adjusted != min(max(need, 1), MaxAdjustedRepeats) || rec.Repeats != c.Adjusted || len(rec.Runs) != c.Adjusted {
		t.Fatalf("calibration %+v (RunsNeeded for CV %v: %d), repeats %d, %d runs\n%s", c, *c.CV, need, rec.Repeats, len(rec.Runs), log)
	}
	if want := fmt.Sprintf("detecting ±50 %% needs %d runs a side at 80 %% power (the experiment had 1: raised to %d)", need, c.Adjusted); !strings.Contains(c.Text, want) {
		t.Errorf("text %q lacks %q", c.Text, want)
	}
	if spec.Protocol.Repeats != 1 {
		t.Errorf("the caller's spec was changed: repeats %d", spec.Protocol.Repeats)
	}
	// Raised to what was needed: no warning. Capped below it (a CV past
	// ~36 % on a loaded machine needs more than 30): the warning says so.
	capped := fmt.Sprintf("calibration: the repeats were raised to %d (at most %d), fewer than the %d runs a side needed", MaxAdjustedRepeats, MaxAdjustedRepeats, need)
	warned := false
	for _, w := range rec.Warnings {
		if !strings.HasPrefix(w, "calibration:") {
			continue
		}
		if need > MaxAdjustedRepeats && w == capped {
			warned = true
			continue
		}
		t.Errorf("warning after adjusting to %d (needed %d): %s", c.Adjusted, need, w)
	}
	if need > MaxAdjustedRepeats && !warned {
		t.Errorf("needed %d runs, raised to %d, and no warning %q in %q", need, MaxAdjustedRepeats, capped, rec.Warnings)
	}
	t.Logf("%s\n%s", c.Text, c.WindowText())
}
