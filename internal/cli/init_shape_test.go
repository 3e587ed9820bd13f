package cli

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// TestInitShape: --shape regenerates a column after the load and VACUUM FULL
// leaves the table as compact as a fresh load; a primary-key column and a bad
// spec are refused with the reason.
func TestInitShape(t *testing.T) {
	url := pgtest.ConnString(t)
	_, errOut := mustRun(t, 0, "init", "-s", "1", "-q", "-d", url, "--shape", "pgbench_accounts.abalance=zipf:s=1.1,max=100000,seed=3")
	if !strings.Contains(errOut, "shaped:    pgbench_accounts.abalance: 100000 rows rewritten") || !strings.Contains(errOut, "top 1 %:") {
		t.Errorf("stderr:\n%s", errOut)
	}
	var distinct, top, pages int64
	pgtest.QueryRow(t, url, `select count(distinct abalance), (select count(*) from pgbench_accounts where abalance = 1),
	        (select relpages from pg_class where relname = 'pgbench_accounts') from pgbench_accounts`, nil, &distinct, &top, &pages)
	// zipf s=1.1 over 1..100000: key 1 holds 1/H(100000, 1.1) ≈ 1/8.6 ≈ 11.6 % of the rows.
	if distinct < 1000 || top < 8000 || top > 16000 {
		t.Errorf("abalance: %d distinct, %d rows at 1; want zipf's", distinct, top)
	}
	// A fresh scale-1 pgbench_accounts at fillfactor 100 is 1640 pages; the
	// shaping's dead versions would double it without VACUUM FULL.
	if pages < 1500 || pages > 1800 {
		t.Errorf("pgbench_accounts has %d pages after --shape, want about 1640 (compacted)", pages)
	}
	_, errOut = mustRun(t, 1, "init", "-I", "v", "-q", "-d", url, "--shape", "pgbench_accounts.aid=uniform")
	if !strings.Contains(errOut, "primary key of pgbench_accounts") {
		t.Errorf("shaping aid: %s", errOut)
	}
	_, errOut = mustRun(t, 1, "init", "-q", "-d", "postgres://nosuchhost.invalid/x", "--shape", "pgbench_accounts.bid")
	if !strings.Contains(errOut, "want TABLE.COLUMN=DIST") || strings.Contains(errOut, "nosuchhost") {
		t.Errorf("bad --shape: %s", errOut)
	}
}
