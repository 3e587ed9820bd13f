package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// Statements the run report lists: the top ones by total execution time,
// their text cut to so many runes.
const (
	reportStatements     = 20
	reportStatementRunes = 160
)

// statementBlocks is the table of pg_stat_statements deltas per statement
// over the measured window (statements.csv's rows of the measured phase):
// calls, total and mean ms, share of the time, rows, shared blocks hit and
// read and WAL bytes per call; the top ones by total time, then the rest
// summed, then the other sessions' row. Sortable in HTML.
func (r *runReport) statementBlocks() []Block {
	title := "statements (pg_stat_statements deltas over the measured window)"
	head := []string{"total ms", "share", "calls", "mean ms", "rows/call", "hit/call", "read/call", "WAL B/call", "query"}
	absent := func(why string) []Block {
		row := []Cell{Absent(why)}
		for range head[1:] {
			row = append(row, Text(""))
		}
		return []Block{&Table{Title: title, Head: head, Rows: [][]Cell{row}}}
	}
	if why := r.fileReason(results.EvidenceStatements, results.StatementsFile); why != "" {
		return absent(why)
	}
	phase := results.PhaseMeasure
	if !slices.ContainsFunc(r.statements, func(s results.StatementRow) bool { return s.Phase == phase }) {
		phase = "" // no phase was marked: the run's one set of rows
	}
	var run []results.StatementRow
	var others *results.StatementRow
	var totalMs float64
	for i := range r.statements {
		s := &r.statements[i]
		if s.Phase != phase {
			continue
		}
		totalMs += s.TotalExecMs
		if s.Sessions == results.SessionsOthers {
			if others == nil {
				others = &results.StatementRow{Sessions: results.SessionsOthers}
			}
			addCounters(others, s)
			continue
		}
		run = append(run, *s)
	}
	if len(run) == 0 && others == nil {
		why := results.StatementsFile + " has no rows of the measured window"
		if r.unfinished {
			why += " (its rows are written when a phase ends, and the run did not finish)"
		}
		return absent(why)
	}
	slices.SortStableFunc(run, func(a, b results.StatementRow) int {
		return cmp.Or(cmp.Compare(b.TotalExecMs, a.TotalExecMs), cmp.Compare(a.QueryID, b.QueryID))
	})
	t := &Table{Title: title, Head: head, Sortable: true}
	add := func(s *results.StatementRow, query string) {
		per := func(n int64) string {
			if s.Calls == 0 {
				return format.Missing
			}
			return format.Sig3(float64(n) / float64(s.Calls))
		}
		mean := math.NaN()
		if s.Calls > 0 {
			mean = s.TotalExecMs / float64(s.Calls)
		}
		share := 0.0
		if totalMs > 0 {
			share = s.TotalExecMs / totalMs
		}
		meanText := format.Missing
		if !math.IsNaN(mean) {
			meanText = format.MsFixed(mean)
		}
		t.AddRow(format.MsFixed(s.TotalExecMs), format.Share(share), strconv.FormatInt(s.Calls, 10), meanText,
			per(s.Rows), per(s.SharedBlksHit), per(s.SharedBlksRead), per(s.WALBytes), query)
	}
	for i := range run[:min(len(run), reportStatements)] {
		s := &run[i]
		q := format.OneLine(results.RedactSQL(s.Query), reportStatementRunes)
		if s.Nested {
			q = "(nested) " + q
		}
		if s.Sessions == results.SessionsOther {
			q = "(another role or database) " + q
		}
		add(s, q)
	}
	if rest := run[min(len(run), reportStatements):]; len(rest) > 0 {
		sum := results.StatementRow{}
		for i := range rest {
			addCounters(&sum, &rest[i])
		}
		add(&sum, fmt.Sprintf("(%d more statements)", len(rest)))
	}
	if others != nil {
		add(others, "other sessions (other roles and databases; their texts are not kept)")
	}
	t.Notes = []string{"per call: Δ / Δcalls; share: of the total execution time of every statement in the window"}
	return []Block{t}
}

// evidenceBlocks is report.Run's evidence section, or why it is missing.
func (r *runReport) evidenceBlocks() []Block {
	if r.run.Evidence == nil {
		why := "no collector ran"
		if r.unfinished {
			why = "the run did not finish: its evidence is summarised at its end"
		}
		return []Block{&Lines{Title: "evidence", Lines: []string{format.Missing + " (run.json has no evidence of the measured window: " + why + ")"}}}
	}
	// The statements have their own sortable table above; the evidence's
	// "statements by total time" would repeat it.
	var out []Block
	for _, b := range EvidenceBlocks(r.run.Evidence, r.run.Collectors) {
		if t, ok := b.(*Table); ok && t.Title == statementsTitle {
			continue
		}
		out = append(out, b)
	}
	return out
}

// checklist is run.json's checklist with the number behind each item (the
// writers show status, name and message: the value goes into the message).
func (r *runReport) checklist() []Block {
	if len(r.run.Checks) == 0 {
		why := "run.json holds none"
		if r.unfinished {
			why = "the run did not finish: the checklist is made at its end"
		}
		return []Block{&Lines{Title: "checklist", Lines: []string{format.Missing + " (" + why + ")"}}}
	}
	items := make([]results.Check, len(r.run.Checks))
	for i, c := range r.run.Checks {
		c.Message = redact(c.Message)
		items[i] = c
	}
	return []Block{&Checklist{Title: runChecklistTitle, Items: items}}
}

// addCounters adds the counters of s that the statements table shows into
// sum (a row standing for several statements).
func addCounters(sum, s *results.StatementRow) {
	sum.Calls += s.Calls
	sum.Rows += s.Rows
	sum.TotalExecMs += s.TotalExecMs
	sum.SharedBlksHit += s.SharedBlksHit
	sum.SharedBlksRead += s.SharedBlksRead
	sum.WALBytes += s.WALBytes
}
