package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/age"
	"github.com/pgtrial/pgtrial/internal/target"
)

// ageOptions are age's flags; daily is a share ("0.333") or a fraction ("1/3").
type ageOptions struct {
	url, daily string
	json       bool
	cfg        age.Config
}

func newAgeCommand() *cobra.Command {
	o := ageOptions{daily: "1/3"}
	cmd := &cobra.Command{
		Use:   "age [flags] [URL]",
		Short: "Age a freshly loaded table: days of updates and weekly VACUUMs until it has production's free space",
		Long: `age makes a freshly loaded table look like one that has lived: each "day" updates a
share of its rows (--daily, default 1/3), drawn at random one by one, in batches of
--batch keys per statement (each its own transaction; the client keeps only the last
key), and a plain VACUUM (not FULL) runs after every --vacuum-every days (default 7),
for --days days (default 30) or until a target is met: --until-size X (pages ≥ X × the
pages at the start) or --until-free P (pgstattuple's free_percent ≥ P). It prints a line
per day and the table before and after: rows, pages, × the starting pages, free space and
dead rows from pgstattuple (CREATE EXTENSION IF NOT EXISTS pgstattuple; without it, the
statistics views' estimates, and it says so), the indexes' pages.

The default is pgbench_accounts (key aid, SET abalance = abalance + 1; at init's
fillfactor 100 a fresh page has no room, so the first updates move rows to new pages).
Another table needs --set, and --key unless it has a one-column primary key.

Aging rewrites data: a table pgtrial did not create (no 'pgtrial:' comment) is refused
unless --i-own-this-data. Autovacuum is left as the server has it (production has it),
but the days pass in seconds while autovacuum wakes on the wall clock, so a run with it
is not repeatable; --no-autovacuum turns it off on the table while aging and puts the
table's setting back at the end (Ctrl-C included). The report says how many autovacuum
runs happened meanwhile.

Exit status: 0 done; 1 bad input, refused, or failed; 2 the days passed before the
--until target was met (the table is aged, the report printed).`,
		Example: `  pgtrial init -s 10
  pgtrial age --until-size 1.5
  pgtrial age --days 30 --no-autovacuum
  pgtrial age --table orders --set "qty = qty + 1" --i-own-this-data postgres://bench@db1/copy`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg, err := serverArg(args, o.url)
			if err != nil {
				return err
			}
			return runAge(cmd.Context(), o, arg, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	c := &o.cfg
	f.StringVar(&c.Table, "table", age.PgbenchAccounts, "the table to age")
	f.IntVar(&c.Days, "days", age.DefaultDays, fmt.Sprintf("the most days to age (1..%d)", age.MaxDays))
	f.Float64Var(&c.UntilSize, "until-size", 0, "stop when the table has this many times its starting pages (e.g. 1.5)")
	f.Float64Var(&c.UntilFree, "until-free", 0, "stop when pgstattuple's free_percent reaches this (e.g. 40; a scan of the table each day)")
	f.StringVar(&o.daily, "daily", o.daily, `share of the rows updated each day: "1/3" or "0.333"`)
	f.IntVar(&c.VacuumEvery, "vacuum-every", age.DefaultVacuumEvery, "a plain VACUUM after every this many days (-1: never)")
	f.StringVar(&c.Set, "set", "", `the update's SET list (default for pgbench_accounts: "abalance = abalance + 1")`)
	f.StringVar(&c.Key, "key", "", "the column rows are drawn and batched by (default: the one-column primary key)")
	f.IntVar(&c.Batch, "batch", age.DefaultBatch, "keys visited per UPDATE statement (each its own transaction)")
	f.Float64Var(&c.Seed, "seed", 0, "setseed's base in [-1, 1]: the same seed draws the same rows (for the same plan)")
	f.BoolVar(&c.NoAutovacuum, "no-autovacuum", false, "turn autovacuum off on the table while aging (its setting is put back after)")
	f.BoolVar(&c.OwnData, "i-own-this-data", false, "age a table pgtrial did not create (its rows are rewritten)")
	f.DurationVar(&c.MaxTime, "max-time", age.DefaultMaxTime, "stop with an error after this long")
	f.BoolVar(&o.json, "json", false, "print the result as JSON on stdout")
	f.StringVar(&o.url, "url", "", `connection string (postgres:// URL or key=value) or database name; default: the libpq environment (PGHOST, …) if set, else the local cluster "default"`)
	return cmd
}

// parseShare reads "1/3" or "0.333".
func parseShare(s string) (float64, error) {
	num, den, frac := strings.Cut(s, "/")
	a, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err == nil && frac {
		var b float64
		if b, err = strconv.ParseFloat(strings.TrimSpace(den), 64); err == nil && b != 0 {
			a /= b
		} else if err == nil {
			err = errors.New("division by zero")
		}
	}
	if err != nil || !(a > 0 && a <= 1) {
		return 0, fmt.Errorf("invalid --daily %q: give a share of the rows in (0, 1], as 1/3 or 0.333", s)
	}
	return a, nil
}

func runAge(ctx context.Context, o ageOptions, arg string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	daily, err := parseShare(o.daily)
	if err != nil {
		return err
	}
	cfg := o.cfg
	cfg.Daily = daily
	cfg.Out, cfg.TTY = stderr, isTerminal(stderr)
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{})
	defer stop()
	res, err := target.Resolve(ctx, target.Request{Arg: arg, URL: o.url, Out: func(s string) { fmt.Fprintln(stderr, s) }})
	if err != nil {
		return err
	}
	cc, err := pgx.ParseConfig(res.ConnString)
	if err != nil {
		return fmt.Errorf("invalid connection string: %w", err)
	}
	r, err := age.Run(ctx, cc, cfg)
	if r != nil && r.After.Pages > 0 {
		if o.json {
			if jerr := printJSON(stdout, jsonAge, jsonAgeResult{Schema: jsonSchemaID(jsonAge), Result: *r}); jerr != nil {
				return jerr
			}
		} else {
			r.Write(stdout)
		}
	}
	if errors.Is(err, age.ErrNotReached) {
		return &exitError{code: exitRunFail, err: err}
	}
	return err
}
