package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/mask"
	"github.com/pgtrial/pgtrial/internal/target"
)

// maskOptions are mask's flags.
type maskOptions struct {
	json               bool
	url                string
	columns            []string
	keyFile, keyEnv    string
	keepLength, domain bool
	keepNulls          bool
	onClone            bool
	prove              int
	pgDump             string
}

func newMaskCommand() *cobra.Command {
	o := maskOptions{prove: mask.DefaultProve, keepNulls: true}
	cmd := &cobra.Command{
		Use:   "mask [URL] --column TABLE.COLUMN ... (--key-file F | --key-env VAR) [flags]",
		Short: "Mask personal data on a clone with hmac-sha256, and prove that a pg_dump holds no original",
		Long: `mask replaces the values of the named text, varchar or char columns of a clone by
encode(hmac(value, key, 'sha256'), 'hex') (pgcrypto; CREATE EXTENSION IF NOT EXISTS
pgcrypto when it is missing). The hash is keyed and deterministic: equal values stay
equal across columns and tables (joins, unique constraints), distinct values stay
distinct, NULLs stay NULL, and without the key nobody can hash guesses to find an
original. The key comes from --key-file (one trailing newline ignored) or --key-env, has
at least 16 bytes, is passed as a bind parameter only (never in SQL text, logs or
pg_stat_statements) and is never printed.

It runs on a clone only: it refuses a database with other client connections, and one
whose comment does not start with "pgtrial:" unless --i-am-on-a-clone (or mark the
clone: COMMENT ON DATABASE staging IS 'pgtrial:clone'). Everything happens in one
transaction, rolled back when a distinct count changes (values cut short by
--keep-length or by the column's varchar(n) collide) or another session connects. A
foreign key on a masked column must be DEFERRABLE INITIALLY DEFERRED, both sides masked in
one run. The tables' triggers fire (each named in a warning: disable an audit trigger).

Then the proof (--prove N, default 1000; 0 skips it): before masking, N distinct
originals per column are sampled into memory (never to disk); after it, pg_dump (at least
the server's version: PGTRIAL_PG_BIN, /usr/lib/postgresql/MAJOR/bin, pg_config, PATH)
dumps the masked tables into a private temporary file, which is searched for every
sampled original of 8 bytes or more and removed. Exit status 1 when one is found.

The clone's pages and WAL still hold the old row versions (VACUUM FULL and CHECKPOINT
reduce them, WAL archives and backups keep them): dump the clone, then drop it.`,
		Example: `  head -c 32 /dev/urandom | base64 > mask.key
  pgtrial mask postgres://me@staging/app --column users.email --column orders.email --key-file mask.key
  pgtrial mask --url app_clone --column public.users.email --keep-domain --key-env MASK_KEY --i-am-on-a-clone`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg, err := serverArg(args, o.url)
			if err != nil {
				return err
			}
			return runMask(cmd.Context(), o, arg, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "", `connection string (postgres:// URL or key=value) or database name; default: the libpq environment (PGHOST, …) if set, else the local cluster "default"`)
	f.StringArrayVar(&o.columns, "column", nil, "a column to mask, TABLE.COLUMN or SCHEMA.TABLE.COLUMN (repeat for more)")
	f.StringVar(&o.keyFile, "key-file", "", "read the hmac key from this file (at least 16 bytes)")
	f.StringVar(&o.keyEnv, "key-env", "", "read the hmac key from this environment variable (at least 16 bytes)")
	f.BoolVar(&o.keepLength, "keep-length", false, "give each masked value its original's length (hex cut or repeated); refused when that makes values collide")
	f.BoolVar(&o.keepNulls, "keep-nulls", true, "NULLs stay NULL (always: a NULL holds nobody's data, and a value in its place would break unique constraints; =false is refused)")
	f.BoolVar(&o.domain, "keep-domain", false, "for values with an '@' (emails), mask only the part before it and keep the domain")
	f.BoolVar(&o.onClone, "i-am-on-a-clone", false, `the database is a clone, though not marked as pgtrial's (comment "pgtrial:…")`)
	f.IntVar(&o.prove, "prove", o.prove, "originals sampled per column and searched for in a pg_dump of the masked tables; 0: no proof")
	f.BoolVar(&o.json, "json", false, "print the result as JSON on stdout (progress and warnings go to stderr)")
	f.StringVar(&o.pgDump, "pg-dump", "", "the pg_dump to prove with (default: found next to the server's binaries)")
	return cmd
}

func runMask(ctx context.Context, o maskOptions, arg string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if !o.keepNulls {
		return errors.New("mask: --keep-nulls=false: NULLs always stay NULL (a NULL holds no personal data, and one masked value in place of every NULL would break unique constraints)")
	}
	progress := stdout
	if o.json {
		progress = stderr
	}
	key, err := mask.ReadKey(o.keyFile, o.keyEnv, nil)
	if err != nil {
		return err
	}
	ctx, _, stop := notifySignals(ctx, nil, signalPlan{})
	defer stop()
	res, err := target.Resolve(ctx, target.Request{Arg: arg, URL: o.url, Out: func(s string) { fmt.Fprintln(stderr, s) }})
	if err != nil {
		return err
	}
	r, err := mask.Run(ctx, mask.Config{
		ConnString: res.ConnString, Columns: o.columns, Key: key,
		KeepLength: o.keepLength, KeepDomain: o.domain, OnClone: o.onClone,
		Prove: o.prove, PgDump: o.pgDump,
		Out: func(s string) { fmt.Fprintln(progress, s) },
	})
	if err != nil {
		return err
	}
	if o.json {
		if err := printJSON(stdout, jsonMask, jsonMaskResult{Schema: jsonSchemaID(jsonMask), Result: *r}); err != nil {
			return err
		}
		printMaskWarnings(stderr, r)
	} else {
		printMask(stdout, r)
	}
	if n := r.Found(); n > 0 {
		return fmt.Errorf("mask: the pg_dump of the masked tables still contains %d sampled original value(s) (see above): do not use this dump; "+
			"another column of these tables may hold the same personal data: mask it too", n)
	}
	return nil
}

// printMask writes the per-column counts, the proof and the warnings.
func printMask(w io.Writer, r *mask.Result) {
	for _, c := range r.Columns {
		fmt.Fprintf(w, "%s.%s (%s): %d rows, %d NULL (kept), distinct %d before, %d after\n",
			c.Table, c.Column, c.Type, c.Rows, c.Nulls, c.DistinctBefore, c.DistinctAfter)
		if r.PgDump == "" {
			continue
		}
		line := fmt.Sprintf("  proof: %d of %d sampled originals found in the dump", c.Found, c.Sampled-c.Short)
		if c.Short > 0 {
			line += fmt.Sprintf(" (%d shorter than %d bytes not searched)", c.Short, mask.MinProofLen)
		}
		fmt.Fprintln(w, line)
	}
	if r.PgDump != "" {
		fmt.Fprintf(w, "proof: pg_dump of %d bytes searched and deleted\n", r.DumpBytes)
	} else {
		fmt.Fprintln(w, "proof: skipped (--prove 0)")
	}
	printMaskWarnings(w, r)
}

// printMaskWarnings writes what masking leaves behind: the key perhaps in
// the server's log, the originals in the clone's pages and WAL.
func printMaskWarnings(w io.Writer, r *mask.Result) {
	if r.ParamLogUnguarded {
		fmt.Fprintln(w, "warning: the server logs statements (log_statement or log_min_duration_statement) and this role cannot set log_parameter_max_length = 0: "+
			"its log may hold the key as the UPDATE's parameter; rotate the key or clear that log")
	}
	fmt.Fprintf(w, "warning: the clone %q still holds the original values in dead row versions on its pages and in its WAL "+
		"(VACUUM FULL and CHECKPOINT reduce them; WAL archives and backups keep them): take the dump (pg_dump), then drop the clone\n", r.Database)
}
