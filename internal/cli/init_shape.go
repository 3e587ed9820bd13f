package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/shape"
)

// parseInitShapes reads init's --shape values (shape.ParseItem), before
// anything connects: a bad one changes nothing.
func parseInitShapes(specs []string) ([]shape.Config, error) {
	out := make([]shape.Config, 0, len(specs))
	for _, s := range specs {
		c, err := shape.ParseItem(s)
		if err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// shapeAfterInit shapes the columns after the whole load (the primary keys
// exist: shape walks the rows by them), on one connection with init's session
// settings. Each shaping leaves a dead version of every row: VACUUM FULL
// ANALYZE makes the table fresh again (vacuum false, -n: ANALYZE only).
func shapeAfterInit(ctx context.Context, pc *pgconn.Config, shapes []shape.Config, vacuum bool, out io.Writer) error {
	if len(shapes) == 0 {
		return nil
	}
	cc, err := pgx.ParseConfig("")
	if err != nil {
		return err
	}
	cc.Config = *pc.Copy()
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return fmt.Errorf("init --shape: connect: %w", err)
	}
	defer conn.Close(context.Background())
	for _, c := range shapes {
		c.Out = out
		r, err := shape.Run(ctx, conn, c)
		if err != nil {
			return fmt.Errorf("init --shape: %w", err)
		}
		m, err := shape.Compact(ctx, conn, r, vacuum)
		if err != nil {
			return fmt.Errorf("init --shape: %w", err)
		}
		m.Print(out)
	}
	return nil
}
