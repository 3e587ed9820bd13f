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

// After step v with --partitions 4, the parent has its inherited statistics (pg_stats
// rows with inherited = true; ANALYZE ONLY on PostgreSQL ≥ 18, VACUUM ANALYZE of the
// parent before) and every partition its own (inherited = false), vacuumed and analysed
// with nothing left due for autovacuum.
func TestPartitionsVacuumAnalyze(t *testing.T) {
	url := pgtest.ConnString(t)
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	s := workload.DefaultPgbench()
	s.Partitions, s.PartitionMethod = 4, workload.PartitionRange
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := Run(ctx, Config{Conn: cfg, Schema: s, Steps: DefaultSteps, Jobs: 2, Format: workload.CopyBinary, Out: &out}); err != nil {
		t.Fatalf("init: %v\n%s", err, out.String())
	}
	c := dbConn(t, url)
	version := queryInt(t, c, "select current_setting('server_version_num')::int")
	t.Logf("server_version_num %d", version)
	// pgbench_accounts has 4 columns; the parent's aid statistics span all 100,000 keys.
	if n := queryInt(t, c, "select count(*) from pg_stats where tablename = 'pgbench_accounts' and inherited"); n != 4 {
		t.Errorf("the parent has inherited statistics of %d columns, want 4", n)
	}
	if n := queryInt(t, c, "select count(*) from pg_stats where tablename = 'pgbench_accounts' and not inherited"); n != 0 {
		t.Errorf("the (empty) parent has %d columns of non-inherited statistics, want 0", n)
	}
	if n := queryInt(t, c, `select count(*) from pg_stats where tablename = 'pgbench_accounts' and inherited and attname = 'aid'
		and (histogram_bounds::text::int[])[1] < 1000 and (histogram_bounds::text::int[])[array_length(histogram_bounds::text::int[], 1)] > 99000`); n != 1 {
		t.Error("the parent's aid histogram does not span the partitions' keys")
	}
	if n := queryInt(t, c, "select reltuples::bigint from pg_class where oid = 'pgbench_accounts'::regclass"); version >= 140000 && n != 100000 {
		t.Errorf("the parent's reltuples %d, want 100000", n)
	}
	for i := 1; i <= 4; i++ {
		part := workload.PartitionName(i)
		if n := queryInt(t, c, fmt.Sprintf("select count(*) from pg_stats where tablename = '%s' and not inherited", part)); n != 4 {
			t.Errorf("%s has statistics of %d columns, want 4", part, n)
		}
		if n := queryInt(t, c, fmt.Sprintf(`select count(*) from pg_stat_user_tables where relname = '%s'
			and last_vacuum is not null and last_analyze is not null`, part)); n != 1 {
			t.Errorf("%s: not vacuumed and analysed", part)
		}
		if version >= 150000 {
			if n := queryInt(t, c, fmt.Sprintf(`select n_ins_since_vacuum + n_mod_since_analyze from pg_stat_user_tables where relname = '%s'`, part)); n != 0 {
				t.Errorf("%s: %d rows inserted since vacuum + modified since analyze, want 0", part, n)
			}
		}
	}
}
