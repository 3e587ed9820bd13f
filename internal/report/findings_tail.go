package report

import (
	"strconv"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// tailTitle heads the tail's finding.
const tailTitle = "why the tail was slow (transactions above p99, joined to their backends' samples and the run's occurrences)"

// tailBlocks say why the slowest transactions were slow: the finding's
// summary, its groups by (wait, occurrence) and its slowest transactions.
// Every text (relations, occurrence labels) reaches HTML through the Doc
// model, which escapes it.
func tailBlocks(t *results.Tail) []Block {
	if t == nil {
		return nil
	}
	out := []Block{&Lines{Title: tailTitle, Lines: t.Summary}}
	if len(t.Groups) == 0 {
		return out
	}
	groups := &Table{Attached: true, Title: "by wait and occurrence:", Sortable: true,
		Head: []string{"transactions", "share", "wait", "relation", "during", "response s", "slowest ms"}}
	if t.Open {
		groups.Head = append(groups.Head, "lag s", "service s", "wait in")
	}
	for _, g := range t.Groups {
		row := []Cell{Text(format.Count(int64(g.Count))), Text(format.Pct(g.Share)), Text(g.Wait),
			tailText(g.Relation), tailText(g.Occurrence),
			Text(format.Sig3(g.ResponseMs / 1000)), Text(format.Ms(g.MaxMs))}
		if t.Open {
			row = append(row, Text(format.Sig3(g.LagMs/1000)), Text(format.Sig3(g.ServiceMs/1000)), Text(g.Part))
		}
		groups.Rows = append(groups.Rows, row)
	}
	groups.Notes = []string{"wait: the state of most of the backend's samples in the span the wait is of " +
		"(\"" + results.TailIdle + "\": samples were taken but its backend was in none; \"" + results.TailNotSampled +
		"\": no sample fell in it); during: the occurrence its span overlapped that fits its wait best"}
	if t.Open {
		groups.Notes = append(groups.Notes, "wait in: "+results.TailService+" (its backend from its start to its end), or "+
			results.TailLag+" when it mostly queued (its connection's backend from its intended to its actual start: what kept the connection busy)")
	}
	out = append(out, groups)
	if len(t.Slowest) > 0 {
		slow := &Table{Attached: true, Title: "the slowest of them:",
			Head: []string{"script", "client", "pid", "intended s", "response ms", "lag ms", "service ms", "wait", "samples", "during"}}
		for _, x := range t.Slowest {
			wait := x.Wait
			if x.Relation != "" {
				wait += " (" + x.Relation + ")"
			}
			if x.Part == results.TailLag {
				wait = "queued behind " + wait
			}
			samples := strconv.Itoa(x.Samples)
			if x.Samples > 0 {
				samples += " (" + format.Pct(x.WaitShare) + ")"
			}
			pid := Text(strconv.FormatUint(uint64(x.PID), 10))
			if x.PID == 0 {
				pid = Absent("the connection's backend pid is unknown")
			}
			slow.Rows = append(slow.Rows, []Cell{Text(x.Script), Text(strconv.Itoa(x.Client)), pid,
				Text(strconv.FormatFloat(x.IntendedS, 'f', 3, 64)), Text(format.MsFixed(x.ResponseMs)),
				Text(format.MsFixed(x.LagMs)), Text(format.MsFixed(x.ServiceMs)), Text(wait), Text(samples), tailText(x.Occurrence)})
		}
		out = append(out, slow)
	}
	return out
}

// tailText is a cell of s, "" shown as "-" (nothing: not a missing figure).
func tailText(s string) Cell {
	if s == "" {
		return Text("-")
	}
	return Text(s)
}
