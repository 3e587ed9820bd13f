package pgtest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// connect opens a connection to url and closes it when the test ends.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestConnStringGivesEachTestItsOwnDatabase(t *testing.T) {
	t.Parallel()
	seen := make(chan string, 8)
	for i := range 8 {
		t.Run(fmt.Sprintf("db%d", i), func(t *testing.T) {
			t.Parallel()
			url := pgtest.ConnString(t)
			if strings.Contains(url, "@127.0.0.1:") == false || !strings.HasPrefix(url, "postgres://postgres@") {
				t.Errorf("url %q: want postgres://postgres@127.0.0.1:PORT/...", url)
			}
			conn := connect(t, url)
			var db string
			if err := conn.QueryRow(context.Background(), "SELECT current_database()").Scan(&db); err != nil {
				t.Fatal(err)
			}
			// The database is empty and ours to change.
			if _, err := conn.Exec(context.Background(), "CREATE TABLE t (id int)"); err != nil {
				t.Fatal(err)
			}
			seen <- db
		})
	}
	t.Cleanup(func() {
		close(seen)
		names := map[string]bool{}
		for db := range seen {
			if names[db] {
				t.Errorf("database %s handed out twice", db)
			}
			names[db] = true
		}
		if len(names) != 8 {
			t.Errorf("got %d distinct databases, want 8", len(names))
		}
	})
}
