package serverctl

import (
	"context"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgconf"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// testCtx is a context bounded by d, cancelled at the end of the test.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// mustExec runs statements (each on its own, autocommit) or fails the test.
func mustExec(t *testing.T, url string, stmts ...string) {
	t.Helper()
	if err := Exec(testCtx(t, 30*time.Second), url, stmts...); err != nil {
		t.Fatal(err)
	}
}

// queryString runs a one-value query in a new session.
func queryString(t *testing.T, url, sql string, args ...any) string {
	t.Helper()
	var s string
	pgtest.QueryRow(t, url, sql, args, &s)
	return s
}

// show is current_setting(name) in a new session.
func show(t *testing.T, url, name string) string {
	t.Helper()
	return queryString(t, url, "SELECT current_setting($1)", name)
}

// autoConf is postgresql.auto.conf's entries, "name=value;…" in file order.
func autoConf(t *testing.T, url string) string {
	t.Helper()
	return queryString(t, url, `SELECT coalesce(string_agg(name || '=' || coalesce(setting, ''), ';' ORDER BY seqno), '')
		FROM pg_file_settings WHERE right(sourcefile, 20) = 'postgresql.auto.conf'`)
}

// reload calls pg_reload_conf() and waits until new sessions see it.
func reload(t *testing.T, url string) {
	t.Helper()
	ctx := testCtx(t, 30*time.Second)
	cfg, err := parseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(conn)
	if err := reloadConf(ctx, cfg, conn); err != nil {
		t.Fatal(err)
	}
}

// resetLater removes the settings from postgresql.auto.conf when the test ends (a
// failed test must not leave them to the next one) and reloads.
func resetLater(t *testing.T, url string, names ...string) {
	t.Cleanup(func() {
		for _, n := range names {
			mustExec(t, url, "ALTER SYSTEM RESET "+pgconf.NameSQL(n))
		}
		reload(t, url)
	})
}

// postmasterStart is pg_postmaster_start_time() as text.
func postmasterStartText(t *testing.T, url string) string {
	t.Helper()
	return queryString(t, url, "SELECT pg_postmaster_start_time()::text")
}

// waitFor polls cond every 10 ms until it is true, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
