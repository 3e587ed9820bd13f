package workload

import "strings"

// BuiltinScript is one of pgbench's built-in transaction scripts (pgbench -b NAME).
type BuiltinScript struct {
	Name   string // what -b and --show-script take (any unambiguous prefix)
	Desc   string // "transaction type:" in the report, "-- name: desc" in --show-script
	Script string // pgbench script text, exactly as pgbench has it
}

// BuiltinScripts are pgbench's built-in scripts in pgbench's order (the order of
// "-b list" and of prefix lookup). The text is pgbench's, byte for byte: the report's
// per-command lines and the PRNG streams (simple-update still draws bid and tid) depend
// on it. The numbers are pgbench's naccounts (100000), nbranches (1) and ntellers (10).
var BuiltinScripts = []BuiltinScript{
	{
		Name: "tpcb-like",
		Desc: "<builtin: TPC-B (sort of)>",
		Script: `\set aid random(1, 100000 * :scale)
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
`,
	},
	{
		Name: "simple-update",
		Desc: "<builtin: simple update>",
		Script: `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`,
	},
	{
		Name: "select-only",
		Desc: "<builtin: select only>",
		Script: `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`,
	},
}

// FindBuiltin looks a built-in script up the way pgbench does: every script whose name
// starts with prefix matches (so "t", "si" and "se" work, "s" is ambiguous, and ""
// matches all). It returns the single match, or nil and how many matched (0 or more
// than 1).
func FindBuiltin(prefix string) (*BuiltinScript, int) {
	var found *BuiltinScript
	n := 0
	for i := range BuiltinScripts {
		if strings.HasPrefix(BuiltinScripts[i].Name, prefix) {
			found = &BuiltinScripts[i]
			n++
		}
	}
	if n != 1 {
		return nil, n
	}
	return found, 1
}

// BuiltinNames are the names of BuiltinScripts, in their order.
func BuiltinNames() []string {
	names := make([]string, len(BuiltinScripts))
	for i, b := range BuiltinScripts {
		names[i] = b.Name
	}
	return names
}

// NotOneBuiltin says why FindBuiltin's n matches are not one script: "no
// built-in script" (0) or "ambiguous built-in script name" (more).
func NotOneBuiltin(n int) string {
	if n > 1 {
		return "ambiguous built-in script name"
	}
	return "no built-in script"
}
