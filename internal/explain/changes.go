package explain

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Change points in every run's timeline (DESIGN §7, issue 17 item 6).
//
// The series are timeline.csv's per-interval tps, response p99 and (open
// model) lag p99 over the measured phase (rows of phase "measure"; a last
// interval shorter than half the usual is left out, as the checks leave it
// out). An interval without a committed transaction has no p99 and no lag:
// it is left out of those series (NaN), never taken as 0.
//
// Each series goes through stats.ChangePoints (PELT) with β = Penalty·ln n
// in units of the noise's long-run variance σ²(1+ρ)/(1−ρ), n the series'
// intervals with a value. σ, ρ and n are kept per series, so "no change"
// is a result with its grounds.
//
// A change is at the start of the first interval of its new level. It is
// matched to every occurrence (results.Occurrences, plus error bursts from
// the timeline) whose start or end lies within ±Match of it; a change
// with none is unexplained, never put onto the nearest occurrence. Its
// context compares the segment before with the segment after (bounded by
// the series' neighbouring changes and the window): the client sessions'
// wait events whose share of the active samples moved most, and the WAL
// full-page images' share of records (changes_context.go). Occurrences
// with no change near them are listed with the same context around their
// start.

// changeMinSegment is the fewest intervals a level may have
// (stats.ChangeConfig.MinSegment): one slow interval is not a level.
const changeMinSegment = 3

// changeMethod is Changes.Method for the penalty factor p.
func changeMethod(p float64) string {
	return fmt.Sprintf("PELT on tps and on ln p99, ln lag, β = %s·ln n × long-run variance σ²(1+ρ)/(1−ρ)", trimFloat(p))
}

// changes is the run's level shifts in tps, p99 and lag matched to
// occurrences. It is nil, with a warning, when timeline.csv cannot be read
// or has no measured interval.
func changes(in *runInput) (*results.Changes, []string) {
	ci, warn := readChangeInput(in.dir, in.run, in.cfg)
	if ci == nil {
		return nil, warn
	}
	return detectChanges(ci), warn
}

// Changes is the change points' part of the findings alone (Run computes
// it with the rest): the run report's timeline marks them.
func Changes(dir string, run *results.Run, cfg Config) *results.Changes {
	c, _ := changes(&runInput{dir: dir, run: run, cfg: cfg})
	return c
}

// changeInput is what the detection and the matching work on: the run's
// files as read, placed on its clock.
type changeInput struct {
	cfg      Config
	zero     time.Time // the run's clock zero
	window   results.Window
	interval time.Duration // the timeline's (median gap)
	open     bool

	rows   []results.TimelineRow // the measured rows analysed
	starts []time.Time           // each row's interval start

	occurrences []results.Occurrence
	waits       []results.WaitRow // nil: missing (see missing)
	server      []results.ServerRow
	missing     []string
}

// readChangeInput reads timeline.csv, events.jsonl, waits.csv and
// server.csv of dir. A missing events, waits or server file leaves its
// part out with a note; a missing timeline gives nil and a warning.
func readChangeInput(dir string, run *results.Run, cfg Config) (*changeInput, []string) {
	all, err := results.ReadTimeline(dir)
	if err != nil {
		return nil, []string{"changes: " + results.RedactArgs([]string{err.Error()})[0]}
	}
	ci := &changeInput{cfg: cfg, open: run.Model.Kind == results.ModelOpen, zero: run.BenchStart}
	if ci.zero.IsZero() && len(all) > 0 {
		last := all[len(all)-1]
		ci.zero = last.Time.Add(-time.Duration(last.Elapsed * float64(time.Second)))
	}
	var gaps []float64
	for i := 1; i < len(all); i++ {
		if g := all[i].Time.Sub(all[i-1].Time).Seconds(); g > 0 {
			gaps = append(gaps, g)
		}
	}
	ci.interval = time.Second
	if len(gaps) > 0 {
		ci.interval = time.Duration(stats.Median(gaps) * float64(time.Second))
	}
	for i, r := range all {
		if r.Phase != results.PhaseMeasure {
			continue
		}
		start := r.Time.Add(-ci.interval)
		if i > 0 && r.Time.After(all[i-1].Time) {
			start = all[i-1].Time
		}
		if r.Time.Sub(start) < ci.interval/2 {
			continue // a short last interval: its rates are noise
		}
		ci.rows = append(ci.rows, r)
		ci.starts = append(ci.starts, start)
	}
	if len(ci.rows) == 0 {
		return nil, []string{"changes: " + results.TimelineFile + " has no interval of the measured phase"}
	}
	ci.window = results.MeasuredWindow(run)
	if !ci.window.Known() {
		ci.window = results.Window{From: ci.starts[0], To: ci.rows[len(ci.rows)-1].Time}
	}

	events, err := results.ReadEvents(dir)
	if err != nil {
		ci.missing = append(ci.missing, "occurrences: "+redactErr(err))
	}
	slices.SortStableFunc(events, func(a, b results.Event) int { return a.Time.Compare(b.Time) })
	ci.occurrences = append(results.Occurrences(events), errorBursts(ci.rows, ci.starts)...)
	slices.SortStableFunc(ci.occurrences, func(a, b results.Occurrence) int { return a.Start.Compare(b.Start) })

	if why, ok := run.Evidence.MissingReason(results.EvidenceWaits); ok {
		ci.missing = append(ci.missing, "wait shifts: "+results.WaitsFile+" not collected ("+results.RedactArgs([]string{why})[0]+")")
	} else if ci.waits, err = results.ReadWaits(dir); err != nil {
		ci.missing = append(ci.missing, "wait shifts: "+redactErr(err))
		ci.waits = nil
	}
	if why, ok := run.Evidence.MissingReason(results.EvidenceServer); ok {
		ci.missing = append(ci.missing, "FPI share: "+results.ServerFile+" not collected ("+results.RedactArgs([]string{why})[0]+")")
	} else if ci.server, err = results.ReadServer(dir); err != nil {
		ci.missing = append(ci.missing, "FPI share: "+redactErr(err))
		ci.server = nil
	}
	return ci, nil
}

func redactErr(err error) string { return results.RedactArgs([]string{err.Error()})[0] }

// x is t in seconds on the run's clock.
func (ci *changeInput) x(t time.Time) float64 { return t.Sub(ci.zero).Seconds() }

// seriesDef is one series to look at.
type seriesDef struct {
	name, unit string
	value      func(r *results.TimelineRow) float64
	// log: the detector sees ln(value + latencyFloor): a latency's noise
	// grows with its level (a stall's p99 swings by seconds, a calm one
	// by tenths of a ms), so on the raw scale the calm part's σ would cut
	// a stall into pieces; on the log scale a level shift is a ratio.
	log bool
}

// latencyFloor (ms) is added before the log: the histograms' resolution,
// 1 µs, so that a lag of 0 has a logarithm.
const latencyFloor = 0.001

func (ci *changeInput) seriesDefs() []seriesDef {
	noTx := func(r *results.TimelineRow, v float64) float64 {
		if r.Committed <= 0 {
			return math.NaN() // no transaction: no quantile
		}
		return v
	}
	defs := []seriesDef{
		{results.SeriesTPS, "tx/s", func(r *results.TimelineRow) float64 { return r.TPS }, false},
		{results.SeriesP99, "ms", func(r *results.TimelineRow) float64 { return noTx(r, r.ResponseP99) }, true},
	}
	if ci.open {
		defs = append(defs, seriesDef{results.SeriesLag, "ms", func(r *results.TimelineRow) float64 { return noTx(r, r.LagP99) }, true})
	}
	return defs
}

// detectChanges finds the changes of ci's series and matches them.
func detectChanges(ci *changeInput) *results.Changes {
	cfg := ci.cfg
	out := &results.Changes{
		Method:      changeMethod(cfg.Penalty),
		Penalty:     cfg.Penalty,
		MatchS:      cfg.Match.Seconds(),
		WindowFromS: ci.x(ci.window.From),
		WindowToS:   ci.x(ci.window.To),
		IntervalS:   ci.interval.Seconds(),
		Missing:     ci.missing,
	}
	for _, def := range ci.seriesDefs() {
		ys := make([]float64, len(ci.rows)) // the values
		zs := make([]float64, len(ci.rows)) // what the detector sees
		n := 0
		for i := range ci.rows {
			ys[i] = def.value(&ci.rows[i])
			if math.IsInf(ys[i], 0) {
				ys[i] = math.NaN() // a file's "Inf": no value, and no Inf in run.json
			}
			zs[i] = ys[i]
			if def.log {
				zs[i] = math.Log(math.Max(ys[i], 0) + latencyFloor)
			}
			if !math.IsNaN(ys[i]) {
				n++
			}
		}
		s := results.ChangeSeries{Name: def.name, Unit: def.unit, N: n}
		if def.log {
			s.Scale = "log"
		}
		if n < 2*changeMinSegment {
			s.Missing = fmt.Sprintf("%d intervals with a value, fewer than %d", n, 2*changeMinSegment)
			out.Series = append(out.Series, s)
			continue
		}
		beta := cfg.Penalty * math.Log(float64(n))
		res := stats.ChangePoints(zs, stats.ChangeConfig{Penalty: beta, MinSegment: changeMinSegment})
		s.Sigma, s.Rho, s.Beta, s.Found = res.Sigma, res.Rho, res.Penalty, len(res.Changes)
		out.Series = append(out.Series, s)
		for k, cp := range res.Changes {
			from, to := ci.window.From, ci.window.To
			if k > 0 {
				from = ci.starts[res.Changes[k-1].At]
			}
			if k+1 < len(res.Changes) {
				to = ci.starts[res.Changes[k+1].At]
			}
			at := ci.starts[cp.At]
			lo, hi := 0, len(ys)
			if k > 0 {
				lo = res.Changes[k-1].At
			}
			if k+1 < len(res.Changes) {
				hi = res.Changes[k+1].At
			}
			before, after := finiteMean(ys[lo:cp.At]), finiteMean(ys[cp.At:hi])
			c := results.Change{Series: def.name, Unit: def.unit, AtS: ci.x(at), SinceS: at.Sub(ci.window.From).Seconds(),
				Before: before, After: after, FromS: ci.x(from), ToS: ci.x(to)}
			if before != 0 {
				r := after/before - 1
				c.Relative = &r
			}
			c.Matched = ci.match(at)
			c.Unexplained = len(c.Matched) == 0
			c.Waits, c.FPI = ci.context(from, at, to)
			out.Changes = append(out.Changes, c)
		}
	}
	slices.SortStableFunc(out.Changes, func(a, b results.Change) int { return cmp.Compare(a.AtS, b.AtS) })
	out.Quiet = ci.quiet(out.Changes)
	return out
}

// errorBursts are the runs of consecutive measured intervals whose failed
// count jumps: at least 2·b + 5 failures, b the median failures per
// interval over the window (twice the usual and at least five more), as
// occurrences from the first interval's start to the last one's end.
func errorBursts(rows []results.TimelineRow, starts []time.Time) []results.Occurrence {
	if len(rows) == 0 {
		return nil
	}
	failed := make([]float64, len(rows))
	for i, r := range rows {
		failed[i] = float64(r.Failed)
	}
	threshold := 2*stats.Median(failed) + 5
	var out []results.Occurrence
	for i := 0; i < len(rows); i++ {
		if failed[i] < threshold {
			continue
		}
		j, total := i, int64(0)
		for j < len(rows) && failed[j] >= threshold {
			total += rows[j].Failed
			j++
		}
		out = append(out, results.Occurrence{Kind: results.OccurErrorBurst, Start: starts[i], End: rows[j-1].Time, Count: total,
			Label: fmt.Sprintf("error burst (%d failed in %d %s)", total, j-i, plural(j-i, "interval", "intervals"))})
		i = j
	}
	return out
}

// finiteMean is the mean of xs' values that are not NaN (0 when none).
func finiteMean(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// trimFloat is v without trailing zeros: 3 → "3", 2.5 → "2.5".
func trimFloat(v float64) string { return fmt.Sprintf("%g", v) }
