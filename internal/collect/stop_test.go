package collect

import (
	"context"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// Stop against a server frozen with SIGSTOP (a cluster of the test's own)
// returns by the ctx deadline it is given (QuickStop: about stopSettle after
// the last sample was due), with warnings, although a phase mark is queued
// (its snapshot waited 30 s whatever ctx said) and the last samples and
// statements snapshot wait for the server; a cancelled ctx (the second
// signal) returns at once.
func TestStopFrozenServer(t *testing.T) {
	c := pgtest.OwnCluster(t, pgtest.Own{})
	url := c.URL("postgres")
	if err := execSQL(context.Background(), url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
		t.Logf("no pg_stat_statements (%v): the statements snapshot is not tested", err)
	}
	for _, urgent := range []bool{false, true} {
		dir := t.TempDir()
		start := time.Now()
		col, err := Start(context.Background(), Config{ConnString: url, Dir: dir, RunStart: start, Interval: time.Second,
			Kinds: []string{KindWaits, KindServer, KindStatements}, Events: &fileSink{dir: dir}})
		if err != nil {
			t.Fatal(err)
		}
		col.Mark(results.PhaseMeasure, start)
		time.Sleep(1200 * time.Millisecond)
		thaw := pgtest.Freeze(t, c)
		time.Sleep(300 * time.Millisecond)
		end := time.Now()
		col.Mark("after", end) // its snapshot waits for the frozen server
		ctx, cancel := context.WithDeadline(context.Background(), col.QuickStop(end, end))
		if urgent {
			cancel()
		}
		warnings := col.Stop(ctx, end)
		took := time.Since(end)
		cancel()
		thaw()
		t.Logf("urgent %v: Stop took %v; warnings %q", urgent, took, warnings)
		// The last grid point at or after end is at most 1 s away.
		limit := time.Second + stopSettle + 500*time.Millisecond
		if urgent {
			limit = 500 * time.Millisecond
		}
		if took > limit {
			t.Errorf("urgent %v: Stop took %v against a frozen server, want ≤ %v", urgent, took, limit)
		}
	}
}
