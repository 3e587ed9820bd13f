package collect

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// StatementTotals is one pg_stat_statements entry's cumulative figures at
// the time of reading (since the entry was created or the last reset). A
// figure the extension version lacks reads as 0.
type StatementTotals struct {
	QueryID  int64
	UserID   int64
	DBID     int64
	Own      bool   // the session's role and database
	Toplevel string // "true", "false" (1.9+) or "" (1.8)
	Query    string // "" for another database's

	Calls, Rows                   float64
	TotalExecMs                   float64 // ms
	SharedBlksHit, SharedBlksRead float64 // blocks
}

// StatementsInfo is what ReadStatementTotals found of the extension.
type StatementsInfo struct {
	Database string // the current database
	Version  string // pg_stat_statements' extversion
	Missing  []string
	Hidden   int // entries of other roles whose queryid the role may not see
}

// ReadStatementTotals reads pg_stat_statements on conn once, with the
// collector's version-aware query (detectStatements: the same columns and
// the same exclusion of pgtrial's own statements as statements.csv's).
// Every role's statements of the session's database have their text
// (capture replays the application's, whichever role ran them); the
// entries of other databases have none.
func ReadStatementTotals(ctx context.Context, conn *pgx.Conn) ([]StatementTotals, StatementsInfo, error) {
	var info StatementsInfo
	q, db, version, err := detectStatements(ctx, conn, textsDatabase)
	if err != nil {
		return nil, info, err
	}
	info.Database, info.Version, info.Missing = db, version, q.missing
	snap, err := querySnapshot(ctx, conn, &q)
	if err != nil {
		return nil, info, fmt.Errorf("pg_stat_statements %s: %w", version, explainStatementsError(err, db))
	}
	info.Hidden = snap.hidden
	out := make([]StatementTotals, 0, len(snap.entries))
	for k, e := range snap.entries {
		out = append(out, StatementTotals{
			QueryID: k.queryid, UserID: k.userid, DBID: k.dbid, Own: e.own, Toplevel: k.toplevel, Query: e.query,
			Calls: e.v[mCalls], Rows: e.v[mRows], TotalExecMs: e.v[mExecMs],
			SharedBlksHit: e.v[mSharedHit], SharedBlksRead: e.v[mSharedRead],
		})
	}
	return out, info, nil
}
