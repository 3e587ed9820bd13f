package explain

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// quietSpan bounds the stretches compared around a quiet occurrence's
// start: up to this long on each side, and never across a change. Short,
// because what an occurrence does shows at once and fades: after a
// checkpoint's start the full-page-image share jumps (every first change
// to a page writes one) and decays as the pages are touched; measured with
// checkpoint_timeout = 30s at 300 tx/s, 0.11 in the 5 s before, 0.20 in the
// 5 s after, but 0.15 → 0.17 over 30 s on each side.
const quietSpan = 5 * time.Second

// edge is one instant (or range of instants) of an occurrence that a
// change may be near: a start, an end, or an instant.
type edge struct {
	name     string    // "start", "end", "at"
	from, to time.Time // the range the instant lies in; from == to when known exactly
}

// edges are o's instants a change can be matched to. A checkpoint's start
// lies in (StartFrom, Start] (the sampling period that saw it); an
// autovacuum was seen at Start and ran in the sampling period before it.
// A zero Start (before the records) has no start edge; an end equal to
// the start is not an edge of its own.
func (ci *changeInput) edges(o results.Occurrence) []edge {
	var out []edge
	switch o.Kind {
	case results.OccurCheckpoint, results.OccurStall, results.OccurErrorBurst:
		if !o.Start.IsZero() {
			from := o.Start
			if !o.StartFrom.IsZero() && o.StartFrom.Before(o.Start) {
				from = o.StartFrom
			}
			out = append(out, edge{"start", from, o.Start})
		}
		if !o.End.IsZero() && o.End.After(o.Start) {
			out = append(out, edge{"end", o.End, o.End})
		}
	case results.OccurAutovacuum:
		if !o.Start.IsZero() {
			out = append(out, edge{"at", o.Start.Add(-ci.interval), o.Start})
		}
	default:
		if !o.Start.IsZero() {
			out = append(out, edge{"at", o.Start, o.Start})
		}
	}
	return out
}

// distance is how far t lies from e's range, 0 inside it.
func (e edge) distance(t time.Time) time.Duration {
	switch {
	case t.Before(e.from):
		return e.from.Sub(t)
	case t.After(e.to):
		return t.Sub(e.to)
	}
	return 0
}

// matchIdx are the occurrences (indices into ci.occurrences) with an edge
// within ±Match of at, and the matches, nearest first. An occurrence is
// matched once, by its edge nearest to the change (a 3 s lock's start is
// 3 s from a change at its end: the end is what is named).
func (ci *changeInput) matchIdx(at time.Time) ([]int, []results.ChangeMatch) {
	type m struct {
		i int
		c results.ChangeMatch
		d time.Duration
	}
	var found []m
	for i, o := range ci.occurrences {
		best := m{i: -1}
		for _, e := range ci.edges(o) {
			if d := e.distance(at); d <= ci.cfg.Match && (best.i < 0 || d < best.d) {
				best = m{i, results.ChangeMatch{Kind: o.Kind, Label: o.Label, Edge: e.name,
					AtS: ci.x(e.to), OffsetS: math.Round(signed(e, at).Seconds()*1000) / 1000}, d}
			}
		}
		if best.i >= 0 {
			found = append(found, best)
		}
	}
	slices.SortStableFunc(found, func(a, b m) int { return cmp.Compare(a.d, b.d) })
	var idx []int
	var out []results.ChangeMatch
	for _, f := range found {
		idx = append(idx, f.i)
		out = append(out, f.c)
	}
	return idx, out
}

// signed is e's offset from at: positive when e lies after it, 0 when at
// is inside e's range.
func signed(e edge, at time.Time) time.Duration {
	switch {
	case at.Before(e.from):
		return e.from.Sub(at)
	case at.After(e.to):
		return e.to.Sub(at)
	}
	return 0
}

func (ci *changeInput) match(at time.Time) []results.ChangeMatch {
	_, out := ci.matchIdx(at)
	return out
}

// quiet are the occurrences with an edge in the measured window that no
// change was matched to, with the context around
// their start (their end when the start is outside the window): the
// stretch before against the stretch after, each up to quietSpan and not
// across a change.
func (ci *changeInput) quiet(changes []results.Change) []results.QuietOccurrence {
	matched := map[int]bool{}
	var at []time.Time // the changes' times
	for _, c := range changes {
		t := ci.zero.Add(time.Duration(c.AtS * float64(time.Second)))
		at = append(at, t)
		idx, _ := ci.matchIdx(t)
		for _, i := range idx {
			matched[i] = true
		}
	}
	from, to := ci.window.From, ci.window.To
	in := func(t time.Time) bool { return !t.IsZero() && !t.Before(ci.window.From) && !t.After(ci.window.To) }
	var out []results.QuietOccurrence
	for i, o := range ci.occurrences {
		if matched[i] {
			continue
		}
		near := false
		for _, e := range ci.edges(o) {
			if !e.to.Before(from) && !e.from.After(to) {
				near = true
			}
		}
		if !near {
			continue
		}
		q := results.QuietOccurrence{Kind: o.Kind, Label: o.Label}
		if !o.Start.IsZero() {
			q.StartS = ptr(ci.x(o.Start))
		}
		if !o.End.IsZero() && o.End.After(o.Start) {
			q.EndS = ptr(ci.x(o.End))
		}
		ref := o.Start
		if !in(ref) {
			ref = o.End
		}
		if in(ref) {
			a, b := ref.Add(-quietSpan), ref.Add(quietSpan)
			a, b = later(a, ci.window.From), earlier(b, ci.window.To)
			for _, t := range at {
				if t.Before(ref) || t.Equal(ref) {
					a = later(a, t)
				}
				if t.After(ref) {
					b = earlier(b, t)
				}
			}
			q.FromS, q.ToS = ci.x(a), ci.x(b)
			q.Waits, q.FPI = ci.context(a, ref, b)
		}
		out = append(out, q)
	}
	return out
}

func ptr(v float64) *float64 { return &v }

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
