package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
)

// evidenceQueryRunes is how much of a statement's text the evidence shows.
const evidenceQueryRunes = 60

// EvidenceBlocks is the "evidence" section of a run's summary: what the
// server and the machine did in the measured window, from the collectors
// that ran (collectors: the values of --collect, which are also the groups
// of results.Evidence.Missing). It is a table of one sentence per subject
// (checkpoints, WAL, buffers, autovacuum, statements, CPU, disk), then the
// waits and the statements by total time as tables of their own, then the
// collectors' warnings. Nothing when ev is nil.
//
// Evidence that was not collected is never 0: a group that is missing is
// "—: <reason>" in its row, and a server counter the server does not have
// is "—" in its sentence with a row "—  <counters>: <reason>" under them.
func EvidenceBlocks(ev *results.Evidence, collectors []string) []Block {
	if ev == nil {
		return nil
	}
	e := &evidence{ev: ev, t: &Table{Title: "evidence (measured window; collectors: " + strings.Join(collectors, ", ") + ")"}}
	if !e.missing("server counters", results.EvidenceServer) && slices.Contains(collectors, results.EvidenceServer) {
		e.server()
	}
	waitsGone := e.missing("waits", results.EvidenceWaits)
	e.statementRates()
	if !e.missing("OS", results.EvidenceOS) && ev.CPU != nil {
		c := ev.CPU
		e.t.AddRow("CPU", fmt.Sprintf("us %s, sy %s, wa %s, st %s, id %s; pgtrial itself %s CPUs",
			format.Pct(c.User), format.Pct(c.System), format.Pct(c.IOWait), format.Pct(c.Steal), format.Pct(c.Idle), format.Sig3(ev.ClientCPU)))
	}
	if d := ev.BusiestDisk; d != nil {
		e.t.AddRow("busiest disk", fmt.Sprintf("%s: util %s, r/s %s, w/s %s, await %s ms, aqu-sz %s",
			d.Name, format.Pct(d.Util), format.Rate(d.ReadsPerS), format.Rate(d.WritesPerS), format.Ms(d.AwaitMs), format.Sig3(d.QueueSize)))
	}
	blocks := []Block{e.t}
	if !waitsGone && len(ev.Waits) > 0 {
		blocks = append(blocks, waitsTable(ev.Waits))
	}
	if _, gone := ev.MissingReason(results.EvidenceStatements); !gone && len(ev.Statements) > 0 {
		blocks = append(blocks, statementsTable(ev.Statements))
	}
	if len(ev.Warnings) > 0 {
		blocks = append(blocks, &Notes{Prefix: "warning: ", Lines: ev.Warnings})
	}
	return blocks
}

// evidence builds the section's table of sentences.
type evidence struct {
	ev *results.Evidence
	t  *Table
}

// missing adds the row "label  —: reason" when group was not collected.
func (e *evidence) missing(label, group string) bool {
	reason, ok := e.ev.MissingReason(group)
	if ok {
		e.t.AddRow(label, format.Missing+": "+reason)
	}
	return ok
}

// server adds the server counters' sentences: checkpoints, WAL, buffers,
// the counters the server does not have, autovacuum.
func (e *evidence) server() {
	ev := e.ev
	var gone []string // counters of server.csv without a value in the window
	counter := func(col, text string) string {
		if _, ok := ev.MissingReason(results.EvidenceServer + "." + col); ok {
			gone = append(gone, col)
			return format.Missing
		}
		return text
	}
	e.t.AddRow("checkpoints", fmt.Sprintf("%d completed, started %d timed and %d requested, write %s ms, sync %s ms%s",
		ev.Checkpoints, ev.CheckpointsTimed, ev.CheckpointsRequested,
		counter("checkpoint_write_ms", format.Ms(ev.CheckpointWriteMs)), counter("checkpoint_sync_ms", format.Ms(ev.CheckpointSyncMs)),
		unfinishedCheckpoints(ev)))
	fpiShare := format.Share(ev.FPIShare) // full-page images / WAL records
	if _, ok := ev.MissingReason(results.EvidenceServer + ".wal_records"); ok {
		fpiShare = format.Missing
	}
	e.t.AddRow("WAL", fmt.Sprintf("%s, %s per transaction, %s records, full-page images %s (%s of records)",
		format.Bytes(ev.WALBytes), format.Bytes(int64(math.Round(ev.WALBytesPerTx))),
		counter("wal_records", strconv.FormatInt(ev.WALRecords, 10)), counter("wal_fpi", strconv.FormatInt(ev.WALFPI, 10)), fpiShare))
	e.t.AddRow("buffers", fmt.Sprintf("hit ratio %s (%d hit, %d read), written by backends %s, temp %s, deadlocks %d",
		format.Share(ev.HitRatio), ev.BlocksHit, ev.BlocksRead, counter("backend_writes", strconv.FormatInt(ev.BackendWrites, 10)),
		format.Bytes(ev.TempBytes), ev.Deadlocks))
	if len(gone) > 0 {
		reason, _ := ev.MissingReason(results.EvidenceServer + "." + gone[0])
		e.t.AddRow(format.Missing, strings.Join(gone, ", ")+": "+reason)
	}
	if len(ev.Autovacuum) == 0 {
		e.t.AddRow("autovacuum", "no runs")
		return
	}
	var parts []string
	for _, t := range ev.Autovacuum {
		parts = append(parts, fmt.Sprintf("%s (vacuum %d, analyze %d)", t.Table, t.Vacuums, t.Analyzes))
	}
	e.t.AddRow("autovacuum", strings.Join(parts, ", "))
}

// statementRates adds the rates of top-level statements (pg_stat_statements'
// calls and rows per second of the window), or why they are missing.
func (e *evidence) statementRates() {
	ev := e.ev
	if reason, ok := ev.MissingReason(results.EvidenceStatements); ok {
		e.t.AddRow("statements", "calls/s "+format.Missing+", rows/s "+format.Missing+": "+reason)
		return
	}
	if len(ev.Statements) == 0 {
		return
	}
	if sec := ev.To.Sub(ev.From).Seconds(); sec > 0 {
		e.t.AddRow("statements", fmt.Sprintf("calls/s %s, rows/s %s (top level)",
			format.Rate(float64(ev.Calls)/sec), format.Rate(float64(ev.Rows)/sec)))
	}
	if o := ev.OtherSessions; o != nil {
		e.t.AddRow("other sessions", fmt.Sprintf("%d calls, %s ms, %s of statement time (other roles and databases; their texts are not kept)",
			o.Calls, format.Ms(o.TotalMs), format.Share(o.Share)))
	}
}

// waitsTable is the waits of active client sessions: each event's share of
// the samples and the average number of sessions in it.
func waitsTable(waits []results.WaitShare) *Table {
	t := &Table{Attached: true, Title: "waits of active client sessions:", Head: []string{"wait", "share of samples", "avg sessions"}}
	for _, ws := range waits {
		name := ws.Type + ":" + ws.Event
		if ws.Type == ws.Event {
			name = ws.Type
		}
		t.AddRow(name, format.Share(ws.Share), format.Sig3(ws.AvgSessions))
	}
	return t
}

// statementsTitle heads the evidence's statements table.
const statementsTitle = "statements by total time:"

// statementsTable is the statements by total execution time: share of the
// window's execution time, calls, mean ms, shared blocks hit and read per
// call, and the query's text on one line, redacted (a run.json of an older
// pgtrial kept it as the server gave it).
func statementsTable(sts []results.StatementCost) *Table {
	t := &Table{Attached: true, Title: statementsTitle,
		Head: []string{"share", "calls", "mean ms", "hit/call", "read/call", "query"}}
	for _, st := range sts {
		t.AddRow(format.Share(st.Share), strconv.FormatInt(st.Calls, 10), format.MsFixed(st.MeanMs),
			format.Sig3(st.SharedHitPerCall), format.Sig3(st.SharedReadPerCall), format.OneLine(results.RedactSQL(st.Query), evidenceQueryRunes))
	}
	return t
}

// unfinishedCheckpoints is "; 1 more ran in the window: started at 29 s,
// completed after the window" for the checkpoints that ran in the window
// without completing in it (seconds from the window's start), or "".
func unfinishedCheckpoints(ev *results.Evidence) string {
	var parts []string
	for _, sp := range results.UnfinishedCheckpoints(ev.CheckpointSpans, ev.From, ev.To) {
		parts = append(parts, results.DescribeCheckpoint(sp, ev.From, ev.To))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d more ran in the window: %s", len(parts), strings.Join(parts, "; "))
}
