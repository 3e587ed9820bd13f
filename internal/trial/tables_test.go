package trial

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// WorkloadTables names a mix's own tables and pgbench's for built-in scripts, and
// nothing for custom scripts alone; Config.Tables, when given, wins.
func TestWorkloadTables(t *testing.T) {
	builtin := []Script{{Name: "tpcb-like", Builtin: true}}
	custom := []Script{{Name: "my.sql"}}
	for _, tc := range []struct {
		scripts []Script
		mix     string
		want    string
	}{
		{nil, "tpcc", strings.Join(workload.TPCCTables[:9], ",")},
		{nil, "tpcc-spec", strings.Join(workload.TPCCTables[:9], ",")},
		{custom, "ycsb-a", "usertable"},
		{builtin, "", "pgbench_accounts,pgbench_branches,pgbench_history,pgbench_tellers"},
		{builtin, "ycsb-b", "usertable,pgbench_accounts,pgbench_branches,pgbench_history,pgbench_tellers"},
		{custom, "my", ""},
	} {
		if got := strings.Join(WorkloadTables(tc.scripts, tc.mix), ","); got != tc.want {
			t.Errorf("WorkloadTables(%v, %q) = %s, want %s", tc.scripts, tc.mix, got, tc.want)
		}
	}
	if slices.Contains(workload.TPCCTables[:9], "tpcc_meta") {
		t.Error("the nine TPC-C tables include tpcc_meta")
	}
	c := &Config{Scripts: builtin, Tables: []string{"x"}}
	if got := c.tables(); len(got) != 1 || got[0] != "x" {
		t.Errorf("explicit Tables: %v", got)
	}
}

// A run of the tpcc workload records the sizes of its own tables only, not a
// usertable left in the database by an earlier YCSB load.
func TestRunRecordsOwnTables(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, "create table usertable (k text)", "insert into usertable select g::text from generate_series(1, 1000) g",
		"create table warehouse (w_id int)", "create table pgbench_accounts (aid int)")
	tgt, _, err := Inspect(context.Background(), url, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	c := &Config{
		ConnString: url, Target: tgt,
		Scripts:  []Script{testScript(t, "select1.sql", "SELECT 1;\n")},
		Workload: "tpcc", Mode: script.Simple, Clients: 1, Threads: 1,
		Duration: 500 * time.Millisecond, Interval: 250 * time.Millisecond, MaxTries: 1,
		Seed:    prng.Seed{Value: 1},
		Collect: Collect{Kinds: []string{"server"}},
		Dir:     dir, Tool: results.Tool{Name: "pgtrial", Version: "test"},
		Out: func(string) {},
	}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Server == nil {
		t.Fatal("no server info in run.json")
	}
	var names []string
	for _, ts := range run.Server.Tables {
		names = append(names, ts.Name)
	}
	if strings.Join(names, ",") != "warehouse" {
		t.Errorf("tables recorded %v, want the tpcc workload's that exist: [warehouse]", names)
	}
}
