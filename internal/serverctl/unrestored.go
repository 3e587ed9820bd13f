package serverctl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgconf"
)

// MarkerSetting is the custom setting Apply writes into postgresql.auto.conf beside a
// variant's settings (Change.Marker: the experiment directory) and resets with them:
// while it is there, the server holds values an experiment has not put back, and
// UnrestoredMarker says which experiment.
//
// ALTER SYSTEM writes a custom (dotted) name that the server does not know only from
// PostgreSQL 17 on; before (13–16) it checks the name against the session's settings,
// so the session first defines the placeholder with SET (harmless on 17 and later).
// The server accepts any dotted name in its configuration files (a placeholder), so
// the marker does not keep it from starting or reloading.
const MarkerSetting = "pgtrial.unrestored"

// definePlaceholder makes MarkerSetting known to conn's session (see MarkerSetting).
func definePlaceholder(ctx context.Context, conn *pgx.Conn) error {
	return execOne(ctx, conn, "SET "+pgconf.NameSQL(MarkerSetting)+" = ''")
}

// setMarker writes MarkerSetting = value with ALTER SYSTEM (no reload: the file is
// what UnrestoredMarker reads first, and the settings' reload follows).
func setMarker(ctx context.Context, conn *pgx.Conn, value string) error {
	if err := definePlaceholder(ctx, conn); err != nil {
		return err
	}
	return execOne(ctx, conn, "ALTER SYSTEM SET "+pgconf.NameSQL(MarkerSetting)+" = "+pgconf.QuoteLiteral(value))
}

// resetMarker removes MarkerSetting from postgresql.auto.conf.
func resetMarker(ctx context.Context, conn *pgx.Conn) error {
	if err := definePlaceholder(ctx, conn); err != nil {
		return err
	}
	return execOne(ctx, conn, "ALTER SYSTEM RESET "+pgconf.NameSQL(MarkerSetting))
}

// UnrestoredMarker is MarkerSetting's value in the server's postgresql.auto.conf
// (pg_file_settings, which reads the file as it is now), "" when it is not there.
// Without the privilege to read pg_file_settings (superuser or pg_read_all_settings)
// it is the value in effect (current_setting), which a reload after the ALTER SYSTEM
// made visible.
func UnrestoredMarker(ctx context.Context, conn *pgx.Conn) (string, error) {
	var v *string
	err := conn.QueryRow(ctx, `SELECT (SELECT setting FROM pg_file_settings
		WHERE right(sourcefile, 20) = 'postgresql.auto.conf' AND name = $1 ORDER BY seqno DESC LIMIT 1)`, MarkerSetting).Scan(&v)
	if err != nil {
		var pgErr interface{ SQLState() string }
		if !errors.As(err, &pgErr) {
			return "", fmt.Errorf("read %s from pg_file_settings: %w", MarkerSetting, err)
		}
		// No privilege (42501) or an old server: the value in effect.
		if err := conn.QueryRow(ctx, "SELECT current_setting($1, true)", MarkerSetting).Scan(&v); err != nil {
			return "", fmt.Errorf("read %s: %w", MarkerSetting, err)
		}
	}
	if v == nil {
		return "", nil
	}
	return *v, nil
}

// Restored is what Restore did, one phrase each, for the caller to print.
type Restored struct {
	Settings       []string // "work_mem = '4MB' (its earlier ALTER SYSTEM value)", "random_page_cost reset (…)"
	Teardown       int      // teardown statements that succeeded
	TeardownErrors []string
	MarkerReset    bool
	Reloaded       bool
	Restarted      bool     // the server was restarted through the Restarter
	Started        bool     // the server was down (a restart cut short) and started through the Restarter
	NeedsRestart   []string // settings still pending a restart: the user must restart the server
}

// Restore puts a server back from what Change.BeforeChange was given, after the
// process that called Apply ended without Undo (a crash, a kill -9): it runs teardown
// (every statement, failures collected in TeardownErrors, not returned: the objects may
// never have been made), writes each original back (ALTER SYSTEM SET its earlier value,
// or RESET), resets MarkerSetting when marker is true, reloads, and restarts through r
// when a setting is pending a restart (without r, NeedsRestart names them). Running it
// again is harmless: the same values are written again. The error says what could not
// be put back.
func Restore(ctx context.Context, connString string, r Restarter, originals []Original, teardown []string, marker bool) (*Restored, error) {
	cfg, err := parseConfig(connString)
	if err != nil {
		return nil, err
	}
	if isNil(r) {
		r = nil
	}
	res := &Restored{}
	if r != nil && refusesConnections(ctx, cfg) {
		if err := r.Restart(ctx); err != nil {
			return res, fmt.Errorf("the server at %s is down, and starting it failed: %w", serverName(cfg), err)
		}
		res.Started = true
	}
	if len(teardown) > 0 {
		a := &Applied{cfg: cfg, Teardown: teardown}
		res.Teardown = len(teardown)
		if err := a.runTeardown(ctx); err != nil {
			list := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				list = j.Unwrap()
			}
			for _, e := range list {
				res.TeardownErrors = append(res.TeardownErrors, e.Error())
			}
			res.Teardown = max(0, len(teardown)-len(list))
		}
	}
	if len(originals) == 0 && !marker {
		return res, nil
	}
	conn, err := connectRetry(ctx, cfg, readyTimeout)
	if err != nil {
		return res, err
	}
	defer func() { closeConn(conn) }()
	var pgMajor int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int / 10000").Scan(&pgMajor); err != nil {
		return res, fmt.Errorf("read the server version: %w", err)
	}
	var errs []error
	names := make([]string, 0, len(originals))
	for _, o := range originals {
		name := strings.ToLower(o.Name)
		if !validSettingName.MatchString(name) {
			errs = append(errs, fmt.Errorf("%q is not a setting name", o.Name))
			continue
		}
		names = append(names, name)
		sql, what := "ALTER SYSTEM RESET "+pgconf.NameSQL(name), name+" reset (it was not in postgresql.auto.conf)"
		if !o.Known {
			what = name + " reset (its earlier postgresql.auto.conf entry was unknown)"
		}
		if o.Present {
			v, err := pgconf.ValueSQL(name, o.Value, pgMajor)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			sql, what = fmt.Sprintf("ALTER SYSTEM SET %s = %s", pgconf.NameSQL(name), v), fmt.Sprintf("%s = %q (its earlier ALTER SYSTEM value)", name, o.Value)
		}
		if err := execOne(ctx, conn, sql); err != nil {
			errs = append(errs, fmt.Errorf("write back %s: %w", name, err))
			continue
		}
		res.Settings = append(res.Settings, what)
	}
	if marker && len(errs) == 0 {
		if m, err := UnrestoredMarker(ctx, conn); err == nil && m == "" {
			// Not there (Apply could not write it, or it is reset already).
		} else if err := resetMarker(ctx, conn); err != nil {
			errs = append(errs, fmt.Errorf("reset the marker %s: %w", MarkerSetting, err))
		} else {
			res.MarkerReset = true
		}
	}
	if err := reloadConf(ctx, cfg, conn); err != nil {
		return res, errors.Join(append(errs, err)...)
	}
	res.Reloaded = true
	closeConn(conn)
	conn, err = connectRetry(ctx, cfg, readyTimeout)
	if err != nil {
		return res, errors.Join(append(errs, err)...)
	}
	pending, err := pendingRestart(ctx, conn, names)
	if err != nil {
		return res, errors.Join(append(errs, err)...)
	}
	if len(pending) > 0 && r != nil {
		closeConn(conn)
		if err := r.Restart(ctx); err != nil {
			return res, errors.Join(append(errs, fmt.Errorf("restart the server to put back %s: %w", strings.Join(pending, ", "), err))...)
		}
		res.Restarted = true
		if conn, err = connectRetry(ctx, cfg, readyTimeout); err != nil {
			return res, errors.Join(append(errs, err)...)
		}
		if pending, err = pendingRestart(ctx, conn, names); err != nil {
			return res, errors.Join(append(errs, err)...)
		}
	}
	res.NeedsRestart = pending
	return res, errors.Join(errs...)
}

// refusesConnections reports whether nothing listens where cfg points: one
// attempt, refused (TCP) or without a socket (a Unix socket's path). A server
// that is starting or shutting down answers, and is not "refusing".
func refusesConnections(ctx context.Context, cfg *pgx.ConnConfig) bool {
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err == nil {
		closeConn(conn)
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// pendingRestart is those of names that pg_settings says are pending a restart.
func pendingRestart(ctx context.Context, conn *pgx.Conn, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	rows, err := conn.Query(ctx, "SELECT name FROM pg_settings WHERE pending_restart AND name = ANY($1) ORDER BY name", names)
	if err != nil {
		return nil, fmt.Errorf("read pg_settings.pending_restart: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
