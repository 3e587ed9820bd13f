package collect

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

// TestReadStatementTotalsTexts: capture's reader has the texts of the
// session's database (every role's) and none of another database's.
func TestReadStatementTotalsTexts(t *testing.T) {
	mine, other := pgtest.ConnString(t), pgtest.ConnString(t)
	for _, u := range []string{mine, other} {
		pgtest.Exec(t, u, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
	}
	pgtest.Exec(t, mine, "SELECT 'capture-mine' AS marker_mine_db")
	pgtest.Exec(t, other, "SELECT 'capture-other' AS marker_other_db")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn := pgtest.Connect(t, ctx, mine)
	totals, info, err := ReadStatementTotals(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	var dbid int64
	if err := conn.QueryRow(ctx, "SELECT oid::int8 FROM pg_database WHERE datname = current_database()").Scan(&dbid); err != nil {
		t.Fatal(err)
	}
	sawMine := false
	for _, s := range totals {
		if strings.Contains(s.Query, "marker_other_db") {
			t.Errorf("another database's text was read: %q", s.Query)
		}
		if s.DBID != dbid && s.Query != "" {
			t.Errorf("entry of database %d has a text: %q", s.DBID, s.Query)
		}
		if strings.Contains(s.Query, "marker_mine_db") && s.Calls >= 1 {
			sawMine = true
		}
	}
	if !sawMine || info.Version == "" || info.Database == "" {
		t.Errorf("own statement seen %v, info %+v", sawMine, info)
	}
}
