package loader

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// --partitions 4 on 2 connections, range and hash: every partition holds the rows the
// server would route to it, and every page is all-visible and all-frozen, since each
// partition was loaded with COPY FREEZE in the transaction that truncated it (pgbench
// loads partitions through the parent, unfrozen, and leaves them all-visible after its
// VACUUM only).
func TestPartitionsParallelFrozen(t *testing.T) {
	for _, method := range []string{workload.PartitionRange, workload.PartitionHash} {
		t.Run(method, func(t *testing.T) {
			url := pgtest.ConnString(t)
			cfg, err := pgconn.ParseConfig(url)
			if err != nil {
				t.Fatal(err)
			}
			s := workload.DefaultPgbench()
			s.Partitions, s.PartitionMethod = 4, method
			var out bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := Run(ctx, Config{Conn: cfg, Schema: s, Steps: DefaultSteps, Jobs: 2, Format: workload.CopyBinary, Out: &out}); err != nil {
				t.Fatalf("init: %v\n%s", err, out.String())
			}
			// One progress count for the four partitions together, with its rate.
			if !strings.Contains(out.String(), "100000 of 100000 tuples (100%) of pgbench_accounts done") || !strings.Contains(out.String(), " rows/s)") {
				t.Errorf("no aggregated accounts progress with a rate:\n%s", out.String())
			}
			c := dbConn(t, url)
			checkContents(t, c, 1)
			for i := 1; i <= 4; i++ {
				part := workload.PartitionName(i)
				got := queryInt(t, c, "select count(*) from "+part)
				want := int64(25000)
				if method == workload.PartitionHash {
					want = queryInt(t, c, fmt.Sprintf(`select count(*) from generate_series(1, 100000) g
						where satisfies_hash_partition('pgbench_accounts'::regclass, 4, %d, g)`, i-1))
				}
				if got != want || got == 0 {
					t.Errorf("%s holds %d rows, want %d", part, got, want)
				}
				if n := queryInt(t, c, fmt.Sprintf(`select count(*) from pg_class where relname = '%s' and relpages > 0 and relallvisible = relpages`, part)); n != 1 {
					t.Errorf("%s: not every page all-visible", part)
				}
			}
			if _, err := c.Exec(context.Background(), "create extension if not exists pg_visibility"); err != nil {
				t.Logf("no pg_visibility (%v): frozen pages not checked", err)
				return
			}
			for i := 1; i <= 4; i++ {
				part := workload.PartitionName(i)
				if n := queryInt(t, c, fmt.Sprintf(`select count(*) from pg_visibility_map('%s') where not all_frozen`, part)); n != 0 {
					t.Errorf("%s: %d pages not all-frozen", part, n)
				}
			}
		})
	}
}
