package workload

import (
	"strings"
	"testing"
)

func TestCreateTablesIsPgbenchsDDL(t *testing.T) {
	p := DefaultPgbench()
	got := p.CreateTables(18)
	want := []string{
		"create table pgbench_history(tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22))",
		"create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=100)",
		"create table pgbench_accounts(aid    int not null,bid int,abalance int,filler char(84)) with (fillfactor=100)",
		"create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor=100)",
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("statement %d:\n got %s\nwant %s", i, got[i], w)
		}
	}
	if n := len(got) - len(want); n != 4 || !strings.Contains(got[len(got)-1], "'pgtrial:pgbench'") {
		t.Errorf("want 4 marking comments after the tables, got %q", got[len(want):])
	}
}

func TestCreateTablesOptions(t *testing.T) {
	p := Pgbench{Scale: 20000, Fillfactor: 80, Unlogged: true, Partitions: 3, PartitionMethod: PartitionRange,
		Tablespace: `my"ts`}
	// ceil(2e9 / 3) = 666666667 aids per partition; bounds are p × size + 1.
	got := strings.Join(p.CreateTables(18), "\n")
	for _, want := range []string{
		`create unlogged table pgbench_history(tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)) tablespace "my""ts"`,
		// The partitioned parent: not unlogged, no fillfactor, but the tablespace.
		`create table pgbench_accounts(aid bigint not null,bid int,abalance int,filler char(84)) partition by range (aid) tablespace "my""ts"`,
		"create unlogged table pgbench_accounts_1\n  partition of pgbench_accounts\n  for values from (minvalue) to (666666668) with (fillfactor=80)",
		"for values from (666666668) to (1333333335) with (fillfactor=80)",
		"for values from (1333333335) to (maxvalue) with (fillfactor=80)",
		`create unlogged table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=80) tablespace "my""ts"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("DDL lacks %q:\n%s", want, got)
		}
	}
	// Before PostgreSQL 18 the partitioned parent is unlogged too.
	if got := strings.Join(p.CreateTables(15), "\n"); !strings.Contains(got, "create unlogged table pgbench_accounts(aid bigint not null,bid int,abalance int,filler char(84)) partition by range (aid)") {
		t.Errorf("PostgreSQL 15 DDL:\n%s", got)
	}
	h := Pgbench{Scale: 1, Fillfactor: 100, Partitions: 2, PartitionMethod: PartitionHash}
	if got := strings.Join(h.CreateTables(18), "\n"); !strings.Contains(got, "for values with (modulus 2, remainder 1) with (fillfactor=100)") {
		t.Errorf("hash partition DDL:\n%s", got)
	}
}

func TestPartitionRange(t *testing.T) {
	p := Pgbench{Scale: 1, Fillfactor: 100, Partitions: 3, PartitionMethod: PartitionRange}
	// ceil(100000/3) = 33334 per partition.
	want := [][2]int64{{1, 33334}, {33335, 66668}, {66669, 100000}}
	for i, w := range want {
		if f, l := p.PartitionRange(i + 1); f != w[0] || l != w[1] {
			t.Errorf("partition %d: [%d, %d], want %v", i+1, f, l, w)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := DefaultPgbench()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		mut  func(*Pgbench)
		want string
	}{
		{func(p *Pgbench) { p.Scale = 0 }, "invalid scale 0"},
		{func(p *Pgbench) { p.Scale = -3 }, "invalid scale -3"},
		{func(p *Pgbench) { p.Fillfactor = 9 }, "10..100"},
		{func(p *Pgbench) { p.Fillfactor = 101 }, "10..100"},
		{func(p *Pgbench) { p.Partitions = -1 }, "invalid number of partitions"},
		{func(p *Pgbench) { p.PartitionMethod = PartitionHash }, "requires greater than zero --partitions"},
		{func(p *Pgbench) { p.Partitions = 2; p.PartitionMethod = "list" }, `expecting "range" or "hash", got: "list"`},
	}
	for _, tt := range tests {
		p := DefaultPgbench()
		tt.mut(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", p, err, tt.want)
		}
	}
}

func TestServerSideInsert(t *testing.T) {
	p := DefaultPgbench()
	got := p.ServerSideInsert(Accounts, Accounts, 1, 100000)
	want := "insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / 100000 + 1, 0, '' from generate_series(1, 100000) as aid"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
