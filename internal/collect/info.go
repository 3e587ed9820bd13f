package collect

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/results"
)

// STUB: replaced by the server collector's helper.

func readServerInfo(ctx context.Context, conn *pgx.Conn, tables []string) (*results.ServerInfo, error) {
	return nil, errors.New("not implemented")
}
