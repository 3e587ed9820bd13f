package loader

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/workload"
)

// vacuum is step v: VACUUM ANALYZE of each table, as pgbench does. After COPY FREEZE
// (PostgreSQL ≥ 14) every page is all-visible and all-frozen already, so VACUUM skips
// them all and costs what ANALYZE costs (measured at scale 20: 0.22–0.25 s against
// 0.19–0.30 s); it is kept because it also resets the table's inserts-since-vacuum
// counter, without which autovacuum's insert threshold would start a VACUUM of
// pgbench_accounts in the middle of the first benchmark. The accounts table runs on a
// connection of its own, the small tables on another.
//
// Partitioned accounts: VACUUM ANALYZE of the parent vacuums and analyses each
// partition, then samples the whole tree for the parent's inherited statistics, all
// on one connection (PostgreSQL 15, scale 20, 4 partitions: ~0.9 s of init's ~3.6 s).
// From PostgreSQL 18, ANALYZE ONLY parent gathers the inherited statistics alone, so
// each partition's VACUUM ANALYZE and the parent's ANALYZE ONLY are tasks of their own
// on the loader's connections (vacuumPartitions). The statistics are the same
// statements' on the same relations. Before 18 there is no ANALYZE ONLY: ANALYZE of the
// parent analyses every partition again, so the serial statement is kept.
func (l *loader) vacuum(ctx context.Context) error {
	l.prog.Line("vacuuming...")
	l.flushStats(l.main)
	if l.version >= 180000 {
		parts, err := l.accountPartitions(ctx)
		if err != nil {
			return err
		}
		if len(parts) > 0 {
			return l.vacuumPartitions(ctx, parts)
		}
	}
	return l.parallel(ctx, 2, func(ctx context.Context, c *pgconn.PgConn, i int) error {
		if i == 0 {
			return exec(ctx, c, "vacuum analyze "+workload.Accounts)
		}
		return l.vacuumSmallTables(ctx, c)
	})
}

// vacuumPartitions is step v with partitioned accounts on PostgreSQL ≥ 18: ANALYZE ONLY
// of the parent (its inherited statistics, from a sample of the whole tree), VACUUM
// ANALYZE of each partition and of the small tables, as tasks on up to l.jobs
// connections. The parent's sample takes ACCESS SHARE locks on the partitions, which a
// VACUUM's SHARE UPDATE EXCLUSIVE does not block, so it runs alongside them.
func (l *loader) vacuumPartitions(ctx context.Context, parts []string) error {
	stmts := []string{"analyze only " + workload.Accounts}
	for _, p := range parts {
		stmts = append(stmts, "vacuum analyze "+p)
	}
	return l.parallel(ctx, len(stmts)+1, func(ctx context.Context, c *pgconn.PgConn, i int) error {
		if i == len(stmts) {
			return l.vacuumSmallTables(ctx, c)
		}
		return exec(ctx, c, stmts[i])
	})
}

// vacuumSmallTables runs VACUUM ANALYZE of branches, tellers and history on c.
func (l *loader) vacuumSmallTables(ctx context.Context, c *pgconn.PgConn) error {
	for _, t := range []string{workload.Branches, workload.Tellers, workload.History} {
		if err := exec(ctx, c, "vacuum analyze "+t); err != nil {
			return err
		}
	}
	return nil
}

// flushStats makes c's backend publish its pending table statistics (rows inserted)
// now. A backend publishes them at most once a second when it goes idle, so the rows a
// COPY just loaded could otherwise be counted after the VACUUM ANALYZE that follows,
// leaving n_mod_since_analyze and n_ins_since_vacuum at the table size and autovacuum
// due during the first benchmark (pgbench -i leaves them so). pg_stat_force_next_flush
// exists from PostgreSQL 15; the flush happens before the reply to the SELECT. Older
// servers send statistics to the collector asynchronously, and nothing is done.
// Best effort: an error here changes nothing that was loaded.
func (l *loader) flushStats(c *pgconn.PgConn) {
	if l.version >= 150000 {
		_ = exec(context.Background(), c, "select pg_stat_force_next_flush()")
	}
}

// primaryKeys is step p: the three keys, built at the same time on their own
// connections. With range or hash partitions, each partition's key is built in parallel
// first; the parent's ADD PRIMARY KEY then attaches them instead of building again.
func (l *loader) primaryKeys(ctx context.Context) error {
	l.prog.Line("creating primary keys...")
	var stmts []string
	parts, err := l.accountPartitions(ctx)
	if err != nil {
		return err
	}
	for _, p := range parts {
		stmts = append(stmts, l.schema.AddPrimaryKey(workload.PrimaryKey{Table: p, Column: "aid"}))
	}
	// An index build sorts in maintenance_work_mem; past it the sort spills to temporary
	// files (measured at scale 20: 64MB spills, 0.8–1.1 s; 256MB sorts in memory,
	// 0.6–0.75 s). A btree sort needs about 100 bytes per row (index tuple 16 B,
	// SortTuple 24 B, allocation overhead), so ask for 128 B × rows of the largest table
	// built, between 64MB and 1GB, and never less than the server's own setting.
	rows := l.schema.Rows(workload.Accounts)
	if len(parts) > 0 {
		rows = (rows + int64(len(parts)) - 1) / int64(len(parts))
	}
	memKB := min(max(rows*128/1024, 64<<10), 1<<20)
	settings := []string{fmt.Sprintf(
		"select set_config('maintenance_work_mem', greatest(pg_size_bytes(current_setting('maintenance_work_mem')) / 1024, %d)::text || 'kB', false)", memKB)}
	// Accounts (or its partitions) first: the big builds start at once; the small
	// tables' keys take milliseconds on whichever connection frees up.
	stmts = append(stmts, l.schema.AddPrimaryKey(workload.PrimaryKeys[2]))
	stmts = append(stmts, l.schema.AddPrimaryKey(workload.PrimaryKeys[0]), l.schema.AddPrimaryKey(workload.PrimaryKeys[1]))
	nParts := len(parts)
	if nParts == 0 {
		return l.parallel(ctx, len(stmts), func(ctx context.Context, c *pgconn.PgConn, i int) error {
			for _, s := range settings {
				if err := exec(ctx, c, s); err != nil {
					return err
				}
			}
			return exec(ctx, c, stmts[i])
		})
	}
	// Partition keys in parallel, then the parent's (attaching them) and the small ones.
	if err := l.parallel(ctx, nParts, func(ctx context.Context, c *pgconn.PgConn, i int) error {
		for _, s := range settings {
			if err := exec(ctx, c, s); err != nil {
				return err
			}
		}
		return exec(ctx, c, stmts[i])
	}); err != nil {
		return err
	}
	for _, s := range stmts[nParts:] {
		if err := exec(ctx, l.main, s); err != nil {
			return err
		}
	}
	return nil
}

// accountPartitions lists the partitions of pgbench_accounts that are plain tables.
func (l *loader) accountPartitions(ctx context.Context) ([]string, error) {
	rows, err := queryStrings(ctx, l.main,
		`select c.oid::regclass::text
		   from pg_inherits i join pg_class c on c.oid = i.inhrelid
		  where i.inhparent = to_regclass($1) and c.relkind = 'r'
		  order by c.oid`, workload.Accounts)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out, nil
}

// generateServer is step G: pgbench's INSERT … SELECT generate_series. The small tables
// and the truncate run in one transaction; accounts is split into l.jobs key ranges
// inserted on as many connections at once.
func (l *loader) generateServer(ctx context.Context) error {
	l.prog.Line("generating data (server-side)...")
	n := l.schema.Rows(workload.Accounts)
	stmts := []string{
		"begin",
		l.schema.TruncateTables(),
		l.schema.ServerSideInsert(workload.Branches, workload.Branches, 1, l.schema.Rows(workload.Branches)),
		l.schema.ServerSideInsert(workload.Tellers, workload.Tellers, 1, l.schema.Rows(workload.Tellers)),
	}
	if l.jobs <= 1 {
		stmts = append(stmts, l.schema.ServerSideInsert(workload.Accounts, workload.Accounts, 1, n))
	}
	stmts = append(stmts, "commit")
	for _, s := range stmts {
		if err := exec(ctx, l.main, s); err != nil {
			exec(context.Background(), l.main, "rollback")
			return err
		}
	}
	if l.jobs <= 1 {
		return nil
	}
	per := (n + int64(l.jobs) - 1) / int64(l.jobs)
	return l.parallel(ctx, l.jobs, func(ctx context.Context, c *pgconn.PgConn, i int) error {
		first, last := int64(i)*per+1, min(int64(i+1)*per, n)
		if last < first {
			return nil
		}
		return exec(ctx, c, l.schema.ServerSideInsert(workload.Accounts, workload.Accounts, first, last))
	})
}
