package loader

// What was measured (scale 20 = 2,000,000 accounts, PostgreSQL 15, 2 cores shared by
// client and server, defaults: shared_buffers 128MB, wal_level replica; medians of 5
// interleaved runs; ±15% noise between runs on this machine):
//
//   - The COPY backend is the bottleneck: it runs at ~91% of a core while the client
//     spends 0.03–0.08 s of CPU in total (generation: 6 ns/row binary, 36 ns/row text).
//     A separate generator goroutine cannot help, so rows are written straight into
//     pgconn's 64 KiB CopyData buffer.
//   - COPY BINARY instead of text: load 1.44 s against 1.60 s (−8%): no integer
//     parsing on the server. The rows are the same (bpcharrecv pads '' to char(84)).
//   - One COPY FREEZE stream against 2 or 3 plain streams into the same table: 2 streams
//     load in 0.9–1.1 s instead of 1.2–1.5 s, but the table then needs a real VACUUM
//     (hint bits, visibility map: 0.45–0.7 s instead of 0.2–0.27 s on frozen pages) and the
//     key build is slower (it sets the hint bits); whole init 2.35 s against 2.05 s.
//     Building the key before the VACUUM was worse still. Kept: one FREEZE stream.
//   - ANALYZE inside the loading transaction: no difference (1.98 s against 2.05 s).
//   - Partitions are the exception: each is a table of its own, truncated and loaded
//     with FREEZE by its own connection, so both cores load frozen data. Range
//     partitions get their aid range; hash partitions get every aid the server would
//     route to them, computed with the server's hash (hashpart.go). pgbench loads
//     partitions through the parent without FREEZE, so its VACUUM has real work.
//   - Primary keys: maintenance_work_mem large enough to sort in memory (see
//     maintain.go); parallel index workers (0, 1, 2) made no measurable difference.
//   - Dropping the old tables in the background (loader.go): drop 0.12 s → 0.01 s.
//   - Not kept: synchronous_commit=off (breaks VACUUM's all-visible marking right after a
//     load, see sessionSettings); column defaults for abalance/filler with a 2-column
//     COPY (within the noise); a generated bid column (slower).
//   - The server's COPY, profiled (perf, scale 20): heap_multi_insert 33% (of which
//     22% extending the file one zeroed page at a time and writing the 16 MB bulk-write
//     ring back, PostgreSQL 15), NextCopyFrom 22%, WAL CRC 2%. None of it is the
//     client's to change; only a second relation (a partition) gives a second core work.

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/workload"
)

// accountsLayout is how pgbench_accounts is stored, read from the catalog (init may run
// step g on tables an earlier run created with other options).
type accountsLayout struct {
	partitioned bool
	strategy    string // "r" range, "h" hash (pg_partitioned_table.partstrat)
	// ranged lists range partitions with the aid range each may hold; nil when the
	// bounds could not be read (the loader then goes through the parent).
	ranged []partitionRange
	// hashed lists hash partitions with their bounds; nil when the bounds could not be
	// read or there are more than maxFrozenHashPartitions.
	hashed []hashPartition
}

type hashPartition struct {
	name  string
	bound hashBound
}

type partitionRange struct {
	name     string
	from, to int64 // aids [from, to), clipped to math.MinInt64..MaxInt64 for MINVALUE/MAXVALUE
}

func (l *loader) accountsLayout(ctx context.Context) (accountsLayout, error) {
	rows, err := queryStrings(ctx, l.main,
		`select coalesce(p.partstrat::text, '')
		   from pg_class c left join pg_partitioned_table p on p.partrelid = c.oid
		  where c.oid = to_regclass($1)`, workload.Accounts)
	if err != nil {
		return accountsLayout{}, err
	}
	if len(rows) == 0 {
		return accountsLayout{}, fmt.Errorf("table %s does not exist: run the t step (create tables) first", workload.Accounts)
	}
	lay := accountsLayout{strategy: rows[0][0], partitioned: rows[0][0] != ""}
	if lay.strategy != "r" && lay.strategy != "h" {
		return lay, nil
	}
	parts, err := queryStrings(ctx, l.main,
		`select c.oid::regclass::text, pg_get_expr(c.relpartbound, c.oid)
		   from pg_inherits i join pg_class c on c.oid = i.inhrelid
		  where i.inhparent = to_regclass($1) and c.relkind = 'r'
		  order by c.oid`, workload.Accounts)
	if err != nil {
		return lay, err
	}
	if lay.strategy == "h" {
		// Every partition must be a plain table with a bound we read, or no row may go
		// astray: a sub-partitioned or unreadable one sends everything through the parent.
		all, err := queryStrings(ctx, l.main, `select count(*) from pg_inherits where inhparent = to_regclass($1)`, workload.Accounts)
		if err != nil {
			return lay, err
		}
		if len(all) == 0 || all[0][0] != strconv.Itoa(len(parts)) || len(parts) > maxFrozenHashPartitions {
			return lay, nil
		}
		for _, p := range parts {
			b, ok := parseHashBound(p[1])
			if !ok {
				return accountsLayout{partitioned: true, strategy: "h"}, nil
			}
			lay.hashed = append(lay.hashed, hashPartition{name: p[0], bound: b})
		}
		return lay, nil
	}
	for _, p := range parts {
		from, to, ok := parseRangeBound(p[1])
		if !ok {
			return accountsLayout{partitioned: true, strategy: "r"}, nil
		}
		lay.ranged = append(lay.ranged, partitionRange{name: p[0], from: from, to: to})
	}
	return lay, nil
}

// parseRangeBound reads "FOR VALUES FROM (MINVALUE) TO ('100001')" as pg_get_expr prints
// a one-column integer range bound.
func parseRangeBound(s string) (from, to int64, ok bool) {
	rest, found := strings.CutPrefix(s, "FOR VALUES FROM (")
	if !found {
		return 0, 0, false
	}
	lo, rest, found := strings.Cut(rest, ") TO (")
	if !found {
		return 0, 0, false
	}
	hi, found := strings.CutSuffix(rest, ")")
	if !found {
		return 0, 0, false
	}
	parse := func(v string) (int64, bool) {
		switch v {
		case "MINVALUE":
			return math.MinInt64, true
		case "MAXVALUE":
			return math.MaxInt64, true
		}
		n, err := strconv.ParseInt(strings.Trim(v, "'"), 10, 64)
		return n, err == nil
	}
	from, ok1 := parse(lo)
	to, ok2 := parse(hi)
	return from, to, ok1 && ok2
}

// copyJob is one COPY of accounts rows on a worker connection.
type copyJob struct {
	target string
	ranges []keyRange
	// bound, for a hash partition, keeps only the keys of ranges that it holds.
	bound *hashBound
	// freeze: the job runs BEGIN; TRUNCATE target; COPY … FREEZE; COMMIT. COPY FREEZE
	// needs the table created or truncated in the same transaction, which a partition
	// loaded by its own connection allows.
	freeze bool
}

// generateClient is step g: pgbench's rows sent with COPY.
func (l *loader) generateClient(ctx context.Context) error {
	l.prog.Line("generating data (client-side)...")
	lay, err := l.accountsLayout(ctx)
	if err != nil {
		return err
	}
	// COPY FREEZE on a table truncated in the same transaction is allowed since 9.3; since
	// 14 it also sets the visibility map, which is what makes the later VACUUM unneeded.
	freeze := l.version >= 140000
	nAccounts := l.schema.Rows(workload.Accounts)

	if !lay.partitioned {
		return l.generateOneTransaction(ctx, freeze)
	}

	// Small tables first, in one transaction that also truncates everything; then the
	// accounts rows on several connections at once.
	if err := l.generateSmall(ctx, freeze, true); err != nil {
		return err
	}
	var jobs []copyJob
	switch {
	case lay.strategy == "r" && len(lay.ranged) > 0:
		for _, p := range lay.ranged {
			first := max(p.from, 1) - 1 // 0-based keys
			end := min(p.to-1, nAccounts)
			if end <= first {
				continue
			}
			jobs = append(jobs, copyJob{target: p.name, ranges: []keyRange{{first, end}}, freeze: freeze})
		}
	case lay.strategy == "h" && len(lay.hashed) > 0:
		// Each hash partition on its own connection, frozen: its stream walks every key
		// and sends the ones the partition holds (hashpart.go), in aid order.
		for _, p := range lay.hashed {
			jobs = append(jobs, copyJob{target: p.name, ranges: []keyRange{{0, nAccounts}}, bound: &p.bound, freeze: freeze})
		}
	default:
		// Hash partitions past maxFrozenHashPartitions (or unreadable bounds): several
		// streams into the parent (the server routes rows to partitions), no FREEZE
		// (only one transaction could truncate them all), so step v must VACUUM. Stream s sends chunks s, s+S, s+2S, … so the heap stays
		// nearly in aid order (correlation ≈ 1) as pgbench's is.
		streams := l.jobs
		const chunk = 16384 // rows: ~270 heap pages per chunk
		per := make([][]keyRange, streams)
		for i, k := 0, int64(0); k < nAccounts; i, k = i+1, k+chunk {
			per[i%streams] = append(per[i%streams], keyRange{k, min(k+chunk, nAccounts)})
		}
		for _, rs := range per {
			if len(rs) > 0 {
				jobs = append(jobs, copyJob{target: workload.Accounts, ranges: rs})
			}
		}
	}
	counter, stop := l.prog.Rows(workload.Accounts, nAccounts)
	err = l.runCopyJobs(ctx, jobs, counter)
	stop()
	if err != nil {
		return err
	}
	return nil
}

// generateOneTransaction loads all tables in one transaction on the main connection,
// each with COPY FREEZE: pgbench's plan with larger messages and no per-row calls.
func (l *loader) generateOneTransaction(ctx context.Context, freeze bool) error {
	if err := l.generateSmall(ctx, freeze, false); err != nil {
		return err
	}
	n := l.schema.Rows(workload.Accounts)
	counter, stop := l.prog.Rows(workload.Accounts, n)
	err := l.copyRows(ctx, l.main, workload.Accounts, workload.Accounts, []keyRange{{0, n}}, nil, freeze, counter)
	stop()
	if err != nil {
		exec(context.Background(), l.main, "rollback")
		return err
	}
	return exec(ctx, l.main, "commit")
}

// generateSmall truncates all tables and loads branches and tellers in one transaction;
// commit says whether to commit it (else the transaction stays open for accounts).
func (l *loader) generateSmall(ctx context.Context, freeze, commit bool) error {
	if err := exec(ctx, l.main, "begin"); err != nil {
		return err
	}
	if err := exec(ctx, l.main, l.schema.TruncateTables()); err != nil {
		exec(context.Background(), l.main, "rollback")
		return err
	}
	for _, t := range []string{workload.Branches, workload.Tellers} {
		n := l.schema.Rows(t)
		counter, stop := l.prog.Rows(t, n)
		err := l.copyRows(ctx, l.main, t, t, []keyRange{{0, n}}, nil, freeze, counter)
		stop()
		if err != nil {
			exec(context.Background(), l.main, "rollback")
			return err
		}
	}
	if commit {
		if err := exec(ctx, l.main, "commit"); err != nil {
			return err
		}
	}
	return nil
}

// runCopyJobs runs the jobs on up to l.jobs connections of their own; the first error
// cancels the others.
func (l *loader) runCopyJobs(ctx context.Context, jobs []copyJob, counter *atomic.Int64) error {
	return l.parallel(ctx, len(jobs), func(ctx context.Context, c *pgconn.PgConn, i int) error {
		j := jobs[i]
		if !j.freeze {
			return l.copyRows(ctx, c, workload.Accounts, j.target, j.ranges, j.bound, false, counter)
		}
		if err := exec(ctx, c, "begin; truncate table "+j.target); err != nil {
			return err
		}
		if err := l.copyRows(ctx, c, workload.Accounts, j.target, j.ranges, j.bound, true, counter); err != nil {
			exec(context.Background(), c, "rollback")
			return err
		}
		return exec(ctx, c, "commit")
	})
}

// parallel runs n tasks on min(l.jobs, n) worker connections opened for the purpose
// (workers.run); each connection publishes its table statistics before it closes.
func (l *loader) parallel(ctx context.Context, n int, task func(ctx context.Context, c *pgconn.PgConn, i int) error) error {
	return workers{conn: l.cfg.Conn, jobs: l.jobs, done: l.flushStats}.run(ctx, n, task)
}
