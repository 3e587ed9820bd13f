package explain

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// LevelAssociations are each wait type's and event's association with
// speed and latency across an experiment's levels and runs, also after
// removing the level (partial correlation), and the ranking that replaces
// pg_expecto's "weighted correlation".
//
// pg_expecto correlates each wait's series with speed over one run of a
// ramp, so both rise with the session count and the correlation says
// "the ramp went up" (a confounder); here each run is one point and the
// partial correlation removes what the level (and the variant) explains of
// both, and the within-level association uses the intervals of each run
// around the run's own means.
type LevelAssociations struct {
	By       string `json:"by,omitempty"` // the ramp's unit ("clients", "rate"); "" a fixed load
	Levels   int    `json:"levels"`
	Runs     int    `json:"runs"`     // runs with waits, one point each
	Variants int    `json:"variants"` // groups the partial correlation removes
	Model    string `json:"model"`    // the runs' load model
	// Speed is what speed is across runs: "calls/s" (pg_stat_statements
	// calls over the measured window) when every run has it, else "tps".
	Speed    string `json:"speed"`
	Slowdown string `json:"slowdown"` // which association the ranking uses
	Method   string `json:"method"`
	Formula  string `json:"formula"`
	// Waits are ranked by Score, highest first.
	Waits []*LevelWait `json:"waits,omitempty"`
	Left  int          `json:"left_out,omitempty"` // waits with fewer than MinSamples samples over the runs
	// MinSamples is the fewest samples over all the runs a wait needs.
	MinSamples int64 `json:"min_samples"`
}

// LevelWait is one wait type (Event "") or event across an experiment's
// runs. Every correlation is an association, not a cause.
type LevelWait struct {
	Type  string  `json:"type"`
	Event string  `json:"event,omitempty"`
	Share float64 `json:"share"` // mean over the runs of its share of active samples
	// Speed and Latency are the plain correlations (Pearson) across runs
	// of the wait's share with speed and with p99, n = runs: on a ramp they
	// hold the level's own effect on both.
	Speed   stats.CorrResult `json:"speed"`
	Latency stats.CorrResult `json:"latency"`
	// SpeedPartial and LatencyPartial are the same after removing the
	// level and the variant (PartialCorr).
	SpeedPartial   PartialCorr `json:"speed_partial"`
	LatencyPartial PartialCorr `json:"latency_partial"`
	// SpeedWithin and LatencyWithin are the within-level associations
	// across intervals (tps, p99 per interval), each run around its means,
	// pooled (withinCorr).
	SpeedWithin   stats.CorrResult `json:"speed_within"`
	LatencyWithin stats.CorrResult `json:"latency_within"`
	// Slow is the partial association with slowdown the ranking uses;
	// Score = Share × max(0, Slow.R); Holm is Slow.P adjusted over the
	// waits ranked.
	Slow  PartialCorr `json:"slow"`
	Score float64     `json:"score"`
	Holm  float64     `json:"holm_p"`
}

// RunAlarms are the OS alarms of one variant at one level, over its runs:
// for each alarm the median, lowest and highest of the runs' shares of
// time.
type RunAlarms struct {
	Variant string       `json:"variant"`
	Level   float64      `json:"level"`
	Runs    int          `json:"runs"` // runs with OS alarms
	Items   []LevelAlarm `json:"items"`
}

// LevelAlarm is one alarm over a variant's runs at a level.
type LevelAlarm struct {
	Name      string  `json:"name"`
	Condition string  `json:"condition"`
	Runs      int     `json:"runs"`   // runs in which it was measured
	Median    float64 `json:"median"` // of the runs' shares of time
	Min       float64 `json:"min"`
	Max       float64 `json:"max"`
	Worst     float64 `json:"worst"` // the worst value over the runs, in Unit
	Unit      string  `json:"unit"`
	Missing   string  `json:"missing,omitempty"` // why no run measured it
}

// levelPoint is one run as the experiment's associations see it.
type levelPoint struct {
	variant int
	level   float64
	speed   float64 // calls/s or tps
	tps     float64
	p99     float64
	iv      *intervals
}

// levels computes the associations across levels and runs, and the OS
// alarms per variant and level.
func levels(in *ExperimentInput, cfg Config) (*LevelAssociations, []*RunAlarms, []string) {
	if in == nil || len(in.Runs) == 0 {
		return nil, nil, nil
	}
	la, warn := levelAssociations(in)
	return la, levelAlarms(in, cfg), warn
}

func levelAssociations(in *ExperimentInput) (*LevelAssociations, []string) {
	var pts []levelPoint
	var warn []string
	variantIdx := map[string]int{}
	for i, v := range in.Variants {
		variantIdx[v] = i
	}
	callsAll := true
	model := ""
	for _, r := range in.Runs {
		if r.Run == nil || r.Run.Summary == nil {
			continue
		}
		iv, why := loadIntervals(r.Dir, r.Run)
		if why != "" {
			warn = append(warn, fmt.Sprintf("associations across runs: run %s leaves out %s (%s)", r.Variant, r.Dir, why))
			continue
		}
		p := levelPoint{variant: variantIdx[r.Variant], level: r.Level, tps: r.Run.Summary.Total.TPS,
			p99: r.Run.Summary.Total.Response.P99, iv: iv}
		if ev := r.Run.Evidence; ev != nil && ev.Calls > 0 && r.Run.Summary.Duration > 0 {
			p.speed = float64(ev.Calls) / r.Run.Summary.Duration
		} else {
			callsAll = false
		}
		model = cmp.Or(model, r.Run.Model.Kind)
		pts = append(pts, p)
	}
	if len(pts) < 4 {
		return nil, append(warn, fmt.Sprintf("associations across runs: missing (%d %s with waits; at least 4 are needed)", len(pts), format.Plural(len(pts), "run", "runs")))
	}
	speedName := "calls/s"
	if !callsAll {
		speedName = "tps"
		for i := range pts {
			pts[i].speed = pts[i].tps
		}
	}
	la := &LevelAssociations{By: in.By, Runs: len(pts), Model: model, Speed: speedName, MinSamples: assocMinSamples,
		Method: "Pearson's r across runs (one point per run); partial: residuals of each on the level within each variant, df = n − 2·variants − 1; " +
			"within: Pearson's r across intervals (tps, p99) around each run's means, pooled, effective n of the within-run autocorrelation",
		Formula: "score = mean share of active samples × max(0, partial r with slowdown); Holm over the waits ranked"}
	levelsSeen, variantsSeen := map[float64]bool{}, map[int]bool{}
	for _, p := range pts {
		levelsSeen[p.level], variantsSeen[p.variant] = true, true
	}
	la.Levels, la.Variants = len(levelsSeen), len(variantsSeen)
	closed := model == results.ModelClosed
	la.Slowdown = "p99 (open model)"
	if closed {
		la.Slowdown = "−" + speedName + " (closed model)"
	}
	// The waits: every type and the top events by samples over all runs.
	pooled := &intervals{samples: map[waitKey]int64{}}
	for _, p := range pts {
		for k, n := range p.iv.samples {
			pooled.samples[k] += n
		}
	}
	level, group := make([]float64, len(pts)), make([]int, len(pts))
	speed, p99 := make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		level[i], group[i], speed[i], p99[i] = p.level, p.variant, p.speed, p.p99
	}
	for _, k := range pooled.candidates(assocTopEvents) {
		if pooled.samples[k] < assocMinSamples { // over all the runs: each run's share is a proportion
			la.Left++
			continue
		}
		share := make([]float64, len(pts))
		var sx, sTps, sP99 [][]float64
		var sum float64
		for i, p := range pts {
			share[i] = float64(p.iv.samples[k]) / float64(p.iv.total)
			sum += share[i]
			sx = append(sx, p.iv.share[k])
			sTps = append(sTps, p.iv.tps)
			sP99 = append(sP99, p.iv.p99)
		}
		w := &LevelWait{Type: k.typ, Event: k.event, Share: sum / float64(len(pts)),
			Speed: stats.Pearson(share, speed), Latency: stats.Pearson(share, p99),
			SpeedPartial: partialCorr(share, speed, level, group), LatencyPartial: partialCorr(share, p99, level, group),
			SpeedWithin: withinCorr(sx, sTps), LatencyWithin: withinCorr(sx, sP99)}
		// Across runs the runs are the unit: the plain correlations' p use
		// n − 2, not an effective n of the run order.
		w.Speed.P, w.Speed.NEff = plainP(w.Speed), float64(w.Speed.N)
		w.Latency.P, w.Latency.NEff = plainP(w.Latency), float64(w.Latency.N)
		w.Slow = w.LatencyPartial
		if closed {
			w.Slow = w.SpeedPartial
			w.Slow.R = -w.Slow.R
		}
		w.Score = w.Share * max(0, w.Slow.R)
		la.Waits = append(la.Waits, w)
	}
	slices.SortStableFunc(la.Waits, func(a, b *LevelWait) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Share, a.Share))
	})
	ps := make([]float64, len(la.Waits))
	for i, w := range la.Waits {
		ps[i] = w.Slow.P
		if !w.Slow.OK {
			ps[i] = math.NaN()
		}
	}
	for i, h := range stats.Holm(ps, assocAlpha) {
		la.Waits[i].Holm = h.Adjusted
	}
	return la, warn
}

// plainP is the classical p-value of c with n − 2 degrees of freedom.
func plainP(c stats.CorrResult) float64 {
	if !c.OK {
		return 1
	}
	return corrP(c.R, float64(c.N-2))
}

// levelAlarms are the OS alarms per variant and level: each run's alarms
// (its findings in run.json, else computed from its directory), then per
// alarm the median, lowest and highest share over the runs.
func levelAlarms(in *ExperimentInput, cfg Config) []*RunAlarms {
	type key struct {
		variant string
		level   float64
	}
	by := map[key][]*results.Alarms{}
	var order []key
	for _, r := range in.Runs {
		if r.Run == nil {
			continue
		}
		var a *results.Alarms
		if f := r.Run.Findings; f != nil && f.Alarms != nil {
			a = f.Alarms
		} else {
			a, _ = alarms(&runInput{dir: r.Dir, run: r.Run, cfg: cfg})
		}
		if a == nil {
			continue
		}
		k := key{r.Variant, r.Level}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], a)
	}
	var out []*RunAlarms
	for _, k := range order {
		runs := by[k]
		ra := &RunAlarms{Variant: k.variant, Level: k.level, Runs: len(runs)}
		for j, first := range runs[0].Items {
			la := LevelAlarm{Name: first.Name, Condition: first.Condition, Unit: first.Unit, Worst: math.NaN()}
			var shares []float64
			for _, a := range runs {
				if j >= len(a.Items) || a.Items[j].Missing != "" {
					if j < len(a.Items) && la.Missing == "" {
						la.Missing = a.Items[j].Missing
					}
					continue
				}
				it := a.Items[j]
				shares = append(shares, it.Share)
				low := it.Name == "free memory"
				if math.IsNaN(la.Worst) || (low && it.Worst < la.Worst) || (!low && it.Worst > la.Worst) {
					la.Worst = it.Worst
				}
			}
			la.Runs = len(shares)
			if len(shares) > 0 {
				la.Missing = ""
				slices.Sort(shares)
				la.Min, la.Max = shares[0], shares[len(shares)-1]
				la.Median = median(shares)
			} else {
				la.Worst = 0
			}
			ra.Items = append(ra.Items, la)
		}
		out = append(out, ra)
	}
	slices.SortStableFunc(out, func(a, b *RunAlarms) int { return cmp.Compare(a.Level, b.Level) })
	return out
}

// median of sorted values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
