package engine

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/script"
)

// A statement that does not parse, in prepared mode: pgbench logs the
// prepare's syntax error and then aborts on `prepared statement "P_0" does not
// exist`; with PrepareFailsCommand (pgtrial's runs) the syntax error itself
// fails the command and nothing mentions P_0 (on the old code it did).
func TestPreparedSyntaxError(t *testing.T) {
	conn, err := pgconn.ParseConfig(pgtest.ConnString(t))
	if err != nil {
		t.Fatal(err)
	}
	s := parse(t, "SELEC 1;\n", script.Prepared)

	cfg, log := config(conn, 1, 1, script.Prepared, s)
	cfg.Transactions = 1
	res, _ := runToEnd(t, cfg)
	if out := log.String(); res.Aborted != 1 || !strings.Contains(out, `syntax error at or near "SELEC"`) || !strings.Contains(out, `prepared statement "P_0" does not exist`) {
		t.Errorf("pgbench's behaviour: aborted %d, log:\n%s", res.Aborted, out)
	}

	cfg, log = config(conn, 1, 1, script.Prepared, s)
	cfg.Transactions = 1
	cfg.PrepareFailsCommand = true
	res, _ = runToEnd(t, cfg)
	if out := log.String(); res.Aborted != 1 || !strings.Contains(out, "aborted in command 0 query 0: ") || !strings.Contains(out, `syntax error at or near "SELEC"`) || strings.Contains(out, "P_0") {
		t.Errorf("PrepareFailsCommand: aborted %d, log:\n%s", res.Aborted, out)
	}

	// Under --continue-on-error every transaction fails with the syntax error
	// (the prepare is tried again), none with P_0.
	cfg, log = config(conn, 1, 1, script.Prepared, s)
	cfg.Transactions = 3
	cfg.PrepareFailsCommand = true
	cfg.ContinueOnError = true
	cfg.VerboseErrors = true
	res, m := runToEnd(t, cfg)
	out := log.String()
	if res.Aborted != 0 || m.Total.Stats.Count != 0 || strings.Count(out, `syntax error at or near "SELEC"`) != 3 || strings.Contains(out, "P_0") {
		t.Errorf("--continue-on-error: aborted %d, committed %d, log:\n%s", res.Aborted, m.Total.Stats.Count, out)
	}
}
