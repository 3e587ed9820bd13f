// Package serverctl changes a PostgreSQL server between an experiment's runs and
// disturbs it during them.
//
// Between runs: Apply writes a variant's settings with ALTER SYSTEM, makes them take
// effect (pg_reload_conf(), or a restart through a Restarter when a setting has
// pg_settings.context = 'postmaster'), checks them and runs the variant's setup SQL;
// Applied.Undo runs the teardown SQL and puts postgresql.auto.conf back as it was.
//
// During runs: Schedule runs injections (an ACCESS EXCLUSIVE lock held for a while, a
// CHECKPOINT, a VACUUM) at fixed offsets from the start of the measured phase, each on
// its own connection, and reports when each really started and ended.
//
// The package holds no global state: every function takes a connection string (a URL
// or key=value DSN, as pgx.ParseConfig reads it). Errors never carry the password
// (pgx redacts it from connection errors; statements and values are quoted as given).
package serverctl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
)

// connectTimeout bounds one connection attempt when the connection string sets no
// connect_timeout.
const connectTimeout = 10 * time.Second

// cleanupTimeout bounds statements that must run after the caller's context is
// cancelled (ROLLBACK of an injected lock, closing a connection).
const cleanupTimeout = 5 * time.Second

// parseConfig parses a connection string for this package's connections: a bounded
// connect, and a cancelled context sends the server a cancel request at once (the
// default only closes the socket, which a backend waiting for a lock does not notice
// until it is granted). They are pgtrial's own sessions (pgsession.Own) without a
// statement timeout: setup SQL, ALTER SYSTEM around a restart or an injected VACUUM
// may take long, and the context bounds them; the role's timeouts do not apply.
func parseConfig(connString string) (*pgx.ConnConfig, error) {
	if strings.TrimSpace(connString) == "" {
		return nil, errors.New("no connection string given")
	}
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("parse the connection string: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	pgsession.Own(&cfg.Config, pgsession.NameServerctl, pgsession.Unbounded)
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		// DeadlineDelay: if the server does not answer the cancel request within 1 s,
		// the socket is closed and the connection given up.
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: time.Second}
	}
	return cfg, nil
}

// connect opens a connection with a copy of cfg.
func connect(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return nil, pgerr.Cause(err, &cfg.Config) // inside longer messages: the cause, without a hint
	}
	return conn, nil
}

// closeConn closes conn with a bounded context that does not depend on the caller's
// (which may be cancelled already). A nil or closed conn is fine.
func closeConn(conn *pgx.Conn) {
	if conn == nil || conn.IsClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	conn.Close(ctx)
}

// serverName is host:port/database for messages (never the password).
func serverName(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
}

// execOne runs exactly one SQL statement in autocommit. It uses the extended query
// protocol, which refuses a string holding several statements instead of running them
// as one implicit transaction (which would break CREATE INDEX CONCURRENTLY or VACUUM).
func execOne(ctx context.Context, conn *pgx.Conn, sql string) error {
	_, err := conn.PgConn().ExecParams(ctx, sql, nil, nil, nil, nil).Close()
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42601" && strings.Contains(pgErr.Message, "multiple commands") {
			return &wrapped{serverMessage(err) + " (give each statement as its own list element)", err}
		}
		return &wrapped{serverMessage(err), err}
	}
	return nil
}

// wrapped is an error with its own text that still unwraps to the cause (a
// *pgconn.PgError, a context error).
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// serverMessage renders an error with the server's whole message: severity, text,
// detail, hint and SQLSTATE for a server error, err.Error() otherwise.
func serverMessage(err error) string {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err.Error()
	}
	msg := fmt.Sprintf("%s: %s", pgErr.Severity, pgErr.Message)
	if pgErr.Detail != "" {
		msg += "; DETAIL: " + pgErr.Detail
	}
	if pgErr.Hint != "" {
		msg += "; HINT: " + pgErr.Hint
	}
	return msg + " (SQLSTATE " + pgErr.Code + ")"
}

// shortSQL is a statement for an error message: whitespace runs folded to one space,
// at most 120 characters (runes) with "…" when cut.
func shortSQL(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	const limit = 120
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit]) + "…"
}

// checkStatements rejects empty statements and NUL bytes (which the protocol cannot
// carry) before anything runs; what names the list ("setup", "teardown").
func checkStatements(what string, stmts []string) error {
	for i, s := range stmts {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s statement %d of %d is empty", what, i+1, len(stmts))
		}
		if strings.ContainsRune(s, 0) {
			return fmt.Errorf("%s statement %d of %d (%s) contains a NUL byte", what, i+1, len(stmts), shortSQL(s))
		}
	}
	return nil
}

// Exec runs SQL statements in order on one connection, each its own statement in
// autocommit (for setup without settings, or for checks). It stops at the first
// failure, whose error names the statement's position and the server's message; the
// statements before it stay done.
func Exec(ctx context.Context, connString string, stmts ...string) error {
	if err := checkStatements("SQL", stmts); err != nil {
		return err
	}
	if len(stmts) == 0 {
		return nil
	}
	cfg, err := parseConfig(connString)
	if err != nil {
		return err
	}
	conn, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeConn(conn)
	for i, s := range stmts {
		if err := execOne(ctx, conn, s); err != nil {
			return fmt.Errorf("SQL statement %d of %d (%s): %w", i+1, len(stmts), shortSQL(s), err)
		}
	}
	return nil
}
