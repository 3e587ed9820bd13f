package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pgtrial/pgtrial/internal/loader"
	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/target"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// initOptions are init's flags, pgbench's names and meanings.
type initOptions struct {
	conn            connOptions
	scale           int64
	fillfactor      int
	unlogged        bool
	partitions      int
	partitionMethod string
	foreignKeys     bool
	steps           string
	noVacuum        bool
	tablespace      string
	indexTablespace string
	quiet           bool
	force           bool
	jobs            int
	workload        string      // -w: "pgbench" (default), "tpcc" or "ycsb"
	warehouses      int         // -w tpcc
	seed            uint64      // -w tpcc: the generators' seed
	ycsb            ycsbOptions // -w ycsb's flags (init_ycsb.go)
	shapes          []string    // --shape TABLE.COLUMN=DIST, after the load (init_shape.go)
}

// connOptions select the server: a connection string (the argument or --url/-d) plus
// pgbench's -h -p -U, which override the matching parts of it; with none of them, the
// libpq environment or the local cluster (target.Resolve). libpq's environment (PGHOST,
// PGPORT, PGUSER, PGDATABASE, PGPASSWORD, …) fills in whatever the command line leaves open.
type connOptions struct {
	arg, url, host, port, user string
}

// request is the target's description for target.Resolve.
func (c connOptions) request(out func(string)) target.Request {
	return target.Request{Arg: c.arg, URL: c.url, Host: c.host, Port: c.port, User: c.user, Out: out}
}

func newInitCommand() *cobra.Command {
	o := initOptions{scale: 1, fillfactor: 100, steps: loader.DefaultSteps}
	cmd := &cobra.Command{
		Use:   "init [flags] [DBNAME|CONNSTRING]",
		Short: "Create and load the pgbench schema",
		Long: `init creates pgbench's tables (pgbench_accounts, _branches, _tellers, _history) and
loads them with pgbench's rows, like "pgbench -i" but faster: rows are generated while
the server ingests them, on several connections where that helps, keys are built in
parallel, and only the vacuum that is needed runs.

Tables are marked as pgtrial's (COMMENT 'pgtrial:pgbench'); init refuses to drop,
overwrite, vacuum or add keys to pgbench tables it did not create (any step, -I f and
-I v included) unless --force is given.

Steps (-I, pgbench's letters, run in order): d drop tables, t create tables,
g client-side generate (COPY), G server-side generate, v vacuum, p primary keys,
f foreign keys. Default: dtgvp.

The server: the argument or --url/-d, with -h, -p and -U overriding its parts (-h or
-p alone name a server, as for pgbench); else the libpq environment when any of PGHOST,
PGHOSTADDR, PGPORT, PGDATABASE, PGUSER or PGSERVICE is set; else the local cluster
"default", created and started if needed. The first line says which and why.

--shape TABLE.COLUMN=DIST (repeatable) regenerates a column after the whole load, as
"pgtrial shape" does (DIST as its --dist, options permute, min=N, max=N, seed=N; or
json:SIZE / pad:SIZE for a text or json column), then VACUUM FULL ANALYZE compacts the
table again (ANALYZE only with -n); a primary-key column (pgbench_accounts.aid) is refused.

-w tpcc loads the TPC-C-like tables instead (warehouse, district, customer, history,
new_order, orders, order_line, item, stock, tpcc_meta; COMMENT 'pgtrial:tpcc') for
--warehouses N: rows generated in the client from --seed, COPY on -j connections by
warehouse, keys and VACUUM ANALYZE in parallel; -s, -I, -F and the partition flags do not
apply. Run it with "pgtrial run -b tpcc" (docs/tpcc.md).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if o.conn.url != "" {
					return errors.New("give the database either as an argument or with --url, not both")
				}
				o.conn.arg = args[0]
			}
			return runInit(cmd.Context(), o, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.Int64VarP(&o.scale, "scale", "s", o.scale, "scale factor: branches; accounts = 100000 × scale")
	f.StringVarP(&o.steps, "init-steps", "I", o.steps, `steps to run, in order, from "dtgGvpf"`)
	f.IntVarP(&o.fillfactor, "fillfactor", "F", o.fillfactor, "fillfactor of branches, tellers and accounts (10..100)")
	f.BoolVarP(&o.noVacuum, "no-vacuum", "n", false, "skip the vacuum step (drop every v)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "progress at most every 5 s")
	f.BoolVar(&o.foreignKeys, "foreign-keys", false, "create foreign keys between the tables (append step f)")
	f.BoolVar(&o.unlogged, "unlogged-tables", false, "create unlogged tables")
	f.IntVar(&o.partitions, "partitions", 0, "partition pgbench_accounts into this many partitions")
	f.StringVar(&o.partitionMethod, "partition-method", "", `partition method: "range" (default with --partitions) or "hash"`)
	f.StringVar(&o.tablespace, "tablespace", "", "create tables in this tablespace")
	f.StringVar(&o.indexTablespace, "index-tablespace", "", "create primary key indexes in this tablespace")
	f.BoolVar(&o.force, "force", false, "drop, overwrite, vacuum or add keys to pgbench tables that pgtrial did not create")
	f.IntVarP(&o.jobs, "jobs", "j", 0, fmt.Sprintf("connections working at once: partitions loaded, keys built (0: this machine's CPUs, %d..%d)", loader.DefaultJobs, loader.MaxAutoJobs))
	f.StringVarP(&o.workload, "workload", "w", "pgbench", `schema to load: "pgbench", "tpcc" (TPC-C-like: --warehouses, --seed) or "ycsb" (usertable: --records, --fields, --field-length)`)
	addYCSBFlags(f, &o.ycsb)
	f.IntVar(&o.warehouses, "warehouses", 1, "-w tpcc: warehouses to load (about 100 MB each)")
	f.Uint64Var(&o.seed, "seed", 1, "-w tpcc: seed of the row generators (the same seed loads the same rows)")
	f.StringArrayVar(&o.shapes, "shape", nil, `after the load, regenerate a column as pgtrial shape does (repeatable): TABLE.COLUMN=DIST[,permute][,min=N][,max=N][,seed=N], e.g. pgbench_accounts.bid=zipf:s=1.1,max=10, or TABLE.COLUMN=json:1KB-8KB / pad:SIZE`)
	f.StringVarP(&o.conn.url, "url", "d", "", "connection string (postgres:// URL or key=value) or database name; default: the libpq environment (PGHOST, …) if set, else the local cluster")
	// -h is pgbench's host, so help is --help only.
	f.Bool("help", false, "help for init")
	f.StringVarP(&o.conn.host, "host", "h", "", "database server host or socket directory")
	f.StringVarP(&o.conn.port, "port", "p", "", "database server port")
	f.StringVarP(&o.conn.user, "username", "U", "", "database user name")
	return cmd
}

// initConfig validates the options into a loader configuration without connecting
// (Conn is for the caller to set).
func initConfig(o initOptions) (loader.Config, error) {
	schema := workload.Pgbench{
		Scale:           o.scale,
		Fillfactor:      o.fillfactor,
		Unlogged:        o.unlogged,
		Partitions:      o.partitions,
		PartitionMethod: strings.ToLower(o.partitionMethod),
		Tablespace:      o.tablespace,
		IndexTablespace: o.indexTablespace,
	}
	if schema.Partitions > 0 && schema.PartitionMethod == "" {
		schema.PartitionMethod = workload.PartitionRange
	}
	if err := schema.Validate(); err != nil {
		return loader.Config{}, err
	}
	steps, err := loader.ParseSteps(o.steps, o.noVacuum, o.foreignKeys)
	if err != nil {
		return loader.Config{}, err
	}
	if o.jobs < 0 {
		return loader.Config{}, fmt.Errorf("invalid --jobs %d: it must be 0 (automatic) or more", o.jobs)
	}
	return loader.Config{
		Schema: schema,
		Steps:  steps,
		Force:  o.force,
		Jobs:   o.jobs,
		Format: workload.CopyBinary,
	}, nil
}

func runInit(ctx context.Context, o initOptions, stderr io.Writer) error {
	switch o.workload {
	case "pgbench":
	case "tpcc":
		return runInitTPCC(ctx, o, stderr)
	case "ycsb":
		return runInitYCSB(ctx, o, stderr)
	default:
		return fmt.Errorf("invalid --workload %q: expecting \"pgbench\", \"tpcc\" or \"ycsb\"", o.workload)
	}
	cfg, err := initConfig(o)
	if err != nil {
		return err
	}
	cfg.Out = stderr
	cfg.TTY = isTerminal(stderr)
	if o.quiet {
		cfg.Progress = loader.ProgressQuiet
	}
	return loadOn(ctx, o, stderr, func(ctx context.Context, conn *pgconn.Config) (summarizer, error) {
		cfg.Conn = conn
		return loader.Run(ctx, cfg)
	})
}

// summarizer is a load's result: its one-line summary ("done in …").
type summarizer interface{ Summary() string }

// loadOn runs one of init's loads (pgbench's tables, tpcc, ycsb) on the
// target: resolved as every command does, connected with pgtrial's own
// session settings (no statement timeout: COPY and index builds take as
// long as they take), cancelled by Ctrl-C (pgconn sends a cancel request),
// a failed connection worded by pgerr; the summary goes to stderr.
func loadOn(ctx context.Context, o initOptions, stderr io.Writer, load func(context.Context, *pgconn.Config) (summarizer, error)) error {
	if ctx == nil {
		ctx = context.Background()
	}
	shapes, err := parseInitShapes(o.shapes) // init_shape.go
	if err != nil {
		return err
	}
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{})
	defer stop()
	res, err := target.Resolve(ctx, o.conn.request(func(s string) { fmt.Fprintln(stderr, s) }))
	if err != nil {
		return err
	}
	conn, err := pgconn.ParseConfig(res.ConnString)
	if err != nil {
		return fmt.Errorf("invalid connection string: %w", err)
	}
	pgsession.Own(conn, pgsession.NameInit, pgsession.Unbounded)
	done, err := load(ctx, conn)
	if err != nil {
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) {
			return pgerr.Connect(err, conn)
		}
		return err
	}
	fmt.Fprintln(stderr, done.Summary())
	return shapeAfterInit(ctx, conn, shapes, !o.noVacuum, stderr)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
