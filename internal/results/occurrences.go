package results

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/pgtrial/pgtrial/internal/report/format"
)

// Kinds of Occurrence: what happened during a run that can explain what its
// timeline shows. The run report marks them on every panel; the findings
// (internal/explain) match changes and slow transactions to them.
const (
	OccurCheckpoint = "checkpoint" // a checkpoint: Start (0: before the records) to End (0: not completed)
	OccurAutovacuum = "autovacuum" // autovacuum or autoanalyze of Table, seen at Start (it ran in the sampling period before)
	OccurStall      = "stall"      // an injected stall: Start to End (0: unknown end)
	OccurError      = "error"      // the first error of class Class, Count of them in its interval
	OccurConnection = "connection" // the first connection lost or refused (an error of class "connection")
	OccurInterrupt  = "interrupt"  // the run was interrupted
	OccurAbort      = "abort"      // clients aborted
)

// Occurrence is one thing that happened during a run, from events.jsonl,
// with the label people read ("autovacuum of pgbench_accounts",
// "injected lock on pgbench_branches, 3 s", "checkpoint (timed)").
type Occurrence struct {
	Kind      string    `json:"kind"`
	Start     time.Time `json:"start,omitzero"`
	End       time.Time `json:"end,omitzero"` // zero: an instant, or the end is unknown
	Label     string    `json:"label"`
	Table     string    `json:"table,omitempty"`     // autovacuum, stall
	Class     string    `json:"class,omitempty"`     // error: the failure class
	Count     int64     `json:"count,omitempty"`     // error: failures in the interval of the first
	StartFrom time.Time `json:"start_from,omitzero"` // checkpoint: its start lies in (StartFrom, Start]
}

// Span is the occurrence as an interval: [Start, End] with a zero Start
// taken as from (before the records) and a zero End as to (still running
// or an instant: End = Start for an instant kind).
func (o Occurrence) Span(from, to time.Time) (time.Time, time.Time) {
	start, end := o.Start, o.End
	if start.IsZero() {
		start = from
	}
	if end.IsZero() {
		switch o.Kind {
		case OccurCheckpoint, OccurStall:
			end = to
		default:
			end = start
		}
	}
	return start, end
}

// Occurrences are the run's occurrences from its events, in time order of
// their starts: the checkpoints paired into spans (CheckpointSpans),
// autovacuum and autoanalyze per table, injected stalls with their ends,
// the first error of each class (a lost connection as its own kind), the
// interruption and the abort. Texts that came from the server or the user
// (an injection's error, an interruption's message) are redacted
// (RedactArgs).
func Occurrences(events []Event) []Occurrence {
	var out []Occurrence
	for _, c := range CheckpointSpans(events) {
		kind := cmp.Or(c.Kind, "unknown")
		out = append(out, Occurrence{Kind: OccurCheckpoint, Start: c.Start, End: c.End, StartFrom: c.StartFrom,
			Label: "checkpoint (" + kind + ")"})
	}
	for _, e := range events {
		switch e.Kind {
		case EventAutovacuum:
			table, _ := e.Data["table"].(string)
			out = append(out, Occurrence{Kind: OccurAutovacuum, Start: e.Time, Table: table, Label: autovacuumLabel(e)})
		case EventInjection:
			label, end := injectionLabel(e)
			table, _ := e.Data["table"].(string)
			out = append(out, Occurrence{Kind: OccurStall, Start: e.Time, End: end, Table: table, Label: label})
		case EventError:
			class, _ := e.Data["class"].(string)
			o := Occurrence{Kind: OccurError, Start: e.Time, Class: class, Count: DataInt(e.Data["count"]),
				Label: "first " + cmp.Or(class, "unknown") + " failure"}
			if class == "connection" {
				o.Kind, o.Label = OccurConnection, "first connection lost or refused"
			}
			if o.Count > 0 {
				o.Label += fmt.Sprintf(" (%d in the interval)", o.Count)
			}
			out = append(out, o)
		case EventInterrupt:
			out = append(out, Occurrence{Kind: OccurInterrupt, Start: e.Time, Label: redactText(cmp.Or(e.Message, "interrupted"))})
		case EventAbort:
			out = append(out, Occurrence{Kind: OccurAbort, Start: e.Time, Label: redactText(cmp.Or(e.Message, "clients aborted"))})
		}
	}
	slices.SortStableFunc(out, func(a, b Occurrence) int { return occurTime(a).Compare(occurTime(b)) })
	return out
}

func occurTime(o Occurrence) time.Time {
	if !o.Start.IsZero() {
		return o.Start
	}
	return o.End
}

func redactText(s string) string { return RedactArgs([]string{s})[0] }

// autovacuumLabel is "autovacuum and autoanalyze of pgbench_accounts".
func autovacuumLabel(e Event) string {
	table, _ := e.Data["table"].(string)
	v, a := DataInt(e.Data["vacuums"]), DataInt(e.Data["analyzes"])
	var what string
	switch {
	case v > 0 && a > 0:
		what = "autovacuum and autoanalyze"
	case a > 0:
		what = "autoanalyze"
	default:
		what = "autovacuum"
	}
	return what + " of " + cmp.Or(table, "a table")
}

// injectionLabel is "injected lock on pgbench_branches, 5 s" and the
// stall's end (Data "end", else the start + held_ms; zero: unknown).
func injectionLabel(e Event) (string, time.Time) {
	kind, _ := e.Data["kind"].(string)
	table, _ := e.Data["table"].(string)
	label := "injected " + cmp.Or(kind, "stall")
	if table != "" {
		label += " on " + table
	}
	var end time.Time
	if s, ok := e.Data["end"].(string); ok {
		end, _ = time.Parse(time.RFC3339Nano, s)
	}
	if end.IsZero() {
		if ms, ok := e.Data["held_ms"].(float64); ok && ms > 0 {
			end = e.Time.Add(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	if msg, ok := e.Data["error"].(string); ok && msg != "" {
		label += " failed: " + redactText(msg)
	} else if end.After(e.Time) {
		label += ", " + format.Duration(end.Sub(e.Time).Round(time.Millisecond))
	}
	return label, end
}
