package workload

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestBuiltinScriptsText(t *testing.T) {
	want := map[string][2]string{
		"tpcb-like": {"<builtin: TPC-B (sort of)>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
		"simple-update": {"<builtin: simple update>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
		"select-only": {"<builtin: select only>", `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`},
	}
	order := []string{"tpcb-like", "simple-update", "select-only"}
	if len(BuiltinScripts) != len(order) {
		t.Fatalf("%d built-in scripts, want %d", len(BuiltinScripts), len(order))
	}
	for i, b := range BuiltinScripts {
		if b.Name != order[i] {
			t.Errorf("script %d is %q, want %q (pgbench's order)", i, b.Name, order[i])
		}
		w := want[b.Name]
		if b.Desc != w[0] || b.Script != w[1] {
			t.Errorf("%s: desc %q, script:\n%s\nwant %q:\n%s", b.Name, b.Desc, b.Script, w[0], w[1])
		}
	}
}

func TestFindBuiltin(t *testing.T) {
	tests := []struct {
		prefix string
		want   string
		n      int
	}{
		{"tpcb-like", "tpcb-like", 1},
		{"t", "tpcb-like", 1},
		{"si", "simple-update", 1},
		{"se", "select-only", 1},
		{"select-only", "select-only", 1},
		{"s", "", 2},
		{"", "", 3},
		{"x", "", 0},
		{"select-only-x", "", 0},
		{"T", "", 0}, // case-sensitive, as strncmp
	}
	for _, tt := range tests {
		b, n := FindBuiltin(tt.prefix)
		got := ""
		if b != nil {
			got = b.Name
		}
		if got != tt.want || n != tt.n {
			t.Errorf("FindBuiltin(%q) = %q, %d; want %q, %d", tt.prefix, got, n, tt.want, tt.n)
		}
	}
}

// TestBuiltinScriptsMatchPgbench compares with the installed pgbench's --show-script
// (the built-in scripts have not changed since PostgreSQL 13).
func TestBuiltinScriptsMatchPgbench(t *testing.T) {
	pgbench, err := exec.LookPath("pgbench")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pgbench not found (CI=true)")
		}
		t.Skip("pgbench not installed")
	}
	for _, b := range BuiltinScripts {
		var stderr bytes.Buffer
		cmd := exec.Command(pgbench, "--show-script="+b.Name)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("pgbench --show-script=%s: %v: %s", b.Name, err, stderr.String())
		}
		want := "-- " + b.Name + ": " + b.Desc + "\n" + b.Script + "\n"
		if got := stderr.String(); got != want {
			t.Errorf("pgbench --show-script=%s:\n%s\nours:\n%s", b.Name, got, want)
		}
		if strings.Contains(b.Script, "\r") {
			t.Errorf("%s has a carriage return", b.Name)
		}
	}
}
