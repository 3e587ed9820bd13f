package explain

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Associations' sizes.
const (
	// assocTopEvents is how many wait events (by samples) are correlated,
	// besides every wait type.
	assocTopEvents = 10
	// assocMinSamples is the fewest samples a wait needs over the window,
	// assocMinActive the fewest intervals in which it was seen, for its
	// correlations to be computed; assocMinIntervals the fewest measured
	// intervals a run needs for any.
	assocMinSamples   = 30
	assocMinActive    = 3
	assocMinIntervals = 10
	// assocAlpha is the family-wise level of the "association" label
	// (Holm over the waits ranked).
	assocAlpha = 0.05
)

// rankFormula is the ranking that replaces pg_expecto's "weighted
// correlation" (ВКО = r(WAITINGS, T) × T's mid-range share) and "integral
// priority" (an AHP-weighted min–max score of r, p, ВКО and R²). What they
// try to say is "how much of the active time goes to a wait that moves
// with slowness": Score = share × max(0, ρ_slow), the wait's share of
// active samples over the window times its rank correlation with slowdown
// across intervals (negative correlations count 0). Unlike ВКО, ρ is with
// the run's latency or speed, not with the sum of the waits (of which the
// wait is a part: part-whole correlation); unlike the integral priority it
// is not rescaled against the other waits, so a score means the same in
// every run, and its p-value allows for autocorrelation (effective n).
const rankFormula = "score = share of active samples × max(0, ρ with slowdown); ρ Spearman across intervals, p with the effective n (lag-1 autocorrelation), Holm over the waits ranked"

// associations is the run's waits against speed and latency across the
// measured intervals: for each wait type and each of the top wait events
// (waits.csv, client backends), Spearman's ρ of its per-interval share of
// active samples with tps and with the response p99 (timeline.csv), and
// the ranking (rankFormula). Associations, not causes.
//
// Speed is tps (committed/s of timeline.csv): pg_stat_statements is read
// at phase marks only (statements.csv has one row per statement and phase),
// so calls/s has no per-interval series.
func associations(in *runInput) (*results.Associations, []string) {
	iv, why := loadIntervals(in.dir, in.run)
	if why != "" {
		return nil, []string{"associations: missing (" + why + ")"}
	}
	if iv.n() < assocMinIntervals {
		return nil, []string{fmt.Sprintf("associations: missing (%d measured intervals with waits and timeline rows; at least %d are needed)", iv.n(), assocMinIntervals)}
	}
	a := &results.Associations{Intervals: iv.n(), IntervalS: iv.ivl, Class: iv.class, Model: in.run.Model.Kind,
		Method: "Spearman's ρ of the wait's share of active samples per interval with tps and with the response p99 " +
			"(speed per interval is tps: pg_stat_statements is read per phase, so calls/s has no per-interval series)",
		Formula:    rankFormula,
		MinSamples: assocMinSamples}
	closed := in.run.Model.Kind == results.ModelClosed
	a.Slowdown = "p99 (open model: tps follows the arrival schedule)"
	if closed {
		a.Slowdown = "−tps (closed model: the clients' own rate is the speed)"
	}
	for _, k := range iv.candidates(assocTopEvents) {
		if iv.samples[k] < assocMinSamples || iv.active(k) < assocMinActive {
			a.Left++
			continue
		}
		share := iv.share[k]
		w := results.WaitAssociation{Type: k.typ, Event: k.event, Samples: iv.samples[k],
			Share:   float64(iv.samples[k]) / float64(iv.total),
			Speed:   stats.Spearman(share, iv.tps),
			Latency: stats.Spearman(share, iv.p99)}
		if iv.ticks > 0 {
			w.AvgSessions = float64(iv.samples[k]) / float64(iv.ticks)
		}
		w.Slow = w.Latency
		if closed {
			w.Slow = w.Speed
			w.Slow.R = -w.Slow.R
		}
		w.Score = w.Share * max(0, w.Slow.R)
		a.Waits = append(a.Waits, w)
	}
	rankWaits(a.Waits)
	return a, nil
}

// rankWaits sorts waits by Score (then Share) and sets Holm's adjusted p
// of their slowdown associations over the family.
func rankWaits(ws []results.WaitAssociation) {
	slices.SortStableFunc(ws, func(a, b results.WaitAssociation) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Share, a.Share))
	})
	ps := make([]float64, len(ws))
	for i, w := range ws {
		ps[i] = w.Slow.P
		if !w.Slow.OK {
			ps[i] = math.NaN()
		}
	}
	for i, h := range stats.Holm(ps, assocAlpha) {
		ws[i].Holm = h.Adjusted
	}
}

// waitKey is a wait type (event "") or a wait event.
type waitKey struct{ typ, event string }

// intervals are a run's measured intervals joined across timeline.csv and
// waits.csv: per joined interval, tps, the response p99 and each wait's
// share of the interval's active samples (NaN when it had none).
type intervals struct {
	ivl     float64 // interval length, s
	class   string  // waits.csv's class used
	tps     []float64
	p99     []float64
	share   map[waitKey][]float64
	samples map[waitKey]int64 // over the window
	total   int64             // active samples over the window
	ticks   int64             // sampling ticks over the window
}

func (iv *intervals) n() int { return len(iv.tps) }

// active is how many intervals had samples of k.
func (iv *intervals) active(k waitKey) int {
	n := 0
	for _, v := range iv.share[k] {
		if v > 0 {
			n++
		}
	}
	return n
}

// candidates are every wait type, then the top events by samples, each
// in descending order of samples (ties by name).
func (iv *intervals) candidates(topEvents int) []waitKey {
	var types, events []waitKey
	for k := range iv.samples {
		if k.event == "" {
			types = append(types, k)
		} else {
			events = append(events, k)
		}
	}
	order := func(a, b waitKey) int {
		return cmp.Or(cmp.Compare(iv.samples[b], iv.samples[a]), cmp.Compare(a.typ, b.typ), cmp.Compare(a.event, b.event))
	}
	slices.SortFunc(types, order)
	slices.SortFunc(events, order)
	if len(events) > topEvents {
		events = events[:topEvents]
	}
	// A type that is one event (all its samples) is the event's row.
	types = slices.DeleteFunc(types, func(t waitKey) bool {
		return slices.ContainsFunc(events, func(e waitKey) bool { return e.typ == t.typ && iv.samples[e] == iv.samples[t] })
	})
	return append(types, events...)
}

// loadIntervals joins a run's measured intervals of timeline.csv and
// waits.csv by their interval number round(elapsed_s / interval); why says
// what is missing ("" none).
func loadIntervals(dir string, run *results.Run) (*intervals, string) {
	w := results.MeasuredWindow(run)
	if !w.Known() {
		return nil, "run.json has no measured phase"
	}
	tl, err := results.ReadTimeline(dir)
	if err != nil {
		return nil, readWhy(run, "timeline", results.TimelineFile, err)
	}
	wr, err := results.ReadWaits(dir)
	if err != nil {
		return nil, readWhy(run, results.EvidenceWaits, results.WaitsFile, err)
	}
	ivl := medianGap(len(tl), func(i int) float64 { return tl[i].Elapsed })
	slot := func(elapsed float64) int64 { return int64(math.Round(elapsed / ivl)) }
	type point struct{ tps, p99 float64 }
	byslot := map[int64]point{}
	var slots []int64
	for _, r := range tl {
		if !w.Holds(r.Time, secondsDur(ivl)) {
			continue
		}
		s := slot(r.Elapsed)
		if _, dup := byslot[s]; !dup {
			slots = append(slots, s)
		}
		p99 := r.ResponseP99
		if r.Committed == 0 {
			p99 = math.NaN() // no response: no quantile
		}
		byslot[s] = point{r.TPS, p99}
	}
	if len(slots) == 0 {
		return nil, results.TimelineFile + " has no interval in the measured window"
	}
	// The class: client backends, else a profile kept without pids.
	class := ""
	for _, r := range wr {
		if r.Class == "client" {
			class = "client"
			break
		}
		if r.Class == "all" {
			class = "all"
		}
	}
	if class == "" {
		return nil, results.WaitsFile + " has no client backends' samples"
	}
	wivl := medianGap(len(wr), func(i int) float64 { return wr[i].Elapsed })
	type cell struct {
		total int64
		by    map[waitKey]int64
		ticks int64
	}
	cells := map[int64]*cell{}
	iv := &intervals{ivl: ivl, class: class, share: map[waitKey][]float64{}, samples: map[waitKey]int64{}}
	for _, r := range wr {
		if r.Class != class || !w.Holds(r.Time, secondsDur(wivl)) {
			continue
		}
		s := slot(r.Elapsed)
		if _, ok := byslot[s]; !ok {
			continue
		}
		c := cells[s]
		if c == nil {
			c = &cell{by: map[waitKey]int64{}, ticks: r.Ticks}
			cells[s] = c
			iv.ticks += r.Ticks
		}
		if r.Type == "" && r.Event == "" || r.Samples <= 0 {
			continue
		}
		typ := waitTypeClass(r.Type)
		for _, k := range []waitKey{{typ, ""}, {typ, r.Event}} {
			c.by[k] += r.Samples
			iv.samples[k] += r.Samples
		}
		c.total += r.Samples
		iv.total += r.Samples
	}
	if iv.total == 0 {
		return nil, results.WaitsFile + " has no active samples in the measured window"
	}
	slices.Sort(slots)
	for _, s := range slots {
		c := cells[s]
		if c == nil {
			continue // no waits row for this interval
		}
		p := byslot[s]
		iv.tps = append(iv.tps, p.tps)
		iv.p99 = append(iv.p99, p.p99)
		for k := range iv.samples {
			v := math.NaN()
			if c.total > 0 {
				v = float64(c.by[k]) / float64(c.total)
			}
			iv.share[k] = append(iv.share[k], v)
		}
	}
	return iv, ""
}

// waitTypeClass is the wait type under the name it has in every version
// (PostgreSQL 19 renamed BufferPin to Buffer), as collect.WaitTypeClass.
func waitTypeClass(typ string) string {
	if typ == "BufferPin" {
		return "Buffer"
	}
	return typ
}
