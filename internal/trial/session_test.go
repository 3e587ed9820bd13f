package trial

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

// A role (here the database) with statement_timeout = 1ms: Inspect's own
// queries still run (they have a timeout of their own; on the old code "read
// server settings" failed with 57014); the clients keep the database's
// statement_timeout (what is measured) and are named "pgtrial <run dir>".
func TestOwnSessionsAndClientsOnAHostileRole(t *testing.T) {
	url := pgtest.ConnString(t)
	pc, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	db := pgx.Identifier{pc.Database}.Sanitize()
	execSQL(t, url, "CREATE TABLE seen (st text, app text)",
		"ALTER DATABASE "+db+" SET statement_timeout = '1ms'",
		"ALTER DATABASE "+db+" SET lock_timeout = '1ms'")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tgt, _, err := Inspect(ctx, url, false)
	if err != nil {
		t.Fatalf("Inspect under a 1 ms statement_timeout: %v", err)
	}

	// The clients: the database's value (1 h, so that they can run).
	execSQL(t, url, "ALTER DATABASE "+db+" SET statement_timeout = '1h'")
	dir := filepath.Join(t.TempDir(), "hostile-run")
	c := &Config{
		ConnString:   url,
		Target:       tgt,
		Scripts:      []Script{testScript(t, "seen.sql", "INSERT INTO seen SELECT current_setting('statement_timeout'), current_setting('application_name');\n")},
		Mode:         script.Simple,
		Clients:      1,
		Threads:      1,
		Transactions: 1,
		Interval:     250 * time.Millisecond,
		MaxTries:     1,
		Seed:         prng.Seed{Value: 1},
		Collect:      Collect{Kinds: []string{"server"}},
		Dir:          dir,
		Tool:         results.Tool{Name: "pgtrial", Version: "test"},
		Out:          func(string) {},
	}
	r, err := Run(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Total.Committed != 1 {
		t.Fatalf("committed %d, err %v", r.Summary.Total.Committed, r.Err)
	}
	for _, w := range r.Run.Warnings {
		t.Errorf("warning: %s", w)
	}
	var st, app string
	pgtest.QueryRow(t, url, "SELECT st, app FROM seen", nil, &st, &app)
	if st != "1h" || app != "pgtrial hostile-run" {
		t.Errorf("the client ran with statement_timeout %q and application_name %q, want the database's 1h and \"pgtrial hostile-run\"", st, app)
	}
}

// The pgbench front end's clients keep the connection string's name (pgbench's
// fallback_application_name is in it); the user's application_name wins over ours.
func TestClientConnName(t *testing.T) {
	pc, err := pgconn.ParseConfig("postgres://u@h/db?application_name=mine")
	if err != nil {
		t.Fatal(err)
	}
	c := &Config{Dir: "runs/r1"}
	if got := c.clientConn(pc).RuntimeParams["application_name"]; got != "mine" {
		t.Errorf("user's application_name: %q", got)
	}
	delete(pc.RuntimeParams, "application_name")
	if got := c.clientConn(pc).RuntimeParams["application_name"]; got != "pgtrial r1" {
		t.Errorf("no application_name: %q", got)
	}
	if _, ok := pc.RuntimeParams["application_name"]; ok {
		t.Error("clientConn changed the caller's config")
	}
	c.Pgbench = &Pgbench{}
	if got := c.clientConn(pc).RuntimeParams["application_name"]; got != "" {
		t.Errorf("pgbench front end: %q (pgbench names its clients in the connection string)", got)
	}
}
