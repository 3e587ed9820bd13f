package shape

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Compact makes a shaped table fresh again: Run's UPDATEs leave a dead
// version of every row (about twice the pages), which VACUUM (FULL, ANALYZE)
// removes by rewriting the table (an ACCESS EXCLUSIVE lock meanwhile); full
// false runs ANALYZE alone. It returns r's shape measured again (sizes and
// TOAST share after), with what Run did.
func Compact(ctx context.Context, conn *pgx.Conn, r *Result, full bool) (*Result, error) {
	cmd := "vacuum (full, analyze) "
	if !full {
		cmd = "analyze "
	}
	if _, err := conn.Exec(ctx, cmd+r.Table); err != nil { // r.Table is regclass text: quoted
		return nil, fmt.Errorf("shape: %s%s: %w", cmd, r.Table, err)
	}
	m, err := Measure(ctx, conn, r.Table, pgx.Identifier{r.Column}.Sanitize())
	if err != nil {
		return nil, err
	}
	m.Column, m.Updated, m.Generated, m.Seed, m.Elapsed = r.Column, r.Updated, r.Generated, r.Seed, r.Elapsed
	return m, nil
}
