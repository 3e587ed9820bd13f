package pgtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// sqlTimeout bounds Exec and QueryRow, connecting included.
const sqlTimeout = 30 * time.Second

// Connect opens a connection to url (a test database's, from ConnString)
// that is closed at the end of the test; it fails the test when it cannot.
func Connect(t testing.TB, ctx context.Context, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// Exec runs each of sqls in turn on a connection of its own, closed before
// it returns (so its backend has flushed its statistics), all within 30 s;
// it fails the test at the first error.
func Exec(t testing.TB, url string, sqls ...string) {
	t.Helper()
	ctx, conn, done := session(t, url)
	defer done()
	for _, sql := range sqls {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// QueryRow runs sql with args on a connection of its own, within 30 s, and
// scans its one row into dest; it fails the test on an error.
func QueryRow(t testing.TB, url, sql string, args []any, dest ...any) {
	t.Helper()
	ctx, conn, done := session(t, url)
	defer done()
	if err := conn.QueryRow(ctx, sql, args...).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// session is a connection to url and a context of sqlTimeout; done closes
// the one and cancels the other.
func session(t testing.TB, url string) (ctx context.Context, conn *pgx.Conn, done func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), sqlTimeout)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		cancel()
		t.Fatalf("pgtest: connect: %v", err)
	}
	return ctx, conn, func() {
		conn.Close(context.Background())
		cancel()
	}
}

// Password is what WithPassword puts into a URL.
const Password = "s3cret-pw"

// WithPassword is url (ConnString's, postgres://postgres@…) with Password
// in it; the test cluster trusts local connections, so it is never checked:
// a test uses it to show that the password appears nowhere.
func WithPassword(t testing.TB, url string) string {
	t.Helper()
	const prefix = "postgres://postgres@"
	if !strings.HasPrefix(url, prefix) {
		t.Fatalf("pgtest: unexpected test URL %q", url)
	}
	return "postgres://postgres:" + Password + "@" + strings.TrimPrefix(url, prefix)
}
