// Package pgbenchdb gives tests a fresh database with pgbench's tables, built
// by pgtrial's loader (it is apart from pgtest because the loader's own tests
// use pgtest).
package pgbenchdb

import (
	"context"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/loader"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// Scale1 is a fresh test database (pgtest.ConnString) with pgbench's tables
// at scale 1, fillfactor 100, vacuumed and with primary keys (steps dtgvp):
// its URL and its parsed config.
func Scale1(t testing.TB) (string, *pgconn.Config) {
	t.Helper()
	url := pgtest.ConnString(t)
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	_, err = loader.Run(context.Background(), loader.Config{
		Conn: cfg, Schema: workload.Pgbench{Scale: 1, Fillfactor: 100}, Steps: "dtgvp",
		Format: workload.CopyBinary, Out: io.Discard,
	})
	if err != nil {
		t.Fatalf("pgbenchdb: load: %v", err)
	}
	return url, cfg
}
