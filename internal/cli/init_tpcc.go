package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/loader"
	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/target"
)

// runInitTPCC is `pgtrial init -w tpcc --warehouses N [-j JOBS] [--seed S]`.
func runInitTPCC(ctx context.Context, o initOptions, stderr io.Writer) error {
	if o.warehouses < 1 || o.warehouses > 100000 {
		return fmt.Errorf("invalid --warehouses %d: use 1 to 100000", o.warehouses)
	}
	if o.jobs < 0 {
		return fmt.Errorf("invalid --jobs %d: it must be 0 (automatic) or more", o.jobs)
	}
	cfg := loader.TPCCConfig{Warehouses: o.warehouses, Seed: o.seed, Jobs: o.jobs, Force: o.force, Out: stderr, TTY: isTerminal(stderr)}
	if o.quiet {
		cfg.Progress = loader.ProgressQuiet
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{})
	defer stop()
	res, err := target.Resolve(ctx, o.conn.request(func(s string) { fmt.Fprintln(stderr, s) }))
	if err != nil {
		return err
	}
	if cfg.Conn, err = pgconn.ParseConfig(res.ConnString); err != nil {
		return fmt.Errorf("invalid connection string: %w", err)
	}
	pgsession.Own(cfg.Conn, pgsession.NameInit, pgsession.Unbounded)
	done, err := loader.RunTPCC(ctx, cfg)
	if err != nil {
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) {
			return pgerr.Connect(err, cfg.Conn)
		}
		return err
	}
	fmt.Fprintln(stderr, done.Summary())
	return nil
}
