package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/explain"
	"github.com/pgtrial/pgtrial/internal/report/chart"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// changesBlocks are the changes in a run's timeline: one line per time
// with a change ("tps −40 % (1,200 → 720 tx/s) at 31 s, with autovacuum
// of pgbench_accounts at 30.2 s; Lock:transactionid 3 % → 41 % of active
// time"), one per occurrence without a change, or the explicit "no level
// shift", then the method and what each series rests on.
func changesBlocks(c *results.Changes) []Block {
	if c == nil {
		return nil
	}
	title := fmt.Sprintf("changes in the timeline (level shifts; times in s since the bench start, measured window %s–%s s)",
		secs(c.WindowFromS), secs(c.WindowToS))
	var lines []string
	for _, g := range changeGroups(c.Changes) {
		lines = append(lines, changeSentence(g, c.MatchS, false))
	}
	names := seriesNames(c)
	if len(c.Changes) == 0 {
		lines = append(lines, "no level shift in "+names)
	}
	for _, q := range c.Quiet {
		lines = append(lines, quietSentence(q, names, c.MatchS))
	}
	var basis []string
	for _, s := range c.Series {
		if s.Missing != "" {
			basis = append(basis, s.Name+": "+format.Missing+" ("+s.Missing+")")
			continue
		}
		sigma := "σ = " + format.Sig3(s.Sigma) + " " + s.Unit
		if s.Scale == "log" {
			sigma = "σ of ln " + s.Name + " = " + format.Sig3(s.Sigma)
		}
		basis = append(basis, fmt.Sprintf("%s n = %d intervals, %s, ρ = %s, %d %s",
			s.Name, s.N, sigma, strconv.FormatFloat(s.Rho, 'f', 2, 64), s.Found, format.Plural(s.Found, "change", "changes")))
	}
	lines = append(lines, fmt.Sprintf("method: %s; %s; an occurrence is matched when its start or end lies within ±%s s of a change",
		c.Method, strings.Join(basis, "; "), secs(c.MatchS)))
	out := []Block{&Lines{Title: title, Lines: lines}}
	if len(c.Missing) > 0 {
		out = append(out, &Notes{Prefix: "changes: missing ", Lines: redactAll(c.Missing)})
	}
	return out
}

// seriesNames is "tps, p99 or lag p99": the series analysed.
func seriesNames(c *results.Changes) string {
	var names []string
	for _, s := range c.Series {
		if s.Missing == "" {
			names = append(names, s.Name)
		}
	}
	switch len(names) {
	case 0:
		return "no series"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// changeGroups are the changes grouped by time: the series that shifted
// at the same interval, in the order found.
func changeGroups(chs []results.Change) [][]results.Change {
	var out [][]results.Change
	for _, ch := range chs {
		if n := len(out); n > 0 && out[n-1][0].AtS == ch.AtS {
			out[n-1] = append(out[n-1], ch)
			continue
		}
		out = append(out, []results.Change{ch})
	}
	return out
}

// changeSentence is the changes of one time (changeGroups) as people read
// them: "p99 ×8.1 (5.2 → 42 ms) and lag p99 … at 12 s, with …; context";
// short (for a marker) names only the nearest occurrence and leaves out
// the context.
func changeSentence(group []results.Change, matchS float64, short bool) string {
	var b strings.Builder
	for i, ch := range group {
		if i > 0 {
			b.WriteString(" and ")
		}
		fmt.Fprintf(&b, "%s %s (%s → %s %s)", ch.Series, relative(ch), level(ch.Before, ch.Unit), level(ch.After, ch.Unit), ch.Unit)
	}
	first := group[0]
	fmt.Fprintf(&b, " at %s s", secs(first.AtS))
	switch {
	case first.Unexplained:
		fmt.Fprintf(&b, ", unexplained (nothing within ±%s s)", secs(matchS))
	default:
		matched := first.Matched
		if short && len(matched) > 1 {
			matched = matched[:1]
		}
		var with []string
		for _, m := range matched {
			with = append(with, matchPhrase(m))
		}
		b.WriteString(", with " + strings.Join(with, " and "))
	}
	if !short {
		b.WriteString(contextPhrase(first.Waits, first.FPI))
	}
	return b.String()
}

// matchPhrase is "autovacuum of t at 30.2 s", "injected lock on t, 3 s
// from 10 s", "the end of injected lock on t, 3 s at 13 s".
func matchPhrase(m results.ChangeMatch) string {
	switch m.Edge {
	case "start":
		return m.Label + " from " + secs(m.AtS) + " s"
	case "end":
		return "the end of " + m.Label + " at " + secs(m.AtS) + " s"
	}
	return m.Label + " at " + secs(m.AtS) + " s"
}

// contextPhrase is "; Lock:relation 3 % → 41 % of active time (120 →
// 96 active samples); FPI share 4 % → 38 %": the wait shifts with the
// samples they rest on, and the FPI share when it moved.
func contextPhrase(waits []results.WaitShift, fpi *results.ShareShift) string {
	var parts []string
	for _, w := range waits {
		parts = append(parts, fmt.Sprintf("%s:%s %s → %s of active time", w.Type, w.Event, format.Pct(w.Before), format.Pct(w.After)))
	}
	if len(waits) > 0 {
		parts[len(parts)-1] += fmt.Sprintf(" (%s → %s active samples)", format.Count(waits[0].ActiveBefore), format.Count(waits[0].ActiveAfter))
	}
	if fpi != nil && fpi.Moved {
		parts = append(parts, fmt.Sprintf("FPI share %s → %s", format.Pct(fpi.Before), format.Pct(fpi.After)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// quietSentence is "checkpoint (timed) started at 12.3 s: no change in
// tps, p99 or lag p99 within ±3 s; FPI share 2 % → 45 %"; a checkpoint
// whose FPI share did not move says so ("FPI share 14 % → 17 %, no rise").
func quietSentence(q results.QuietOccurrence, names string, matchS float64) string {
	var when string
	switch {
	case q.StartS != nil && q.EndS != nil:
		when = fmt.Sprintf(" from %s s to %s s", secs(*q.StartS), secs(*q.EndS))
	case q.StartS != nil && q.Kind == results.OccurCheckpoint:
		when = " started at " + secs(*q.StartS) + " s"
	case q.StartS != nil:
		when = " at " + secs(*q.StartS) + " s"
	case q.EndS != nil:
		when = " ended at " + secs(*q.EndS) + " s"
	}
	s := fmt.Sprintf("%s%s: no change in %s within ±%s s", q.Label, when, names, secs(matchS))
	s += contextPhrase(q.Waits, q.FPI)
	if q.Kind == results.OccurCheckpoint && q.FPI != nil && !q.FPI.Moved {
		// A checkpoint's full-page images are what one looks for first:
		// say that they did not rise rather than leave them out.
		s += fmt.Sprintf("; FPI share %s → %s, no rise (a rise is a move of 5 points or more)", format.Pct(q.FPI.Before), format.Pct(q.FPI.After))
	}
	return s
}

// relative is "−40 %", "+12 %", "×35" for a rise to three times or more,
// "÷700" for a fall to a third or less; "from 0" when the level before
// was 0.
func relative(ch results.Change) string {
	if ch.Relative == nil {
		return "from 0"
	}
	r := *ch.Relative
	switch {
	case r >= 2:
		return "×" + format.Sig3(r+1)
	case r <= -2.0/3 && r > -1:
		return "÷" + format.Sig3(1/(1+r))
	}
	return strings.Replace(format.SignedPct(r), "-", "−", 1)
}

// level is a series' level: a rate with thousands grouped, a latency in ms.
func level(v float64, unit string) string {
	if unit == "ms" {
		return format.Ms(v)
	}
	if math.Abs(v) >= 1000 {
		return format.Count(int64(math.Round(v)))
	}
	return format.Sig3(v)
}

// secs is a time in seconds with at most one decimal: 12 → "12", 30.25 →
// "30.2".
func secs(s float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(s, 'f', 1, 64), ".0")
}

// changeMarkers are the run report's timeline markers of the changes (the
// findings' in run.json, else computed from the directory), labelled with
// the short sentence.
func (r *runReport) changeMarkers() []chart.Marker {
	var c *results.Changes
	if r.run.Findings != nil {
		c = r.run.Findings.Changes
	} else {
		c = explain.Changes(r.dir, r.run, explain.Defaults())
	}
	if c == nil {
		return nil
	}
	var out []chart.Marker
	for _, g := range changeGroups(c.Changes) {
		out = append(out, chart.Marker{X: g[0].AtS, Kind: chart.MarkChange, Label: changeSentence(g, c.MatchS, true)})
	}
	return out
}
