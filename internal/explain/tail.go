package explain

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// tail is why the run's slowest transactions were slow (results.Tail): the
// rows of slow.csv that ended in the measured window with a response time
// above the window's p99, each joined to
//
//   - the samples of activity.csv of its backend's pid taken in [actual
//     start, end], its service time (during its lag, the part of its
//     response before it started, no backend worked for it): its wait is
//     the state of most of them, a sample in which the pid was not active
//     counting as "idle". In the open model, a transaction whose lag is
//     the larger part of its response time is given instead the state of
//     its connection's backend during [intended start, actual start]: what
//     kept that connection busy (the earlier transactions it ran) until
//     this one could start — the queueing behind stalled connections;
//   - the occurrences of events.jsonl (results.Occurrences) whose span
//     overlaps [intended start, end].
//
// The transactions are grouped by (wait, occurrence). It is nil, with a
// warning that says why, when slow.csv or activity.csv is missing or the
// run has no measured window or p99.
func tail(in *runInput) (*results.Tail, []string) {
	run := in.run
	if run == nil || run.Summary == nil || run.Summary.Total.Response.P99 <= 0 {
		return nil, []string{"tail: not explained: the run has no response-time p99 (no transaction in the measured window)"}
	}
	win := results.MeasuredWindow(run)
	if !win.Known() {
		return nil, []string{"tail: not explained: run.json has no measured window"}
	}
	slow, err := results.ReadSlow(in.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, []string{"tail: not explained: the run has no " + results.SlowFile +
			" (written by a pgtrial that did not keep the slowest transactions)"}
	case err != nil:
		return nil, []string{fmt.Sprintf("tail: not explained: %v", err)}
	case len(slow) == 0:
		return nil, []string{"tail: not explained: " + results.SlowFile + " has no rows"}
	}
	act, err := results.ReadActivity(in.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, []string{"tail: not explained: " + activityMissing(in)}
	case err != nil:
		return nil, []string{fmt.Sprintf("tail: not explained: %v", err)}
	}
	var warns []string
	if len(act) == 0 {
		warns = append(warns, "tail: "+results.ActivityFile+" has no samples: no backend's wait can be named (every transaction shows as not sampled)")
	}
	var occ []results.Occurrence
	if events, err := results.ReadEvents(in.dir); err != nil {
		warns = append(warns, fmt.Sprintf("tail: no occurrences to match the slow transactions to: %v", err))
	} else {
		occ = results.Occurrences(events)
	}
	zero := cmp.Or(run.BenchStart, run.StartedAt)
	j := newTailJoin(zero, win, act, occ)
	return j.explain(run, slow), warns
}

// activityMissing says why a run has no activity.csv.
func activityMissing(in *runInput) string {
	if !slices.Contains(in.run.Collectors, results.EvidenceWaits) {
		return "the run has no " + results.ActivityFile + ": the waits collector did not run (--no-collect, or --collect without waits)"
	}
	if rows, err := results.ReadWaits(in.dir); err == nil {
		for _, r := range rows {
			if r.Source == "pg_wait_sampling" {
				return "the run has no " + results.ActivityFile + ": its waits came from pg_wait_sampling, whose profile has no " +
					"per-session states; the backends are sampled by pid only with --wait-source activity"
			}
		}
	}
	if _, err := os.Stat(filepath.Join(in.dir, results.WaitsFile)); err != nil {
		return "the run has no " + results.ActivityFile + " (and no " + results.WaitsFile + ")"
	}
	return "the run has no " + results.ActivityFile + " (written by a pgtrial that did not sample the backends by pid)"
}

// lookback is how long before the instant it was seen an occurrence seen
// only at the end of a collector's interval (autovacuum, a first error) is
// taken to have been going on: the collectors' default interval, 1 s.
const lookback = 1.0

// occurrence is an occurrence as a span of the run's clock, s.
type occurrence struct {
	results.Occurrence
	from, to float64
	label    string // Label with its span
}

// tailJoin holds activity.csv indexed for the join.
type tailJoin struct {
	byPID    map[uint32][]results.ActivityRow // by Elapsed
	instants []float64                        // every sample's instant, sorted, distinct
	periodMs float64
	occ      []occurrence
}

func newTailJoin(zero time.Time, win results.Window, act []results.ActivityRow, occ []results.Occurrence) *tailJoin {
	j := &tailJoin{byPID: map[uint32][]results.ActivityRow{}}
	seen := map[float64]bool{}
	for _, r := range act {
		if !seen[r.Elapsed] {
			seen[r.Elapsed] = true
			j.instants = append(j.instants, r.Elapsed)
		}
		if r.PeriodMs > 0 {
			j.periodMs = max(j.periodMs, r.PeriodMs)
		}
		if r.PID != 0 {
			j.byPID[r.PID] = append(j.byPID[r.PID], r)
		}
	}
	slices.Sort(j.instants)
	for _, rows := range j.byPID {
		slices.SortStableFunc(rows, func(a, b results.ActivityRow) int { return cmp.Compare(a.Elapsed, b.Elapsed) })
	}
	if j.periodMs == 0 && len(j.instants) > 1 {
		// An older file without period_ms: the median gap between samples.
		gaps := make([]float64, 0, len(j.instants)-1)
		for i := 1; i < len(j.instants); i++ {
			gaps = append(gaps, j.instants[i]-j.instants[i-1])
		}
		slices.Sort(gaps)
		j.periodMs = 1000 * gaps[len(gaps)/2]
	}
	sec := func(t time.Time) float64 { return t.Sub(zero).Seconds() }
	for _, o := range occ {
		from, to := o.Span(zero, win.To)
		f, t := sec(from), sec(to)
		switch o.Kind {
		case results.OccurAutovacuum, results.OccurError, results.OccurConnection:
			f = t - lookback
		}
		label := o.Label
		if t > f {
			label += fmt.Sprintf(" at %.1f–%.1f s", f, t)
		} else {
			label += fmt.Sprintf(" at %.1f s", f)
		}
		j.occ = append(j.occ, occurrence{Occurrence: o, from: f, to: t, label: label})
	}
	return j
}

// attribution is one slow transaction joined.
type attribution struct {
	row      results.SlowRow
	wait     string
	relation string
	part     string  // results.TailService or TailLag: the span its wait is of
	samples  int     // of its pid in that span
	share    float64 // wait's share of the samples taken in that span
	occ      []int   // indexes of j.occ that overlapped it, the one it is grouped with first
}

// explained says whether a transaction has an explanation: an occurrence
// overlapped it, or its backend was seen in a wait event of the server
// (not CPU, not idle, not unsampled).
func (a *attribution) explained() bool {
	return len(a.occ) > 0 || isServerWait(a.wait)
}

func isServerWait(w string) bool {
	switch w {
	case "CPU", results.TailIdle, results.TailNotSampled, results.TailNoPID:
		return false
	}
	return !strings.HasPrefix(w, "idle")
}

func (j *tailJoin) explain(run *results.Run, slow []results.SlowRow) *results.Tail {
	resp := run.Summary.Total.Response
	win := results.MeasuredWindow(run)
	zero := cmp.Or(run.BenchStart, run.StartedAt)
	from, to := win.From.Sub(zero).Seconds(), win.To.Sub(zero).Seconds()
	t := &results.Tail{P99Ms: resp.P99, Above: resp.Beyond(0.99), PerInterval: results.SlowPerInterval,
		SamplePeriodMs: j.periodMs, Open: run.Model.Kind == results.ModelOpen}

	// The cap: intervals of the window that kept PerInterval rows, the
	// fastest of them still above the p99.
	type ivStat struct {
		n       int
		fastest float64
	}
	ivs := map[float64]*ivStat{}
	var atts []attribution
	for _, r := range slow {
		if !(r.EndS > from && r.EndS <= to) {
			continue
		}
		s := ivs[r.Elapsed]
		if s == nil {
			s = &ivStat{fastest: r.ResponseMs}
			ivs[r.Elapsed] = s
		}
		s.n++
		s.fastest = min(s.fastest, r.ResponseMs)
		if r.ResponseMs > resp.P99 {
			atts = append(atts, j.attribute(r, t.Open))
		}
	}
	for _, s := range ivs {
		if s.n >= results.SlowPerInterval && s.fastest > resp.P99 {
			t.CappedIntervals++
		}
	}
	t.Kept = len(atts)

	type gkey struct{ wait, relation, part, occ string }
	groups := map[gkey]*results.TailGroup{}
	occCount := make([]int, len(j.occ))
	for i := range atts {
		a := &atts[i]
		r := a.row
		t.ResponseMs += r.ResponseMs
		t.ServiceMs += r.ServiceMs
		t.LagMs += r.LagMs
		if a.wait == results.TailNotSampled {
			t.NotSampled++
			span := r.ServiceMs
			if a.part == results.TailLag {
				span = r.LagMs
			}
			if j.periodMs > 0 && span < j.periodMs {
				t.ShorterThanPeriod++
			}
		}
		if !a.explained() {
			t.Unexplained++
		}
		for _, o := range a.occ {
			occCount[o]++
		}
		k := gkey{wait: a.wait, relation: a.relation, part: a.part}
		if len(a.occ) > 0 {
			k.occ = j.occ[a.occ[0]].label
		}
		g := groups[k]
		if g == nil {
			g = &results.TailGroup{Wait: k.wait, Relation: k.relation, Part: k.part, Occurrence: k.occ}
			groups[k] = g
		}
		g.Count++
		g.ResponseMs += r.ResponseMs
		g.ServiceMs += r.ServiceMs
		g.LagMs += r.LagMs
		g.MaxMs = max(g.MaxMs, r.ResponseMs)
	}
	t.Groups = make([]results.TailGroup, 0, len(groups))
	for _, g := range groups {
		if t.Kept > 0 {
			g.Share = float64(g.Count) / float64(t.Kept)
		}
		t.Groups = append(t.Groups, *g)
	}
	slices.SortFunc(t.Groups, func(a, b results.TailGroup) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Wait, b.Wait), cmp.Compare(a.Relation, b.Relation), cmp.Compare(a.Part, b.Part),
			cmp.Compare(a.Occurrence, b.Occurrence))
	})
	for i, o := range j.occ {
		if occCount[i] > 0 {
			t.Occurrences = append(t.Occurrences, results.TailOccurrence{Kind: o.Kind, Label: o.label, FromS: o.from, ToS: o.to, Count: occCount[i]})
		}
	}
	slices.SortStableFunc(atts, func(a, b attribution) int { return cmp.Compare(b.row.ResponseMs, a.row.ResponseMs) })
	for _, a := range atts[:min(len(atts), results.TailSlowest)] {
		r := a.row
		tx := results.TailTx{Script: r.Script, Outcome: r.Outcome, Client: r.Client, PID: r.PID, IntendedS: r.IntendedS, EndS: r.EndS,
			ResponseMs: r.ResponseMs, ServiceMs: r.ServiceMs, LagMs: r.LagMs, Wait: a.wait, Relation: a.relation,
			Part: a.part, Samples: a.samples, WaitShare: a.share}
		if len(a.occ) > 0 {
			tx.Occurrence = j.occ[a.occ[0]].label
		}
		t.Slowest = append(t.Slowest, tx)
	}
	t.Summary = tailSummary(t)
	return t
}

// attribute joins one slow transaction to its backend's samples and to
// the occurrences. Its part is its service time, or in the open model its
// lag when the lag is the larger part of its response time: then the
// samples are those of its connection's backend during the lag, what kept
// that connection busy (the earlier transactions it was running) until
// this one could start.
func (j *tailJoin) attribute(r results.SlowRow, open bool) attribution {
	a := attribution{row: r, part: results.TailService}
	from, to := r.StartS, r.EndS
	if open && r.LagMs > r.ServiceMs {
		a.part, from, to = results.TailLag, r.IntendedS, r.StartS
	}
	if r.PID == 0 {
		a.wait = results.TailNoPID
	} else {
		a.wait, a.relation, a.samples, a.share = j.tally(r.PID, from, to)
	}
	for i, o := range j.occ {
		if o.from <= r.EndS && o.to >= r.IntendedS {
			a.occ = append(a.occ, i)
		}
	}
	// The occurrence it is grouped with: the one that fits its wait best.
	slices.SortStableFunc(a.occ, func(x, y int) int { return cmp.Compare(occRank(j.occ[x], a), occRank(j.occ[y], a)) })
	return a
}

// tally is what the backend pid was doing in [from, to] on the run's
// clock (s): the state of most of the samples taken then (a sample without
// the pid saw it idle; ties go to a wait event of the server, then by
// name), the relation of a Lock wait, the pid's samples and the state's
// share of the samples taken; TailNotSampled when no sample was taken.
func (j *tailJoin) tally(pid uint32, from, to float64) (wait, relation string, samples int, share float64) {
	lo := sort.SearchFloat64s(j.instants, from)
	hi := sort.Search(len(j.instants), func(i int) bool { return j.instants[i] > to })
	taken := hi - lo
	rows := j.byPID[pid]
	plo := sort.Search(len(rows), func(i int) bool { return rows[i].Elapsed >= from })
	phi := sort.Search(len(rows), func(i int) bool { return rows[i].Elapsed > to })
	mine := rows[plo:phi]
	if taken == 0 {
		return results.TailNotSampled, "", len(mine), 0
	}
	type wk struct{ wait, relation string }
	counts := map[wk]int{}
	for _, s := range mine {
		k := wk{wait: s.Wait(), relation: s.Relation}
		if strings.HasPrefix(s.State, "idle") {
			k = wk{wait: s.State}
		}
		counts[k]++
	}
	if idle := taken - len(mine); idle > 0 {
		counts[wk{wait: results.TailIdle}] += idle
	}
	var best wk
	bestN := -1
	for k, n := range counts {
		better := n > bestN
		if n == bestN {
			bw, kw := isServerWait(best.wait), isServerWait(k.wait)
			better = kw && !bw || kw == bw && (k.wait < best.wait || k.wait == best.wait && k.relation < best.relation)
		}
		if better {
			best, bestN = k, n
		}
	}
	return best.wait, best.relation, len(mine), float64(bestN) / float64(taken)
}

// occRank orders the occurrences a transaction overlapped, the likeliest
// cause of its wait first: an injected stall on the relation it waited for,
// autovacuum of it, any injected stall, a checkpoint, autovacuum of another
// table, a lost connection, an error burst, the end of the run.
func occRank(o occurrence, a attribution) int {
	onIt := a.relation != "" && o.Table != "" && (o.Table == a.relation || strings.HasSuffix(a.relation, "."+o.Table))
	switch {
	case o.Kind == results.OccurStall && onIt:
		return 0
	case o.Kind == results.OccurAutovacuum && onIt:
		return 1
	case o.Kind == results.OccurStall:
		return 2
	case o.Kind == results.OccurCheckpoint:
		return 3
	case o.Kind == results.OccurAutovacuum:
		return 4
	case o.Kind == results.OccurConnection:
		return 5
	case o.Kind == results.OccurError:
		return 6
	}
	return 7
}

// tailGroupsInSummary is how many groups the summary names; the table has
// them all.
const tailGroupsInSummary = 4

// tailSummary is the finding in words: "of 412 transactions above p99
// (8.2 ms), 380 (92 %) waited on Lock:relation (pgbench_accounts) during
// the injected lock …; 7 unexplained (…)", the lag/service split in the
// open model, the sampling period.
func tailSummary(t *results.Tail) []string {
	if t.Kept == 0 {
		s := fmt.Sprintf("no transaction of %s is above the p99 of response time (%s ms)", results.SlowFile, format.Ms(t.P99Ms))
		if t.Above > 0 {
			s += fmt.Sprintf(", though ~%s are by the histogram: %s missed them", format.Count(t.Above), results.SlowFile)
		}
		return []string{s}
	}
	head := fmt.Sprintf("of %s %s above p99 (%s ms", format.Count(int64(t.Kept)), format.Plural(t.Kept, "transaction", "transactions"), format.Ms(t.P99Ms))
	if t.CappedIntervals > 0 {
		head += fmt.Sprintf("; %s kept of ~%s above it: %s keeps the slowest %d per interval, and %d %s reached that cap",
			format.Count(int64(t.Kept)), format.Count(t.Above), results.SlowFile, t.PerInterval, t.CappedIntervals,
			format.Plural(t.CappedIntervals, "interval", "intervals"))
	}
	head += ")"
	var parts []string
	named := 0
	for _, g := range t.Groups {
		if g.Occurrence == "" && !isServerWait(g.Wait) {
			continue // among the unexplained
		}
		if named == tailGroupsInSummary {
			parts = append(parts, "more in the table")
			break
		}
		named++
		parts = append(parts, fmt.Sprintf("%s (%s) %s", format.Count(int64(g.Count)), format.Pct(g.Share), groupPhrase(g)))
	}
	if t.Unexplained > 0 {
		u := fmt.Sprintf("%s unexplained", format.Count(int64(t.Unexplained)))
		var why []string
		for _, g := range t.Groups {
			if g.Occurrence == "" && !isServerWait(g.Wait) {
				w := fmt.Sprintf("%s %s", format.Count(int64(g.Count)), shortWait(g.Wait))
				if g.Part == results.TailLag {
					w += " in their lag"
				}
				why = append(why, w)
			}
		}
		parts = append(parts, u+" ("+strings.Join(why, ", ")+", no occurrence overlapping them)")
	}
	out := []string{head + ", " + strings.Join(parts, "; ")}
	if t.NotSampled > 0 {
		s := fmt.Sprintf("not sampled: %s with no sample of the backends in their service time (or their lag, when they mostly queued)", format.Count(int64(t.NotSampled)))
		if t.SamplePeriodMs > 0 {
			s += fmt.Sprintf(" (the backends were sampled once every %s ms", format.Ms(t.SamplePeriodMs))
			if t.ShorterThanPeriod > 0 {
				s += fmt.Sprintf("; %s of them ran for less than that, so a sample could well miss them", format.Count(int64(t.ShorterThanPeriod)))
			}
			s += ")"
		}
		out = append(out, s+": nothing is said of why they were slow")
	}
	if t.Open && t.ResponseMs > 0 {
		out = append(out, fmt.Sprintf("of their %s of response time, %s (%s) was lag: queueing in the load generator, "+
			"their start due while every connection was busy (no backend worked for them then), and %s (%s) service: "+
			"their backends running or waiting",
			format.Seconds(t.ResponseMs/1000), format.Seconds(t.LagMs/1000), format.Pct(t.LagMs/t.ResponseMs),
			format.Seconds(t.ServiceMs/1000), format.Pct(t.ServiceMs/t.ResponseMs)))
	} else if !t.Open {
		out = append(out, "closed model: response time is service time (no schedule, no lag)")
	}
	out = append(out, "an association in time, not a proof of cause: each transaction is given the state most of its "+
		"backend's samples show and the occurrences its span overlapped")
	return out
}

// groupPhrase is "waited on Lock:relation (pgbench_accounts) during the
// injected lock on pgbench_accounts, 3 s at 10.0–13.0 s".
func groupPhrase(g results.TailGroup) string {
	s := waitPhrase(g.Wait, g.Relation, g.Part)
	if g.Occurrence != "" {
		s += " during the " + g.Occurrence
	}
	return s
}

// waitPhrase is what a transaction's backend did in its part, in words.
func waitPhrase(wait, relation, part string) string {
	if part == results.TailLag {
		// Its connection's backend during its lag: what kept it busy.
		conn := "queued while their connection's backend "
		switch {
		case wait == "CPU":
			return conn + "was on CPU"
		case wait == results.TailIdle:
			return conn + "was idle (the load generator itself was late)"
		case wait == results.TailNotSampled:
			return "queued, with no sample of their connections in their lag"
		case wait == results.TailNoPID:
			return "queued, on connections of unknown pid"
		case strings.HasPrefix(wait, "idle"):
			return conn + "was " + wait
		case relation != "":
			return conn + "waited on " + wait + " (" + relation + ")"
		}
		return conn + "waited on " + wait
	}
	switch {
	case wait == "CPU":
		return "were on CPU"
	case wait == results.TailIdle:
		return "had their backend idle (the time went outside the server: client, network or pgtrial)"
	case wait == results.TailNotSampled:
		return "were not sampled"
	case wait == results.TailNoPID:
		return "had no known backend pid"
	case strings.HasPrefix(wait, "idle"):
		return "were " + wait + " (waiting for the client)"
	case relation != "":
		return "waited on " + wait + " (" + relation + ")"
	}
	return "waited on " + wait
}

// shortWait is an unexplained transaction's state in a few words.
func shortWait(wait string) string {
	switch wait {
	case "CPU":
		return "on CPU"
	case results.TailIdle:
		return "with an idle backend"
	case results.TailNoPID:
		return "with no backend pid"
	}
	return wait
}
