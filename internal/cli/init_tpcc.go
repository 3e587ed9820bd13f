package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/loader"
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
	return loadOn(ctx, o, stderr, func(ctx context.Context, conn *pgconn.Config) (summarizer, error) {
		cfg.Conn = conn
		return loader.RunTPCC(ctx, cfg)
	})
}
