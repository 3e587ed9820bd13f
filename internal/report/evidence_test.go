package report

import (
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

func evidenceText(t *testing.T, ev *results.Evidence, collectors []string) string {
	t.Helper()
	return text(t, (&Doc{}).Add(EvidenceBlocks(ev, collectors)...))
}

// Evidence that was not collected is "—" with the reason, never 0; a
// checkpoint that started in the window and completed after it is named.
func TestEvidenceMissingAndCheckpointStart(t *testing.T) {
	from := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	to := from.Add(60 * time.Second)
	ev := &results.Evidence{From: from, To: to, CheckpointsTimed: 1,
		CheckpointSpans: []results.CheckpointSpan{{Start: from.Add(29 * time.Second), End: to.Add(5 * time.Second), Kind: "timed"}},
		Waits:           []results.WaitShare{{Type: "CPU", Event: "CPU", Samples: 10, Share: 1, AvgSessions: 1}},
		WALBytes:        3 << 19, // 1.5 MiB
	}
	ev.SetMissing(results.EvidenceStatements, `pg_stat_statements is not installed in database "postgres"`)
	ev.SetMissing(results.EvidenceOS, "the server is not on this machine")
	ev.SetMissing(results.EvidenceServer+".wal_records", "not available on this server")
	ev.SetMissing(results.EvidenceServer+".wal_fpi", "not available on this server")
	out := evidenceText(t, ev, []string{results.EvidenceWaits, results.EvidenceServer})
	wantAll(t, "the evidence", out,
		"evidence (measured window; collectors: waits, server)\n",
		`  statements   calls/s —, rows/s —: pg_stat_statements is not installed in database "postgres"`+"\n",
		"  OS           —: the server is not on this machine\n",
		"  checkpoints  0 completed, started 1 timed and 0 requested",
		"1 more ran in the window: started at 29 s, completed after the window",
		"WAL          1.5 MiB, 0 B per transaction, — records, full-page images — (— of records)",
		"  —            wal_records, wal_fpi: not available on this server\n",
		"  autovacuum   no runs\n",
		"waits of active client sessions:\n  wait  share of samples  avg sessions\n  CPU   100.00 %          1\n",
	)
	if strings.Contains(out, "calls/s 0") || strings.Contains(out, "CPU          us") || strings.Contains(out, "MB") || strings.Contains(out, "kB") {
		t.Errorf("missing evidence shown as figures, or sizes not in IEC units:\n%s", out)
	}

	// Collected statements: their rates and the table by total time.
	ev = &results.Evidence{From: from, To: to, Calls: 600, Rows: 1200, Statements: []results.StatementCost{
		{Calls: 600, Query: "SELECT  abalance\n  FROM pgbench_accounts WHERE aid = $1", Share: 0.75, MeanMs: 0.0125, SharedHitPerCall: 4, SharedReadPerCall: 0.5}}}
	out = evidenceText(t, ev, []string{results.EvidenceStatements})
	wantAll(t, "the evidence", out,
		"  statements  calls/s 10.0, rows/s 20.0 (top level)\n",
		"statements by total time:\n  share    calls  mean ms  hit/call  read/call  query\n",
		"  75.00 %  600    0.013    4         0.5        SELECT abalance FROM pgbench_accounts WHERE aid = $1\n",
	)
	if strings.Contains(out, "checkpoints") || strings.Contains(out, "autovacuum") {
		t.Errorf("server counters without the server collector:\n%s", out)
	}
	if EvidenceBlocks(nil, nil) != nil {
		t.Error("blocks of no evidence")
	}
}

// Other sessions' work is one line without text, and a statement's text in
// a run.json of an older pgtrial is redacted when shown (issue 14).
func TestEvidenceOtherSessionsAndRedaction(t *testing.T) {
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ev := &results.Evidence{From: from, To: from.Add(time.Minute), Calls: 600, Rows: 600, Statements: []results.StatementCost{
		{Calls: 600, Query: "select 1", Share: 0.9},
		{Calls: 1, Query: "ALTER ROLE x PASSWORD 'secret-old-run'", Share: 0.1}},
		OtherSessions: &results.StatementCost{Calls: 40, TotalMs: 49, Share: 0.05}}
	out := evidenceText(t, ev, []string{results.EvidenceStatements})
	wantAll(t, "the evidence", out,
		"  other sessions  40 calls, 49.0 ms, 5.00 % of statement time (other roles and databases; their texts are not kept)\n",
		"ALTER ROLE x PASSWORD '<redacted>'\n",
	)
	if strings.Contains(out, "secret-old-run") {
		t.Errorf("a password in the evidence:\n%s", out)
	}
}

// A whole group that is missing is one row with its reason; the OS figures
// are shares of the machine's CPU time.
func TestEvidenceServerMissingAndOS(t *testing.T) {
	ev := &results.Evidence{
		CPU:         &results.CPUShare{User: 0.42, System: 0.08, Idle: 0.5},
		ClientCPU:   0.25,
		BusiestDisk: &results.DiskStats{Name: "nvme0n1", Util: 0.3, ReadsPerS: 12, WritesPerS: 340.5, AwaitMs: 0.25, QueueSize: 1.5},
		Warnings:    []string{"wait sampling fell behind"},
	}
	ev.SetMissing(results.EvidenceServer, "permission denied for pg_stat_io")
	ev.SetMissing(results.EvidenceWaits, "pg_wait_sampling is not installed")
	ev.Waits = []results.WaitShare{{Type: "CPU", Event: "CPU", Share: 1}} // not shown: the group is missing
	out := evidenceText(t, ev, []string{results.EvidenceServer, results.EvidenceOS})
	wantAll(t, "the evidence", out,
		"  server counters  —: permission denied for pg_stat_io\n",
		"  CPU              us 42 %, sy 8.0 %, wa 0 %, st 0 %, id 50 %; pgtrial itself 0.25 CPUs\n",
		"  busiest disk     nvme0n1: util 30 %, r/s 12.0, w/s 340.5, await 0.250 ms, aqu-sz 1.5\n",
		"  waits            —: pg_wait_sampling is not installed\n",
		"warning: wait sampling fell behind\n",
	)
	if strings.Contains(out, "checkpoints") || strings.Contains(out, "waits of") {
		t.Errorf("server counters or waits shown although missing:\n%s", out)
	}
}

func TestEvidenceMarkdown(t *testing.T) {
	ev := &results.Evidence{Statements: []results.StatementCost{{Calls: 1, Query: "SELECT a|b FROM t_1"}}}
	ev.SetMissing(results.EvidenceOS, "the server is not on this machine")
	checkMarkdown(t, (&Doc{Title: "run"}).Add(EvidenceBlocks(ev, []string{"statements", "os"})...),
		"**evidence (measured window; collectors: statements, os)**\n",
		"| OS | —: the server is not on this machine |\n",
		"| share | calls | mean ms | hit/call | read/call | query |\n",
		`SELECT a\|b FROM t\_1 |`,
	)
}
