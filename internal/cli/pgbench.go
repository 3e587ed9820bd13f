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

	"github.com/pgtrial/pgtrial/internal/loader"
	"github.com/pgtrial/pgtrial/internal/pgbenchfmt"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// newPgbenchCommand is the pgbench-compatible front end: pgbench's command line,
// messages and exit codes. Cobra does not parse its flags; pgbenchfmt does, as
// pgbench's getopt_long would.
func newPgbenchCommand(info BuildInfo) *cobra.Command {
	return &cobra.Command{
		Use:   "pgbench [pgbench options] [DBNAME]",
		Short: "pgbench-compatible front end (same options, scripts, output)",
		Long: `pgbench runs pgbench's command line: the same options (PostgreSQL 18's, plus
--continue-on-error from 19), the same script language, messages and exit codes
(0 success, 1 bad input or setup, 2 a client aborted during the run).

Run "pgtrial pgbench --help" for pgbench's option list.`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			code := runPgbench(cmd.Context(), args, info, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			if code == exitOK {
				return nil
			}
			return silentExit(code)
		},
	}
}

// runPgbench parses a pgbench command line and runs it; it returns the exit code.
// Everything it prints is pgbench's text.
func runPgbench(ctx context.Context, args []string, info BuildInfo, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := pgbenchfmt.Parse(args, pgbenchfmt.System{
		Stdin:       stdin,
		Stdout:      stdout,
		Stderr:      stderr,
		ToolVersion: info.Version,
	})
	if err != nil {
		return pgbenchfmt.ExitCode(err)
	}
	if opts.Mode == pgbenchfmt.ModeInit {
		return runPgbenchInit(ctx, opts, stderr)
	}
	return runPgbenchBench(ctx, opts, info, stdout, stderr)
}

// runPgbenchInit is pgbench -i on pgtrial's loader: the same tables, rows and step
// messages, and like pgbench it drops whatever pgbench tables exist (Force).
func runPgbenchInit(ctx context.Context, o *pgbenchfmt.Options, stderr io.Writer) int {
	fail := func(format string, args ...any) int {
		msg := strings.TrimSuffix(fmt.Sprintf(format, args...), "\n")
		fmt.Fprintf(stderr, "pgbench: error: %s\n", msg)
		return exitBadInput
	}
	pgcfg, err := pgconn.ParseConfig(o.ConnString(os.LookupEnv))
	if err != nil {
		return fail("%v", err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{})
	defer stop()
	connFailed := func(err error) int {
		fail("%s", pgbenchfmt.PQErrorMessage(err))
		return fail("could not create connection for initialization")
	}
	steps := strings.ReplaceAll(o.InitSteps, " ", "")
	if steps == "" {
		// Every step was a v under -n: pgbench connects, runs nothing and reports.
		conn, err := pgconn.ConnectConfig(ctx, pgcfg)
		if err != nil {
			return connFailed(err)
		}
		conn.Close(ctx)
		fmt.Fprintln(stderr, "done in 0.00 s ().")
		return exitOK
	}
	schema := workload.Pgbench{
		Scale:           int64(o.Scale),
		Fillfactor:      o.Fillfactor,
		Unlogged:        o.Unlogged,
		Partitions:      o.Partitions,
		PartitionMethod: o.PartitionMethod,
		Tablespace:      o.Tablespace,
		IndexTablespace: o.IndexTablespace,
	}
	cfg := loader.Config{
		Conn:   pgcfg,
		Schema: schema,
		Steps:  steps,
		Force:  true,
		Format: workload.CopyBinary,
		Out:    stderr,
		TTY:    isTerminal(stderr),
	}
	if o.Quiet {
		cfg.Progress = loader.ProgressQuiet
	}
	res, err := loader.Run(ctx, cfg)
	if err != nil {
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) {
			return connFailed(err)
		}
		return fail("%v", err)
	}
	fmt.Fprintln(stderr, res.Summary())
	return exitOK
}
