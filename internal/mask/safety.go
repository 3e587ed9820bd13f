package mask

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// MarkPrefix starts the database comment that marks a database as made by pgtrial, as
// "pgtrial:tpcc" marks its tables (loader's owned.go); CloneMark is the comment a clone
// made for masking carries: COMMENT ON DATABASE staging IS 'pgtrial:clone'.
const (
	MarkPrefix = "pgtrial:"
	CloneMark  = MarkPrefix + "clone"
)

// MinKeyLen is the shortest key accepted, in bytes (128 bits).
const MinKeyLen = 16

// checkClone refuses a database that other sessions use, one on a standby, and one
// without pgtrial's mark unless onClone.
func checkClone(ctx context.Context, conn *pgx.Conn, db string, onClone bool) error {
	var standby bool
	var comment string
	err := conn.QueryRow(ctx, `select pg_is_in_recovery(),
	                                  coalesce(shobj_description((select oid from pg_database where datname = current_database()), 'pg_database'), '')`).
		Scan(&standby, &comment)
	if err != nil {
		return fmt.Errorf("mask: read database %q's state: %w", db, err)
	}
	if standby {
		return fmt.Errorf("mask: database %q is on a standby (in recovery): mask a writable clone, restored from a backup", db)
	}
	if err := checkAlone(ctx, conn, db); err != nil {
		return err
	}
	if strings.HasPrefix(comment, MarkPrefix) || onClone {
		return nil
	}
	return fmt.Errorf("mask: database %q is not marked as pgtrial's (its comment does not start with %q), so it may be a production database: "+
		"masking rewrites every row of the named columns for good. If it is a clone (restored from a backup, or CREATE DATABASE … TEMPLATE), "+
		"pass --i-am-on-a-clone, or mark it once with COMMENT ON DATABASE %s IS '%s'",
		db, MarkPrefix, pgx.Identifier{db}.Sanitize(), CloneMark)
}

// querier is a connection or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// aloneGrace is how long checkAlone waits for sessions that are closing.
const aloneGrace = 2 * time.Second

// checkAlone refuses when client sessions other than this one are connected to the
// database (background workers such as autovacuum do not count): a clone has no
// users, and an UPDATE under their feet is what a production database must never see.
func checkAlone(ctx context.Context, q querier, db string) error {
	var n int
	var who string
	// A session that has just disconnected stays in pg_stat_activity until its backend
	// has exited (a few milliseconds, more on a busy machine): look again for up to
	// aloneGrace before refusing, so that only sessions that stay connected count.
	deadline := time.Now().Add(aloneGrace)
	for {
		// pg_stat_activity is read once per transaction and then kept: clear that copy,
		// or the check at the transaction's end would see the sessions of its start.
		if _, err := q.Exec(ctx, "select pg_stat_clear_snapshot()"); err != nil {
			return fmt.Errorf("mask: look for other sessions on database %q: %w", db, err)
		}
		err := q.QueryRow(ctx, `select count(*),
		                               coalesce(string_agg(distinct coalesce(nullif(application_name, ''), usename::text, '?'), ', '), '')
		                          from pg_stat_activity
		                         where datname = current_database() and pid <> pg_backend_pid()
		                           and backend_type = 'client backend'`).Scan(&n, &who)
		if err != nil {
			return fmt.Errorf("mask: look for other sessions on database %q (pg_stat_activity): %w", db, err)
		}
		if n == 0 {
			return nil
		}
		if !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("mask: database %q has %d other connection(s) (%s): a clone being masked has none; "+
		"if this is a clone, close them (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '%s' AND pid <> pg_backend_pid()) and run again",
		db, n, who, strings.ReplaceAll(db, "'", "''"))
}

// ReadKey reads the key from a file (one trailing newline, "\n" or "\r\n", is not part
// of it) or from an environment variable; exactly one of file and env is given. The
// key's bytes are used as they are (bytea); it must have at least MinKeyLen. Errors
// never contain the key.
func ReadKey(file, env string, getenv func(string) (string, bool)) ([]byte, error) {
	var key []byte
	switch {
	case file != "" && env != "":
		return nil, errors.New("mask: give the key either with --key-file or with --key-env, not both")
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("mask: read the key file: %w", err)
		}
		if t, ok := bytes.CutSuffix(b, []byte("\n")); ok {
			b = bytes.TrimSuffix(t, []byte("\r"))
		}
		key = b
	case env != "":
		if getenv == nil {
			getenv = os.LookupEnv
		}
		v, ok := getenv(env)
		if !ok {
			return nil, fmt.Errorf("mask: environment variable %s (--key-env) is not set", env)
		}
		key = []byte(v)
	default:
		return nil, errors.New("mask: no key: give --key-file FILE or --key-env VARIABLE (at least 16 bytes; e.g. head -c 32 /dev/urandom | base64 > mask.key)")
	}
	if len(key) < MinKeyLen {
		return nil, fmt.Errorf("mask: the key has %d bytes; it needs at least %d (e.g. head -c 32 /dev/urandom | base64 > mask.key)", len(key), MinKeyLen)
	}
	return key, nil
}
