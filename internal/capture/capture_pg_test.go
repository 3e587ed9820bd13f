package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestCaptureSessionIsReadOnly: capture's session refuses a write
// (SQLSTATE 25006) and runs under the statement timeout it was given.
func TestCaptureSessionIsReadOnly(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := connectReadOnly(ctx, Config{ConnString: url, StatementTimeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var ro, timeout, app string
	if err := conn.QueryRow(ctx, "SELECT current_setting('transaction_read_only'), current_setting('statement_timeout'), current_setting('application_name')").Scan(&ro, &timeout, &app); err != nil {
		t.Fatal(err)
	}
	if ro != "on" || timeout != "1500ms" || app != ApplicationName {
		t.Errorf("read only %q, statement_timeout %q, application_name %q", ro, timeout, app)
	}
	_, err = conn.Exec(ctx, "CREATE TABLE capture_must_not_write (k int)")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "25006" {
		t.Errorf("a write on capture's session: %v, want SQLSTATE 25006 (read-only transaction)", err)
	}
	_, err = conn.Exec(ctx, "SELECT pg_sleep(5)")
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Errorf("a statement longer than the timeout: %v, want SQLSTATE 57014", err)
	}
}

// TestCaptureNothingToCapture: a database with no statement of enough
// calls is an error that says so, and writes nothing.
func TestCaptureNothingToCapture(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
		"SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)")
	out := filepath.Join(t.TempDir(), "w")
	_, err := Capture(context.Background(), Config{ConnString: url, Out: out, MinCalls: 1000})
	if err == nil || !strings.Contains(err.Error(), "no top-level statement with at least 1000 calls") {
		t.Errorf("err %v", err)
	}
	if entries, _ := filepath.Glob(filepath.Join(out, "*")); len(entries) > 0 {
		t.Errorf("wrote %v", entries)
	}
}

// TestCaptureTextParameter: a text column's parameter becomes an index into
// an array literal of its pg_stats values, and the statement so written
// runs on the server (the index replaced as pgbench would).
func TestCaptureTextParameter(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
		"CREATE TABLE items (id int, colour text)",
		"INSERT INTO items SELECT g, (ARRAY['red','green','blue','it''s'])[1 + g % 4] FROM generate_series(1, 1000) g",
		"ANALYZE items",
		"SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)")
	for range 12 {
		pgtest.Exec(t, url, "SELECT count(*) FROM items WHERE colour = 'red'")
	}
	out := filepath.Join(t.TempDir(), "w")
	res, err := Capture(context.Background(), Config{ConnString: url, Out: out, MinCalls: 10})
	if err != nil {
		t.Fatal(err)
	}
	var s *Statement
	for i := range res.Profile.Statements {
		if strings.Contains(res.Profile.Statements[i].Query, "FROM items") {
			s = &res.Profile.Statements[i]
		}
	}
	if s == nil || s.Script == "" {
		t.Fatalf("no script for the items statement: %+v", res.Profile.Statements)
	}
	b, err := os.ReadFile(filepath.Join(out, s.Script))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	sql := lines[len(lines)-1]
	if !strings.Contains(sql, "::text[])[:p1]") || !strings.HasPrefix(sql, Tag+s.ID+" */") {
		t.Fatalf("statement %s", sql)
	}
	var n int64
	pgtest.QueryRow(t, url, strings.ReplaceAll(strings.TrimSuffix(sql, ";"), ":p1", "4"), nil, &n)
	if n != 250 {
		t.Errorf("the 4th value matches %d rows, want 250 (each colour is a quarter)", n)
	}
}

// TestSampleWaits: capture's wait sampling sees another session's pg_sleep
// (wait type Timeout) and never counts its own session.
func TestSampleWaits(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		pgtest.Exec(t, url, "SELECT pg_sleep(3)")
	}()
	conn, err := connectReadOnly(ctx, Config{ConnString: url})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	time.Sleep(300 * time.Millisecond) // the sleeper's connection
	w, err := sampleWaits(ctx, conn, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if w.Ticks < 2 || w.Ticks > 11 || w.ByType["Timeout"] == 0 || w.Shares["Timeout"] < 0.5 {
		t.Errorf("wait profile %+v: want 2–11 ticks, mostly Timeout (pg_sleep)", w)
	}
}

// TestCaptureBorrowsForeignKeyStats: an INSERT into a never analysed table
// draws its foreign key column from the referenced column's pg_stats, and
// a number column with nothing to borrow from is approximated.
func TestCaptureBorrowsForeignKeyStats(t *testing.T) {
	url := pgtest.ConnString(t)
	pgtest.Exec(t, url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
		"CREATE TABLE parents (id int PRIMARY KEY)",
		"INSERT INTO parents SELECT generate_series(1, 500)",
		"ANALYZE parents",
		"CREATE TABLE children (parent int REFERENCES parents (id), amount_x int)",
		"SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)")
	for range 12 {
		pgtest.Exec(t, url, "INSERT INTO children (parent, amount_x) VALUES (7, 3)")
	}
	out := filepath.Join(t.TempDir(), "w")
	res, err := Capture(context.Background(), Config{ConnString: url, Out: out, MinCalls: 10, DefaultRange: 9})
	if err != nil {
		t.Fatal(err)
	}
	var s *Statement
	for i := range res.Profile.Statements {
		if strings.Contains(res.Profile.Statements[i].Query, "INSERT INTO children") {
			s = &res.Profile.Statements[i]
		}
	}
	if s == nil || s.Script == "" || len(s.Parameters) != 2 {
		t.Fatalf("insert not scripted: %+v", s)
	}
	if want := `"public"."children".parent has no values in pg_stats: those of the column its foreign key references, "public"."parents".id`; !strings.Contains(s.Parameters[0], want) {
		t.Errorf("$1: %s\nwant it to contain %s", s.Parameters[0], want)
	}
	if len(s.Approximations) != 1 || !strings.HasPrefix(s.Approximations[0], "$2 drawn uniformly from [-9, 9] (no statistics: ") {
		t.Errorf("approximations %q", s.Approximations)
	}
	b, _ := os.ReadFile(filepath.Join(out, s.Script))
	if !strings.Contains(string(b), `\set p2 random(-9, 9)`) {
		t.Errorf("script:\n%s", b)
	}
}
