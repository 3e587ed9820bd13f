package pgsession

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgerr"
)

// ConnectTimeout bounds the connection attempt of Connect (the statements
// are bounded by statementTimeout and the caller's ctx).
const ConnectTimeout = 60 * time.Second

// Connect opens one of pgtrial's own sessions on connString: Own's
// parameters with name and statementTimeout (Short or Unbounded), the
// attempt bounded by ConnectTimeout, and a failure explained by
// pgerr.Connect (the cause first, then what to do).
func Connect(ctx context.Context, connString, name string, statementTimeout time.Duration) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("invalid connection string: %w", err)
	}
	Own(&cfg.Config, name, statementTimeout)
	cctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, pgerr.Connect(err, &cfg.Config)
	}
	return conn, nil
}
