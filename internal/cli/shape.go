package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/shape"
	"github.com/pgtrial/pgtrial/internal/target"
)

// shapeFlags are pgtrial shape's flags.
type shapeFlags struct {
	url, table, column, key, dist, pad, json, size string
	min, max                                       int64
	permute, force, noAnalyze                      bool
	seed                                           uint64
	batch                                          int
}

func newShapeCommand() *cobra.Command {
	var f shapeFlags
	cmd := &cobra.Command{
		Use:   "shape [flags] [URL]",
		Short: "Regenerate a column's values with a skewed distribution or a size distribution, and report the shape",
		Long: `shape rewrites one column of a table so that the data looks like production's
(uniform data lies: skew changes the cache and the plans, value sizes decide TOAST):

  --dist uniform | zipf:s=S | loguniform:n=N | exponential:p=P | gaussian:p=P
        integer keys in [--min, --max] (default 1 and the row count; loguniform:n=N
        gives [min, min+N-1]), drawn as pgbench's random_zipfian, random_exponential
        and random_gaussian draw them; loguniform is floor(exp(random() * ln(n))).
        --permute scatters the hot keys over the range (pgbench's permute).
  --pad COL --size 1KB-8KB / --json COL --size 1KB-8KB
        text of hex digits, or JSON objects, of sizes uniform in the range: values
        over about 2 KB go out of line to TOAST.

Values are drawn client-side by pgtrial's prng from --seed, one per row in the
order of --key (default: the table's primary key), and written in transactions of
--batch rows (UPDATE ... FROM unnest(keys, values)): the same seed on the same
rows gives the same column. ANALYZE follows, unless --no-analyze. It reports the
rows, the distinct values, the share of the rows in the top 1 % of the values and
the TOAST share of the table.

shape rewrites only tables pgtrial created (a "pgtrial:" comment); --force for
another table (on a copy you may change). A primary-key column is refused: its
values must stay unique. The same shapings run after "pgtrial init --shape" and in
an experiment file's data: {shape: [...]}.`,
		Example: `  pgtrial shape --table pgbench_accounts --column bid --dist zipf:s=1.1 --max 100
  pgtrial shape --table tasks --column project_id --dist loguniform:n=20000 --force
  pgtrial shape --table events --json payload --size 1KB-8KB --force`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg, err := serverArg(args, f.url)
			if err != nil {
				return err
			}
			cfg, err := f.config(cmd)
			if err != nil {
				return err
			}
			return runShape(cmd.Context(), arg, f.url, cfg, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "", `connection string (postgres:// URL or key=value) or database name; default: the libpq environment (PGHOST, …) if set, else the local cluster "default"`)
	fl.StringVar(&f.table, "table", "", "the table to shape (required)")
	fl.StringVar(&f.column, "column", "", "the integer column to give --dist's values")
	fl.StringVar(&f.dist, "dist", "", "uniform, zipf:s=S, loguniform:n=N, exponential:p=P or gaussian:p=P")
	fl.BoolVar(&f.permute, "permute", false, "scatter the hot keys over the range (pgbench's permute)")
	fl.Int64Var(&f.min, "min", 1, "the smallest key")
	fl.Int64Var(&f.max, "max", 0, "the largest key (default: the row count)")
	fl.StringVar(&f.pad, "pad", "", "a text column to fill with values of --size")
	fl.StringVar(&f.json, "json", "", "a json/jsonb column to fill with JSON objects of --size")
	fl.StringVar(&f.size, "size", "", "value sizes, uniform: MIN-MAX (e.g. 1KB-8KB) or one size")
	fl.StringVar(&f.key, "key", "", "the unique not-null column rows are walked by (default: the primary key)")
	fl.Uint64Var(&f.seed, "seed", 1, "the generators' seed (the same seed on the same rows gives the same values)")
	fl.IntVar(&f.batch, "batch", 10000, "rows per transaction")
	fl.BoolVar(&f.force, "force", false, "shape a table pgtrial did not create")
	fl.BoolVar(&f.noAnalyze, "no-analyze", false, "do not ANALYZE the table after")
	return cmd
}

// config checks the flags' combination and builds shape's Config.
func (f *shapeFlags) config(cmd *cobra.Command) (shape.Config, error) {
	c := shape.Config{Table: f.table, Key: f.key, Seed: f.seed, Batch: f.batch, Force: f.force, Analyze: !f.noAnalyze}
	if f.table == "" {
		return c, errors.New("shape: --table is required")
	}
	given := 0
	for _, s := range []string{f.dist, f.pad, f.json} {
		if s != "" {
			given++
		}
	}
	if given != 1 {
		return c, errors.New("shape: give one of --column with --dist, --pad COL --size, --json COL --size")
	}
	switch {
	case f.dist != "":
		if f.column == "" {
			return c, errors.New("shape: --dist needs --column")
		}
		if f.size != "" {
			return c, errors.New("shape: --size goes with --pad or --json, not --dist")
		}
		d, err := shape.ParseDist(f.dist)
		if err != nil {
			return c, err
		}
		d.Min, d.Permute = f.min, f.permute
		if cmd.Flags().Changed("max") {
			d.Max, c.MaxSet = f.max, true
		}
		c.Column, c.Dist = f.column, &d
	default:
		kind, col := shape.PadText, f.pad
		if f.json != "" {
			kind, col = shape.PadJSON, f.json
		}
		if f.column != "" && f.column != col {
			return c, errors.New("shape: --pad/--json names the column; leave out --column")
		}
		if f.size == "" {
			return c, fmt.Errorf("shape: --%s needs --size, e.g. 1KB-8KB", kind)
		}
		z, err := shape.ParseSizes(kind, f.size)
		if err != nil {
			return c, err
		}
		c.Column, c.Sizes = col, &z
	}
	return c, nil
}

func runShape(ctx context.Context, arg, url string, c shape.Config, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{})
	defer stop()
	res, err := target.Resolve(ctx, target.Request{Arg: arg, URL: url, Out: func(s string) { fmt.Fprintln(stderr, s) }})
	if err != nil {
		return err
	}
	conn, err := shape.Connect(ctx, res.ConnString)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	c.Out = stderr
	r, err := shape.Run(ctx, conn, c)
	if err != nil {
		return err
	}
	r.Print(stdout)
	return nil
}
