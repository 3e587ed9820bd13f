package explain

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// The context of a change: what moved between the stretch before it and
// the stretch after it.
const (
	// waitShiftMin is the least move of a wait event's share of the active
	// samples, in share points (0.05: 5 points), for it to be named.
	waitShiftMin = 0.05
	// waitMinSamples is the fewest active samples a stretch needs for its
	// wait mix to be compared (one sample of five moves a share by 20
	// points: the counts are kept with the shares, and shown).
	waitMinSamples = 5
	// waitShiftTop is how many wait events are named at most, largest
	// move first.
	waitShiftTop = 3
	// fpiShiftMin is the least move of the full-page images' share of WAL
	// records (0.05: 5 points) for it to be named.
	fpiShiftMin = 0.05
)

// context compares [from, at) with [at, to): the wait events whose share
// moved most, and the FPI share (nil when either stretch has no WAL
// counters).
func (ci *changeInput) context(from, at, to time.Time) ([]results.WaitShift, *results.ShareShift) {
	before, after := results.Window{From: from, To: at}, results.Window{From: at, To: to}
	return ci.waitShifts(before, after), ci.fpiShift(before, after)
}

// waitMix is one stretch's client waits: samples per event, the active
// samples in all, and the ticks (samples taken) of its intervals.
type waitMix struct {
	samples map[waitKey]int64
	active  int64
	ticks   int64
}

// waitMix sums waits.csv's rows held in w (Window.Holds of each row's
// interval) of the client class (or "all" when the source could not
// classify) and one source (the first a row names), as the run report's
// waits panel does. A row of type "" (no session) is not active.
func (ci *changeInput) waitMix(w results.Window) waitMix {
	m := waitMix{samples: map[waitKey]int64{}}
	if len(ci.waits) == 0 {
		return m
	}
	class, source := "all", ""
	var times []float64
	for _, r := range ci.waits {
		if r.Class == "client" {
			class = "client"
		}
		if source == "" && r.Source != "" {
			source = r.Source
		}
		times = append(times, r.Elapsed)
	}
	length := rowGap(times)
	ticks := map[time.Time]int64{}
	for _, r := range ci.waits {
		if r.Source != source || r.Class != class || !w.Holds(r.Time, length) {
			continue
		}
		ticks[r.Time] = max(ticks[r.Time], r.Ticks)
		if r.Type == "" {
			continue
		}
		m.samples[waitKey{r.Type, r.Event}] += r.Samples
		m.active += r.Samples
	}
	for _, t := range ticks {
		m.ticks += t
	}
	return m
}

// waitShifts are the wait events whose share of the active samples moved
// by waitShiftMin or more between the two stretches, the largest
// waitShiftTop moves first (a rise before a fall of the same size); nil
// when either stretch has fewer than waitMinSamples active samples.
func (ci *changeInput) waitShifts(before, after results.Window) []results.WaitShift {
	b, a := ci.waitMix(before), ci.waitMix(after)
	if b.active < waitMinSamples || a.active < waitMinSamples {
		return nil
	}
	keys := map[waitKey]bool{}
	for k := range b.samples {
		keys[k] = true
	}
	for k := range a.samples {
		keys[k] = true
	}
	sessions := func(m waitMix, k waitKey) float64 {
		if m.ticks == 0 {
			return 0
		}
		return float64(m.samples[k]) / float64(m.ticks)
	}
	var out []results.WaitShift
	for k := range keys {
		sb, sa := float64(b.samples[k])/float64(b.active), float64(a.samples[k])/float64(a.active)
		if math.Abs(sa-sb) < waitShiftMin {
			continue
		}
		out = append(out, results.WaitShift{Type: k.typ, Event: k.event, Before: sb, After: sa,
			SessionsBefore: sessions(b, k), SessionsAfter: sessions(a, k), ActiveBefore: b.active, ActiveAfter: a.active})
	}
	slices.SortFunc(out, func(x, y results.WaitShift) int {
		return cmp.Or(cmp.Compare(math.Abs(y.After-y.Before), math.Abs(x.After-x.Before)),
			cmp.Compare(y.After-y.Before, x.After-x.Before), // on a tie, the rise first
			cmp.Compare(x.Type+":"+x.Event, y.Type+":"+y.Event))
	})
	if len(out) > waitShiftTop {
		out = out[:waitShiftTop]
	}
	return out
}

// fpiShift is Σ wal_fpi / Σ wal_records of server.csv's rows held in each
// stretch (rows where either counter is missing are left out, never taken
// as 0); nil when a stretch has no row with both.
func (ci *changeInput) fpiShift(before, after results.Window) *results.ShareShift {
	if len(ci.server) == 0 {
		return nil
	}
	var times []float64
	for _, r := range ci.server {
		times = append(times, r.ElapsedS)
	}
	length := rowGap(times)
	share := func(w results.Window) (float64, bool) {
		var fpi, records int64
		for _, r := range ci.server {
			if r.WALFPI == nil || r.WALRecords == nil || !w.Holds(r.Time, length) {
				continue
			}
			fpi += *r.WALFPI
			records += *r.WALRecords
		}
		if records <= 0 {
			return 0, false
		}
		return float64(fpi) / float64(records), true
	}
	b, okB := share(before)
	a, okA := share(after)
	if !okB || !okA {
		return nil
	}
	return &results.ShareShift{Before: b, After: a, Moved: math.Abs(a-b) >= fpiShiftMin}
}

// rowGap is the interval of a collector's rows whose times (seconds, in
// time order, several rows to an interval) are times: the median gap
// between distinct values (medianGap), 1 s when there is none.
func rowGap(times []float64) time.Duration {
	return time.Duration(medianGap(len(times), func(i int) float64 { return times[i] }) * float64(time.Second))
}
