package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/results"
)

// Evidence that was not collected is "—" with the reason, never 0; a
// checkpoint that started in the window and completed after it is named.
func TestWriteEvidenceMissingAndCheckpointStart(t *testing.T) {
	from := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	to := from.Add(60 * time.Second)
	ev := &results.Evidence{From: from, To: to, CheckpointsTimed: 1,
		CheckpointSpans: []results.CheckpointSpan{{Start: from.Add(29 * time.Second), End: to.Add(5 * time.Second), Kind: "timed"}},
		Waits:           []results.WaitShare{{Type: "CPU", Event: "CPU", Samples: 10, Share: 1, AvgSessions: 1}},
	}
	ev.SetMissing(results.EvidenceStatements, `pg_stat_statements is not installed in database "postgres"`)
	ev.SetMissing(results.EvidenceOS, "the server is not on this machine")
	ev.SetMissing(results.EvidenceServer+".wal_records", "not available on this server")
	ev.SetMissing(results.EvidenceServer+".wal_fpi", "not available on this server")
	var b bytes.Buffer
	writeEvidence(&b, ev, []string{collect.KindWaits, collect.KindServer})
	out := b.String()
	for _, want := range []string{
		`statements      calls/s —, rows/s —: pg_stat_statements is not installed in database "postgres"`,
		"OS              —: the server is not on this machine",
		"checkpoints     0 completed, started 1 timed and 0 requested",
		"1 more ran in the window: started at 29 s, completed after the window",
		"    CPU ",
		"— records, full-page images — (— % of records)",
		"  —               wal_records, wal_fpi: not available on this server",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "calls/s 0") || strings.Contains(out, "CPU             us") {
		t.Errorf("missing evidence shown as figures:\n%s", out)
	}

	// Collected statements: their rates.
	ev = &results.Evidence{From: from, To: to, Calls: 600, Rows: 1200, Statements: []results.StatementCost{{Calls: 600, Query: "SELECT 1"}}}
	b.Reset()
	writeEvidence(&b, ev, []string{collect.KindStatements})
	if !strings.Contains(b.String(), "calls/s 10, rows/s 20") {
		t.Errorf("no rates in\n%s", b.String())
	}
}
