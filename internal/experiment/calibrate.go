package experiment

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// PhaseCalibration is the phase of a calibration run (RunRecord.Phase, the
// run's "phase" label and the end of its directory's name).
const PhaseCalibration = "calibration"

// minSplitIntervals is the fewest measured intervals a run needs for the
// within/between split of its spread.
const minSplitIntervals = 5

// Calibration is experiment.json's calibration object: the A/A runs of
// the first variant made before the real runs, and the repeats they say a
// comparison needs (following Kalibera & Jones, "Rigorous Benchmarking in
// Reasonable Time", 2013: measure the noise first, then choose the
// repeats).
type Calibration struct {
	// Runs is the calibration runs whose metric was measured (Planned were
	// asked for).
	Runs    int    `json:"runs"`
	Planned int    `json:"planned"`
	Variant string `json:"variant"`
	Metric  string `json:"metric"` // tps, p50, p90, p95, p99, p99.9 or max
	// Values are the metric of each run: tx/s, or ms for a latency.
	Values []float64 `json:"values"`
	// CV is the run-to-run coefficient of variation: the sample standard
	// deviation (n − 1) of ln(values), ≈ sd/mean for small spreads; NaN
	// (JSON: null) when not measured.
	CV     *float64 `json:"cv"`
	Margin float64  `json:"margin"` // δ, a share: 0.05 is ±5 %
	Alpha  float64  `json:"alpha"`  // the level of the comparison's test
	Power  float64  `json:"power"`
	// RunsNeeded is the runs a side for a two-sided Mann-Whitney test at
	// Alpha to detect a change of ±Margin with probability Power, with run-
	// to-run spread CV: stats.RunsNeeded(CV, ln(1 + Margin), Alpha, Power);
	// 0 when not measured.
	RunsNeeded int `json:"runs_needed"`
	// Repeats is the experiment's repeats a variant as planned; Adjusted
	// the repeats it ran with after adjust raised them (0: unchanged).
	Repeats  int     `json:"repeats"`
	Adjusted int     `json:"adjusted_repeats,omitempty"`
	WindowS  float64 `json:"window_s"`
	// Split is the spread split by the per-interval rates (tps only; nil
	// when the intervals do not allow it).
	Split *WindowSplit `json:"window_split,omitempty"`
	// Text is the calibration's sentence; Note what it could not measure.
	Text       string      `json:"text"`
	Note       string      `json:"note,omitempty"`
	RunRecords []RunRecord `json:"run_records"`
}

// WindowSplit splits the run-to-run spread of tps into the part that
// comes from the noise of the intervals within a run, which a longer window
// averages away, and the part between runs, which it does not (Kalibera &
// Jones's levels of repetition). With k intervals of sample variance s²,
// mean m and lag-1 autocorrelation ρ (clamped to [0, 0.95]) in a run, the
// relative variance of the run's mean rate from its intervals is
//
//	w = s²/m² · (1 + ρ)/(1 − ρ) / k
//
// (k·(1 − ρ)/(1 + ρ) is the effective number of intervals), Within² is the
// mean of w over the runs, Between² = max(0, CV² − Within²), and a window f
// times as long gives CV(f)² = Between² + Within²/f.
type WindowSplit struct {
	Within    float64 `json:"within_cv"`
	Between   float64 `json:"between_cv"`
	Intervals float64 `json:"intervals"` // measured intervals a run, mean
	Rho1      float64 `json:"rho1"`      // lag-1 autocorrelation, mean over the runs (before clamping)
	// CV2x and RunsNeeded2x are for a window twice as long.
	CV2x         float64 `json:"cv_2x_window"`
	RunsNeeded2x int     `json:"runs_needed_2x_window"`
}

// Calibrated computes a calibration from the metric's values of the runs
// (one a run) and, for tps, their per-interval rates (one slice a run; nil:
// no split): the CV, the runs a side needed to detect ±margin (0:
// stats.DefaultMargin) at stats.DefaultPower, and the split. repeats is
// the experiment's repeats a variant, for the sentence.
func Calibrated(variant, metric string, values []float64, intervals [][]float64, margin float64, repeats int) *Calibration {
	if !(margin > 0 && margin < 1) {
		margin = stats.DefaultMargin
	}
	c := &Calibration{Runs: len(values), Variant: variant, Metric: metric, Values: values, Margin: margin,
		Alpha: stats.DefaultAlpha, Power: stats.DefaultPower, Repeats: repeats}
	logs := make([]float64, 0, len(values))
	for _, v := range values {
		if !(v > 0) || math.IsInf(v, 0) {
			c.Note = fmt.Sprintf("a run's %s is %s: no coefficient of variation", metric, strconv.FormatFloat(v, 'g', 3, 64))
			c.Text = c.sentence()
			return c
		}
		logs = append(logs, math.Log(v))
	}
	if len(logs) < 2 {
		c.Note = "fewer than 2 runs measured: no spread"
		c.Text = c.sentence()
		return c
	}
	cv := sampleSD(logs)
	c.CV = &cv
	delta := math.Log1p(margin)
	c.RunsNeeded = stats.RunsNeeded(cv, delta, c.Alpha, c.Power)
	if metric == "tps" {
		c.Split = splitWindow(cv, intervals, delta, c.Alpha, c.Power)
		if c.Split == nil {
			c.Note = fmt.Sprintf("no window split: it needs every run's per-interval rates, at least %d intervals a run", minSplitIntervals)
		}
	} else {
		c.Note = "no window split for a latency quantile (intervals' quantiles do not average to the run's)"
	}
	c.Text = c.sentence()
	return c
}

// splitWindow is the WindowSplit of the runs' per-interval rates; nil when
// a run has fewer than minSplitIntervals or a mean rate of 0.
func splitWindow(cv float64, intervals [][]float64, delta, alpha, power float64) *WindowSplit {
	if len(intervals) == 0 {
		return nil
	}
	var w2, k, rho float64
	for _, x := range intervals {
		if len(x) < minSplitIntervals {
			return nil
		}
		m := mean(x)
		if !(m > 0) {
			return nil
		}
		s := sampleSD(x)
		r := lag1(x)
		rc := min(max(r, 0), 0.95)
		n := float64(len(x))
		w2 += s * s / (m * m) * (1 + rc) / (1 - rc) / n
		k += n
		rho += r
	}
	nr := float64(len(intervals))
	w2 /= nr
	b2 := max(0, cv*cv-w2)
	sp := &WindowSplit{Within: math.Sqrt(w2), Between: math.Sqrt(b2), Intervals: k / nr, Rho1: rho / nr}
	// The measured CV is the truth for this window: the split only
	// apportions it, so the within part is at most CV.
	sp.Within = min(sp.Within, cv)
	sp.CV2x = math.Sqrt(b2 + sp.Within*sp.Within/2)
	sp.RunsNeeded2x = stats.RunsNeeded(sp.CV2x, delta, alpha, power)
	return sp
}

// sentence is the calibration's line:
//
//	calibration: 4 runs of baseline: tps CV 2.1 %; detecting ±5 % needs 6 runs a side at 80 % power (the experiment has 5)
func (c *Calibration) sentence() string {
	head := fmt.Sprintf("calibration: %d %s of %s: ", c.Runs, plural(c.Runs, "run", "runs"), c.Variant)
	if c.CV == nil {
		return head + c.Metric + " not measured (" + c.Note + ")"
	}
	need := strconv.Itoa(c.RunsNeeded)
	if c.RunsNeeded >= 1000 {
		need = "1000 or more"
	}
	s := fmt.Sprintf("%s%s CV %s; detecting ±%s needs %s runs a side at %.0f %% power", head, c.Metric, pct(*c.CV),
		strconv.FormatFloat(c.Margin*100, 'g', 3, 64)+" %", need, c.Power*100)
	switch {
	case c.Adjusted > 0:
		s += fmt.Sprintf(" (the experiment had %d: raised to %d)", c.Repeats, c.Adjusted)
	default:
		s += fmt.Sprintf(" (the experiment has %d)", c.Repeats)
	}
	return s
}

// WindowText is what a longer window would do ("" without a split):
//
//	calibration: of tps CV 2.1 %, 1.8 % is within runs (14 intervals, ρ₁ 0.31) and 1.1 % between them: a window twice as long gives CV 1.7 %, 5 runs a side
func (c *Calibration) WindowText() string {
	sp := c.Split
	if sp == nil || c.CV == nil {
		return ""
	}
	s := fmt.Sprintf("calibration: of %s CV %s, %s is within runs (%.0f intervals, lag-1 autocorrelation %.2f) and %s between them: a window twice as long gives CV %s, %d runs a side",
		c.Metric, pct(*c.CV), pct(sp.Within), sp.Intervals, sp.Rho1, pct(sp.Between), pct(sp.CV2x), sp.RunsNeeded2x)
	if sp.Between >= sp.Within {
		s += " (most of the spread is between runs: more runs help, a longer window little)"
	}
	return s
}

// Short says the experiment's repeats are fewer than the runs needed.
func (c *Calibration) Short() bool {
	return c.RunsNeeded > 0 && c.Repeats < c.RunsNeeded && c.Adjusted == 0
}

// pct is a share as "2.1 %" (one decimal below 10 %).
func pct(s float64) string {
	if p := s * 100; math.Abs(p) < 9.95 {
		return fmt.Sprintf("%.1f %%", p)
	}
	return fmt.Sprintf("%.0f %%", s*100)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// sampleSD is √(Σ(x − x̄)²/(n − 1)); 0 with fewer than 2 values.
func sampleSD(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := mean(x)
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-1))
}

// lag1 is the lag-1 autocorrelation Σ(x_t − x̄)(x_{t+1} − x̄)/Σ(x_t − x̄)²;
// 0 for a constant series.
func lag1(x []float64) float64 {
	m := mean(x)
	var num, den float64
	for i, v := range x {
		den += (v - m) * (v - m)
		if i+1 < len(x) {
			num += (v - m) * (x[i+1] - m)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// primaryValue is a run's value of a primary metric: tps in tx/s, a response
// time quantile or max in ms.
func primaryValue(rr *RunRecord, metric string) (float64, error) {
	switch metric {
	case "tps":
		return rr.TPS, nil
	case "max":
		return rr.Max, nil
	case "p50":
		return rr.P50, nil
	case "p90":
		return rr.P90, nil
	case "p95":
		return rr.P95, nil
	case "p99":
		return rr.P99, nil
	case "p99.9":
		return rr.P999, nil
	}
	return 0, fmt.Errorf("a run record has no metric %q", metric)
}

// calibrationMetric is the primary metric: protocol.primary, the first
// SLO's quantile, else tps for the closed model and p99 for the open one
// (compare.PrimaryFor).
func (r *runner) calibrationMetric() string {
	if p := r.primary(); p != "" {
		return p
	}
	if r.spec.Load.Closed {
		return "tps"
	}
	return "p99"
}

// calibrate makes the A/A runs of the first variant, each with the
// protocol's warm-up, window and injections, computes the calibration,
// prints it before the real runs, and warns, or with adjust raises the
// repeats, when the experiment's are fewer than needed.
func (r *runner) calibrate(ctx context.Context) error {
	s := r.spec
	n := s.Protocol.Calibrate.Runs
	metric := r.calibrationMetric()
	r.rec.Calibration = &Calibration{Planned: n, Variant: s.Variants[0].Name, Metric: metric,
		Repeats: s.Protocol.Repeats, WindowS: r.window.Seconds(), RunRecords: []RunRecord{}}
	if err := r.useVariant(ctx, 0); err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.out("pgtrial: calibration run %d of %d: variant %s (A/A, left out of the comparisons)", i, n, s.Variants[0].Name)
		if _, err := r.run(ctx, runPlan{variant: 0, repeat: i, clients: s.Load.Clients, rate: s.Load.Rate,
			warmup: s.Protocol.Warmup, duration: r.window, injections: true, phase: PhaseCalibration, calibration: true}); err != nil {
			return err
		}
	}
	var values []float64
	var intervals [][]float64
	for _, rr := range r.rec.Calibration.RunRecords {
		if rr.Error != "" && rr.TPS == 0 {
			continue
		}
		v, err := primaryValue(&rr, metric)
		if err != nil {
			return err
		}
		values = append(values, v)
		if metric == "tps" {
			intervals = append(intervals, measuredRates(filepath.Join(r.env.Dir, rr.Dir)))
		}
	}
	c := Calibrated(s.Variants[0].Name, metric, values, intervals, s.Protocol.Margin, s.Protocol.Repeats)
	c.Planned, c.WindowS, c.RunRecords = n, r.window.Seconds(), r.rec.Calibration.RunRecords
	if c.RunsNeeded > s.Protocol.Repeats && s.Protocol.Calibrate.Adjust {
		c.Adjusted = min(c.RunsNeeded, MaxAdjustedRepeats)
		spec := *s
		spec.Protocol.Repeats = c.Adjusted
		r.spec = &spec
		r.rec.Repeats = c.Adjusted
		c.Text = c.sentence()
	}
	r.rec.Calibration = c
	r.out("pgtrial: %s", c.Text)
	if wt := c.WindowText(); wt != "" {
		r.out("pgtrial: %s", wt)
	}
	switch {
	case c.Short():
		w := fmt.Sprintf("calibration: %d repeats a variant are fewer than the %d runs a side that detect ±%s in %s at %.0f %% power on this machine: a comparison may end inconclusive; give protocol.repeats: %d, or protocol.calibrate: {adjust: true} (--calibrate=adjust) to raise them",
			c.Repeats, c.RunsNeeded, strconv.FormatFloat(c.Margin*100, 'g', 3, 64)+" %", c.Metric, c.Power*100, c.RunsNeeded)
		r.rec.Warnings = append(r.rec.Warnings, w)
		r.out("pgtrial: warning: %s", w)
	case c.Adjusted > 0 && c.Adjusted < c.RunsNeeded:
		w := fmt.Sprintf("calibration: the repeats were raised to %d (at most %d), fewer than the %d runs a side needed", c.Adjusted, MaxAdjustedRepeats, c.RunsNeeded)
		r.rec.Warnings = append(r.rec.Warnings, w)
		r.out("pgtrial: warning: %s", w)
	}
	return r.rec.write(r.env.Dir)
}

// measuredRates are a run's committed tx/s of each measured interval; nil
// when its timeline cannot be read.
func measuredRates(dir string) []float64 {
	rows, err := results.ReadTimeline(dir)
	if err != nil {
		return nil
	}
	var out []float64
	for _, row := range rows {
		if row.Phase == results.PhaseMeasure {
			out = append(out, row.TPS)
		}
	}
	return out
}

// SetCalibrate replaces the file's protocol.calibrate (--calibrate): an
// error for fewer than MinCalibrationRuns runs, and for a ramp or a capacity
// search, which have no runs at one load to calibrate with.
func (s *Spec) SetCalibrate(c Calibrate) error {
	if c.Runs == 0 {
		s.Protocol.Calibrate = c
		return nil
	}
	if c.Runs < MinCalibrationRuns || c.Runs > 100 {
		return fmt.Errorf("calibration runs %d: use %s", c.Runs, calibrateRule)
	}
	if m := s.Model(); m == ModelRamp || m == ModelSearch {
		return fmt.Errorf("calibration measures the spread of runs at one load (rate or closed); experiment %s is a %s", s.Name, m)
	}
	s.Protocol.Calibrate = c
	return nil
}
