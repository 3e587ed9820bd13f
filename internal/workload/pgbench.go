// Package workload defines pgtrial's built-in workloads. This file is pgbench's schema
// (the tables behind tpcb-like, simple-update and select-only): table names, row counts,
// DDL text exactly as pgbench -i emits it, and the statements of its init steps, so that
// pgbench's own built-in scripts run unchanged on tables made by pgtrial.
package workload

import (
	"fmt"
	"strings"
)

// pgbench's table names.
const (
	Branches = "pgbench_branches"
	Tellers  = "pgbench_tellers"
	Accounts = "pgbench_accounts"
	History  = "pgbench_history"
)

// PgbenchTables lists pgbench's tables in the order pgbench names them in DROP and
// TRUNCATE (alphabetical).
var PgbenchTables = []string{Accounts, Branches, History, Tellers}

// Rows per unit of scale (pgbench's nbranches, ntellers, naccounts).
const (
	BranchesPerScale = 1
	TellersPerScale  = 10
	AccountsPerScale = 100000
)

// BigAidScale is the scale from which pgbench makes aid a bigint: 20000 × 100000 =
// 2e9 accounts, close to int4's 2^31−1.
const BigAidScale = 20000

// PgbenchMark is the table comment that marks a pgbench-schema table as pgtrial's own;
// init drops or truncates only tables carrying it unless told --force.
const PgbenchMark = "pgtrial:pgbench"

// Partition methods for pgbench_accounts.
const (
	PartitionNone  = ""
	PartitionRange = "range"
	PartitionHash  = "hash"
)

// Pgbench describes one pgbench schema: its size and its DDL options. The zero value is
// not valid; start from DefaultPgbench.
type Pgbench struct {
	Scale           int64  // branches; accounts = 100000 × Scale
	Fillfactor      int    // 10..100, on branches, tellers and accounts
	Unlogged        bool   // CREATE UNLOGGED TABLE (partitions too; a partitioned parent only before PostgreSQL 18)
	Partitions      int    // 0: pgbench_accounts is a plain table
	PartitionMethod string // PartitionRange or PartitionHash when Partitions > 0
	Tablespace      string // TABLESPACE of every CREATE TABLE, "" for the default
	IndexTablespace string // USING INDEX TABLESPACE of the primary keys, "" for the default
}

// DefaultPgbench returns pgbench's defaults: scale 1, fillfactor 100.
func DefaultPgbench() Pgbench {
	return Pgbench{Scale: 1, Fillfactor: 100}
}

// Validate checks the options with pgbench's limits and says what to do about a bad one.
func (p Pgbench) Validate() error {
	if p.Scale < 1 || p.Scale > 1<<31-1 {
		return fmt.Errorf("invalid scale %d: it must be in range 1..2147483647 (number of branches; accounts = 100000 × scale)", p.Scale)
	}
	if p.Fillfactor < 10 || p.Fillfactor > 100 {
		return fmt.Errorf("invalid fillfactor %d: it must be in range 10..100", p.Fillfactor)
	}
	if p.Partitions < 0 {
		return fmt.Errorf("invalid number of partitions %d: it must be 0 (no partitioning) or more", p.Partitions)
	}
	switch p.PartitionMethod {
	case PartitionNone:
		if p.Partitions > 0 {
			return fmt.Errorf("partitions set without a partition method: use --partition-method range or hash")
		}
	case PartitionRange, PartitionHash:
		if p.Partitions == 0 {
			return fmt.Errorf("--partition-method requires greater than zero --partitions")
		}
	default:
		return fmt.Errorf("invalid partition method, expecting \"range\" or \"hash\", got: %q", p.PartitionMethod)
	}
	return nil
}

// BigAid reports whether aid is a bigint (scale ≥ 20000).
func (p Pgbench) BigAid() bool { return p.Scale >= BigAidScale }

// Rows is the number of rows table gets at this scale (history starts empty).
func (p Pgbench) Rows(table string) int64 {
	switch table {
	case Branches:
		return BranchesPerScale * p.Scale
	case Tellers:
		return TellersPerScale * p.Scale
	case Accounts:
		return AccountsPerScale * p.Scale
	}
	return 0
}

// Partitioned reports whether pgbench_accounts is partitioned.
func (p Pgbench) Partitioned() bool { return p.Partitions > 0 }

// PartitionName is the name of accounts partition i (1-based), as pgbench names it.
func PartitionName(i int) string { return fmt.Sprintf("%s_%d", Accounts, i) }

// PartitionSize is the number of aids per range partition: ceil(accounts / partitions).
func (p Pgbench) PartitionSize() int64 {
	n := p.Rows(Accounts)
	parts := int64(p.Partitions)
	return (n + parts - 1) / parts
}

// PartitionRange returns the aids [first, last] that range partition i (1-based) holds;
// last < first when the partition is empty (more partitions than needed).
func (p Pgbench) PartitionRange(i int) (first, last int64) {
	size := p.PartitionSize()
	first = int64(i-1)*size + 1
	last = min(int64(i)*size, p.Rows(Accounts))
	return first, last
}

// QuoteIdent quotes a SQL identifier the way PQescapeIdentifier does.
func QuoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteLiteral quotes a SQL string literal (standard_conforming_strings on).
func QuoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// DropTables is step d's statement.
func (p Pgbench) DropTables() string {
	return "drop table if exists " + strings.Join(PgbenchTables, ", ")
}

// TruncateTables is the TRUNCATE that starts steps g and G.
func (p Pgbench) TruncateTables() string {
	return "truncate table " + strings.Join(PgbenchTables, ", ")
}

type tableDDL struct {
	name, cols, bigCols string
	fillfactor          bool
}

// pgbench's DDL, in pgbench's creation order.
var pgbenchDDL = []tableDDL{
	{History, "tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)",
		"tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)", false},
	{Tellers, "tid int not null,bid int,tbalance int,filler char(84)", "", true},
	{Accounts, "aid    int not null,bid int,abalance int,filler char(84)",
		"aid bigint not null,bid int,abalance int,filler char(84)", true},
	{Branches, "bid int not null,bbalance int,filler char(88)", "", true},
}

// CreateTables returns step t's statements for a server of major version serverMajor:
// the four tables in pgbench's order, then the accounts partitions, then one COMMENT per
// table marking it as pgtrial's.
func (p Pgbench) CreateTables(serverMajor int) []string {
	var out []string
	for _, t := range pgbenchDDL {
		cols := t.cols
		if p.BigAid() && t.bigCols != "" {
			cols = t.bigCols
		}
		partitionedParent := t.name == Accounts && p.Partitioned()
		var b strings.Builder
		b.WriteString("create")
		// A partitioned parent has no storage. PostgreSQL 18 refuses UNLOGGED on it (and
		// pgbench 18 stopped asking); before 18 the parent must be unlogged like its
		// partitions, or foreign keys between it and the unlogged tables are refused
		// ("constraints on permanent tables may reference only permanent tables").
		if p.Unlogged && (!partitionedParent || serverMajor < 18) {
			b.WriteString(" unlogged")
		}
		fmt.Fprintf(&b, " table %s(%s)", t.name, cols)
		if partitionedParent {
			fmt.Fprintf(&b, " partition by %s (aid)", p.PartitionMethod)
		}
		if t.fillfactor && !partitionedParent {
			fmt.Fprintf(&b, " with (fillfactor=%d)", p.Fillfactor)
		}
		if p.Tablespace != "" {
			b.WriteString(" tablespace " + QuoteIdent(p.Tablespace))
		}
		out = append(out, b.String())
	}
	for i := 1; i <= p.Partitions; i++ {
		out = append(out, p.createPartition(i))
	}
	for _, t := range PgbenchTables {
		out = append(out, fmt.Sprintf("comment on table %s is %s", t, QuoteLiteral(PgbenchMark)))
	}
	return out
}

func (p Pgbench) createPartition(i int) string {
	var b strings.Builder
	b.WriteString("create")
	if p.Unlogged {
		b.WriteString(" unlogged")
	}
	fmt.Fprintf(&b, " table %s\n  partition of %s\n  for values ", PartitionName(i), Accounts)
	if p.PartitionMethod == PartitionRange {
		size := p.PartitionSize()
		from, to := "minvalue", "maxvalue"
		if i > 1 {
			from = fmt.Sprint(int64(i-1)*size + 1)
		}
		if i < p.Partitions {
			to = fmt.Sprint(int64(i)*size + 1)
		}
		fmt.Fprintf(&b, "from (%s) to (%s)", from, to)
	} else {
		fmt.Fprintf(&b, "with (modulus %d, remainder %d)", p.Partitions, i-1)
	}
	fmt.Fprintf(&b, " with (fillfactor=%d)", p.Fillfactor)
	return b.String()
}

// PrimaryKey is the table and key column of one of step p's primary keys.
type PrimaryKey struct{ Table, Column string }

// PrimaryKeys lists step p's keys, in pgbench's order.
var PrimaryKeys = []PrimaryKey{{Branches, "bid"}, {Tellers, "tid"}, {Accounts, "aid"}}

// AddPrimaryKey is pgbench's statement for one key.
func (p Pgbench) AddPrimaryKey(k PrimaryKey) string {
	s := fmt.Sprintf("alter table %s add primary key (%s)", k.Table, k.Column)
	if p.IndexTablespace != "" {
		s += " using index tablespace " + QuoteIdent(p.IndexTablespace)
	}
	return s
}

// ForeignKeys is step f's statements, in pgbench's order.
func (p Pgbench) ForeignKeys() []string {
	return []string{
		"alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
		"alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
		"alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
	}
}

// ServerSideInsert is step G's statement for table, limited to the key range
// [first, last] (1-based, inclusive) so that a loader can split it across connections.
// Rows and values are pgbench's: filler NULL for branches and tellers, ” for accounts.
func (p Pgbench) ServerSideInsert(table, target string, first, last int64) string {
	switch table {
	case Branches:
		return fmt.Sprintf("insert into %s(bid,bbalance) select bid, 0 from generate_series(%d, %d) as bid", target, first, last)
	case Tellers:
		return fmt.Sprintf("insert into %s(tid,bid,tbalance) select tid, (tid - 1) / %d + 1, 0 from generate_series(%d, %d) as tid",
			target, TellersPerScale, first, last)
	case Accounts:
		return fmt.Sprintf("insert into %s(aid,bid,abalance,filler) select aid, (aid - 1) / %d + 1, 0, '' from generate_series(%d, %d) as aid",
			target, AccountsPerScale, first, last)
	}
	return ""
}
