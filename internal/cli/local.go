package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/report/format"
)

// exitNotRunning is "pgtrial local status"'s exit code for a stopped or missing
// cluster (pg_ctl status uses 3 the same way).
const exitNotRunning = 3

// localFlags are the flags shared by every "local" subcommand.
type localFlags struct {
	name   string
	dir    string
	pgBin  string
	osUser string
}

func (f *localFlags) open() (*localpg.Cluster, error) {
	return localpg.Open(localpg.Config{Name: f.name, Dir: f.dir, BinDir: f.pgBin, OSUser: f.osUser})
}

// openCreated is open for a command that needs the cluster to exist; hint
// ends the error when it does not ("; create it with …", or "").
func (f *localFlags) openCreated(hint string) (*localpg.Cluster, error) {
	c, err := f.open()
	if err != nil {
		return nil, err
	}
	if !c.Created() {
		return nil, fmt.Errorf("no cluster %q in %s%s", c.Name(), c.Dir(), hint)
	}
	return c, nil
}

const localLong = `Manage a throwaway PostgreSQL cluster built from this machine's PostgreSQL server
binaries, for benchmarks and experiments.

Binaries: the first directory holding initdb, pg_ctl and postgres among
  1. --pg-bin DIR
  2. $PGTRIAL_PG_BIN
  3. pg_config --bindir (pg_config found in PATH)
  4. the directories in PATH
  5. /usr/lib/postgresql/*/bin, highest version first
A directory named by --pg-bin or PGTRIAL_PG_BIN must be complete: pgtrial does not fall
back to another installation then. To install the binaries (as root):
  apt-get update && apt-get install -y postgresql postgresql-contrib

Location: ${XDG_CACHE_HOME:-$HOME/.cache}/pgtrial/clusters/NAME (NAME from --name,
default "default"), or --dir DIR. As root, when the OS user that runs the server cannot
traverse that path (root's home is usually mode 0700), the cluster goes to
/var/tmp/pgtrial/clusters/NAME instead and start and status say so; pgtrial never changes
the permissions of existing directories. A --dir it cannot reach is an error.

The cluster directory holds pgtrial-cluster.json (the marker), data/ (PGDATA) and
server.log; destroy removes only a directory with the marker.

As root: PostgreSQL refuses to run as root, so initdb and the server run as the OS user
"postgres" (or --os-user NAME), which owns the cluster directory. An existing cluster
keeps the OS user recorded in its marker. Without root, everything runs as you.

Connections: the server listens on 127.0.0.1 (a free port chosen at creation) and on a
unix socket in the cluster directory, with trust authentication and no password: any
user of this machine can connect as the superuser "postgres". Keep nothing secret in it.
listen_addresses, port and unix_socket_directories are given on the server's command
line at every start, so ALTER SYSTEM or an edited postgresql.conf cannot move it off
loopback; "local set" and experiment variants refuse them, and "local status" shows the
addresses the server listens on.

Defaults for benchmarking (data/pgtrial.conf): shared_buffers RAM/8 (128MB..1GB),
max_connections 200, max_wal_size 4GB, pg_stat_statements preloaded when installed,
track_io_timing, log_checkpoints, log_autovacuum_min_duration=0, log_lock_waits.
Change settings with "pgtrial local set".`

func newLocalCommand() *cobra.Command {
	f := &localFlags{}
	cmd := &cobra.Command{
		Use:   "local",
		Short: "Manage a throwaway local PostgreSQL cluster",
		Long:  localLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.name, "name", localpg.DefaultName, "cluster name; selects ${XDG_CACHE_HOME:-$HOME/.cache}/pgtrial/clusters/NAME")
	pf.StringVar(&f.dir, "dir", "", "cluster directory (overrides the location derived from --name)")
	pf.StringVar(&f.pgBin, "pg-bin", "", "directory of the PostgreSQL server binaries (initdb, pg_ctl, postgres); default: $PGTRIAL_PG_BIN, then a search")
	pf.StringVar(&f.osUser, "os-user", "", `OS user that runs the server when pgtrial runs as root (default "postgres")`)
	cmd.AddCommand(
		newLocalStartCommand(f),
		newLocalStopCommand(f),
		newLocalStatusCommand(f),
		newLocalDestroyCommand(f),
		newLocalURLCommand(f),
		newLocalSetCommand(f),
	)
	return cmd
}

func printNote(w io.Writer, c *localpg.Cluster) {
	if n := c.Note(); n != "" {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func newLocalStartCommand(f *localFlags) *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Create the cluster if needed and start it; print its URL",
		Long: `Create the cluster if it does not exist (initdb --locale=C -E UTF8, superuser
"postgres", benchmark defaults) and start the server (pg_ctl start, waiting up to 60 s).
Starting a running cluster changes nothing and says it was already running. If the
cluster's port has been taken by another program, a new free port is chosen and
recorded. The last line of the output is the connection URL.`,
		Example: `  pgtrial local start
  pgtrial local start --db bench
  psql "$(pgtrial local url)"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.open()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			printNote(out, c)
			ctx := cmd.Context()
			res, err := c.Start(ctx)
			if err != nil {
				return err
			}
			if res.Created {
				fmt.Fprintf(out, "created cluster %q (PostgreSQL %s) in %s\n", c.Name(), c.Version(), c.Dir())
			}
			if res.OldPort != 0 {
				fmt.Fprintf(out, "port %d was taken by another program; the cluster now uses port %d\n", res.OldPort, res.Port)
			}
			if res.AlreadyRunning {
				fmt.Fprintf(out, "cluster %q is already running on port %d\n", c.Name(), res.Port)
			} else {
				fmt.Fprintf(out, "started cluster %q on port %d (server runs as OS user %s, log %s)\n",
					c.Name(), res.Port, c.OSUser().Name, c.LogFile())
			}
			if db != "" {
				created, err := ensureDatabase(ctx, c, db)
				if err != nil {
					return err
				}
				if created {
					fmt.Fprintf(out, "created database %q\n", db)
				}
			}
			fmt.Fprintln(out, c.URL(db))
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "also create this database if it does not exist, and print its URL")
	return cmd
}

// ensureDatabase creates database db unless it exists; it reports whether it did.
func ensureDatabase(ctx context.Context, c *localpg.Cluster, db string) (bool, error) {
	conn, err := c.Connect(ctx, "postgres")
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists); err != nil {
		return false, fmt.Errorf("look up database %q: %w", db, err)
	}
	if exists {
		return false, nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		return false, fmt.Errorf("create database %q: %w", db, err)
	}
	return true, nil
}

func newLocalStopCommand(f *localFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop the cluster (fast shutdown)",
		Long: `Stop the server with pg_ctl stop -m fast: open transactions are rolled back, clients
are disconnected, and a shutdown checkpoint is written. Stopping a stopped cluster is
not an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.openCreated("")
			if err != nil {
				return err
			}
			was, err := c.Stop(cmd.Context())
			if err != nil {
				return err
			}
			if was {
				fmt.Fprintf(cmd.OutOrStdout(), "stopped cluster %q\n", c.Name())
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "cluster %q was not running\n", c.Name())
			}
			return nil
		},
	}
}

func newLocalStatusCommand(f *localFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the cluster's state, version, port, pid, addresses, size and URL",
		Long: `Show the cluster's state (running, stopped, not created), PostgreSQL version, port,
postmaster pid, the TCP addresses the server listens on (as the kernel's socket tables
say: 127.0.0.1 only, whatever ALTER SYSTEM wrote), data directory and its size, and URL.

Exit status: 0 when the cluster is running, 3 when it is stopped or not created (as
pg_ctl status), 1 on errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.open()
			if err != nil {
				return err
			}
			st, err := c.Status(cmd.Context())
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := printJSON(out, jsonLocalStatus, newLocalStatusJSON(st)); err != nil {
					return err
				}
				if st.State != localpg.Running {
					return &exitError{code: exitNotRunning, err: fmt.Errorf("cluster %q is %s", st.Name, st.State)}
				}
				return nil
			}
			printNote(out, c)
			row := func(k string, v any) { fmt.Fprintf(out, "%-10s %v\n", k+":", v) }
			row("cluster", st.Name)
			row("state", st.State)
			row("dir", st.Dir)
			if st.State != localpg.NotCreated {
				row("version", "PostgreSQL "+st.Version)
				row("port", st.Port)
				if st.PID != 0 {
					row("pid", st.PID)
					row("listening", listening(st))
				}
				row("data dir", st.DataDir)
				row("data size", fmt.Sprintf("%s (%d bytes)", format.Bytes(st.DataBytes), st.DataBytes))
				row("socket", st.SocketDir)
				row("log", st.LogFile)
				row("os user", st.OSUser)
				row("url", st.URL)
			}
			if st.State != localpg.Running {
				return &exitError{code: exitNotRunning, err: fmt.Errorf("cluster %q is %s", st.Name, st.State)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON on stdout (the exit status is the same)")
	return cmd
}

// localStatusJSON is local status --json: localpg.Status with the field
// names of run.json (snake_case) and the addresses as strings.
type localStatusJSON struct {
	Schema    string   `json:"schema"` // jsonSchemaID(jsonLocalStatus)
	Name      string   `json:"name"`
	State     string   `json:"state"`
	Dir       string   `json:"dir"`
	Note      string   `json:"note,omitempty"`
	Version   string   `json:"server_version,omitempty"`
	Port      int      `json:"port,omitempty"`
	PID       int      `json:"pid,omitempty"`
	Listen    []string `json:"listen,omitempty"`
	ListenErr string   `json:"listen_error,omitempty"`
	DataDir   string   `json:"data_dir,omitempty"`
	DataBytes int64    `json:"data_bytes,omitempty"`
	SocketDir string   `json:"socket_dir,omitempty"`
	LogFile   string   `json:"log_file,omitempty"`
	OSUser    string   `json:"os_user,omitempty"`
	URL       string   `json:"url,omitempty"`
}

func newLocalStatusJSON(st localpg.Status) localStatusJSON {
	j := localStatusJSON{
		Schema: jsonSchemaID(jsonLocalStatus), Name: st.Name, State: string(st.State), Dir: st.Dir, Note: st.Note,
		DataDir: st.DataDir, SocketDir: st.SocketDir, LogFile: st.LogFile, OSUser: st.OSUser,
	}
	if st.State != localpg.NotCreated {
		j.Version, j.Port, j.PID, j.DataBytes, j.URL = st.Version, st.Port, st.PID, st.DataBytes, st.URL
	}
	for _, a := range st.Listen {
		j.Listen = append(j.Listen, a.String())
	}
	if st.ListenErr != nil {
		j.ListenErr = st.ListenErr.Error()
	}
	return j
}

// listening describes the TCP addresses a running cluster listens on, e.g.
// "127.0.0.1:41235"; an address off loopback is marked, since the cluster
// trusts every connection.
func listening(st localpg.Status) string {
	switch {
	case st.ListenErr != nil:
		return fmt.Sprintf("unknown (%v)", st.ListenErr)
	case len(st.Listen) == 0:
		return "no TCP address (unix socket only)"
	}
	parts := make([]string, len(st.Listen))
	for i, a := range st.Listen {
		parts[i] = a.String()
		if !a.Addr().IsLoopback() {
			parts[i] += " (NOT loopback: reachable from other machines, with trust authentication)"
		}
	}
	return strings.Join(parts, ", ")
}

func newLocalDestroyCommand(f *localFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "destroy",
		Short: "Stop the cluster and delete its directory",
		Long: `Stop the server if it runs (fast shutdown) and delete the cluster directory with all
its data. Only a directory containing pgtrial-cluster.json is deleted; anything else is
refused. Destroying a cluster that does not exist is not an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.open()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			err = c.Destroy(cmd.Context())
			if errors.Is(err, localpg.ErrNoCluster) {
				fmt.Fprintf(out, "no cluster %q in %s; nothing to destroy\n", c.Name(), c.Dir())
				return nil
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "destroyed cluster %q (removed %s)\n", c.Name(), c.Dir())
			return nil
		},
	}
}

func newLocalURLCommand(f *localFlags) *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "url",
		Short: "Print the cluster's connection URL",
		Long: `Print a connection URL for scripts, for pgx, psql and pgtrial, e.g.
postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable. It never contains a
password (the cluster trusts loopback connections). The cluster must exist; a note goes
to stderr when it is not running.`,
		Example: `  psql "$(pgtrial local url)"
  pgtrial local url --db bench`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := f.openCreated("; create it with pgtrial local start")
			if err != nil {
				return err
			}
			if !c.Running() {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: cluster %q is not running; start it with pgtrial local start\n", c.Name())
			}
			fmt.Fprintln(cmd.OutOrStdout(), c.URL(db))
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "", `database name in the URL (default "postgres")`)
	return cmd
}

func newLocalSetCommand(f *localFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "set NAME=VALUE...",
		Short: "Change server settings (ALTER SYSTEM), reloading or restarting as needed",
		Long: `Change server settings with ALTER SYSTEM (written to data/postgresql.auto.conf) and
make them take effect: when any of them can only change at server start
(pg_settings.context = postmaster, e.g. shared_buffers, max_connections) the server is
restarted, otherwise the configuration is reloaded (pg_reload_conf()). Each setting is
printed with its value in effect afterwards and what was done.

Names are checked against pg_settings before anything is changed; an unknown or
read-only name is an error. Values are passed as SQL string literals (quoted safely);
list settings such as shared_preload_libraries and search_path take comma-separated
values (an empty list needs PostgreSQL 19). If the server rejects a value, the settings
written before it are rolled back; if the server does not start with the new settings,
the previous postgresql.auto.conf is restored and the server started again, and the
command fails. The cluster must be running. listen_addresses, port and
unix_socket_directories are managed by pgtrial and cannot be set.

Exit status: 0 when the settings were applied, 1 otherwise.`,
		Example: `  pgtrial local set work_mem=64MB
  pgtrial local set shared_buffers=2GB max_wal_size=16GB
  pgtrial local set shared_preload_libraries=pg_stat_statements,auto_explain`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			settings := make([]localpg.Setting, 0, len(args))
			for _, a := range args {
				s, err := localpg.ParseSetting(a)
				if err != nil {
					return err
				}
				settings = append(settings, s)
			}
			c, err := f.open()
			if err != nil {
				return err
			}
			results, err := c.Set(cmd.Context(), settings)
			out := cmd.OutOrStdout()
			for _, r := range results {
				fmt.Fprintf(out, "%s = %s (%s)\n", r.Name, r.Value, describeSet(r))
			}
			return err
		},
	}
}

// describeSet says how a setting took effect, e.g. "restart: server restarted".
func describeSet(r localpg.SetResult) string {
	var parts []string
	switch {
	case r.Needs == localpg.ActionRestart:
		parts = append(parts, "restart: server restarted")
	case r.Action == localpg.ActionRestart:
		parts = append(parts, "reload; applied by the restart")
	default:
		parts = append(parts, "reload: configuration reloaded")
	}
	if r.NewSessionsOnly {
		parts = append(parts, "new sessions only")
	}
	if r.PendingRestart {
		parts = append(parts, "pending restart")
	}
	return strings.Join(parts, "; ")
}
