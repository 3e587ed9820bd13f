package localpg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgtrial/pgtrial/internal/pgconf"
)

// Setting is one configuration change, as in "name=value".
type Setting struct {
	Name  string
	Value string
}

// ParseSetting parses "name=value" (the value may be empty or contain '=').
func ParseSetting(s string) (Setting, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Setting{}, fmt.Errorf("setting %q: want NAME=VALUE, e.g. work_mem=64MB", s)
	}
	return Setting{Name: name, Value: value}, nil
}

// How a setting took effect.
const (
	ActionReload  = "reload"  // pg_reload_conf()
	ActionRestart = "restart" // the server was restarted
)

// SetResult reports one applied setting.
type SetResult struct {
	Name    string // canonical name from pg_settings
	Value   string // value in effect afterwards, as SHOW prints it (e.g. "512MB")
	Context string // pg_settings.context: postmaster, sighup, user, …
	// Needs is what the setting requires to take effect: ActionRestart for context
	// "postmaster", else ActionReload.
	Needs string
	// Action is what Set did: ActionRestart when any setting of the call needed a
	// restart (then all were applied by it), else ActionReload.
	Action string
	// PendingRestart is pg_settings.pending_restart afterwards: the new value is written
	// but not in effect until a restart (false after Set unless something went wrong).
	PendingRestart bool
	// NewSessionsOnly is true for settings of context backend/superuser-backend, which a
	// reload changes only for sessions started afterwards.
	NewSessionsOnly bool
}

// Set applies settings with ALTER SYSTEM and makes them take effect: a restart when any
// of them has context "postmaster" (pg_settings.context), else pg_reload_conf(). Names
// are checked against pg_settings first (unknown or read-only names change nothing);
// if ALTER SYSTEM rejects a value, the settings written before it are rolled back. The
// cluster must be running.
func (c *Cluster) Set(ctx context.Context, settings []Setting) ([]SetResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(settings) == 0 {
		return nil, errors.New("no settings given")
	}
	if c.marker == nil {
		return nil, fmt.Errorf("cluster %s does not exist in %s; run pgtrial local start", c.name, c.dir)
	}
	if c.postmasterPID() == 0 {
		return nil, fmt.Errorf("cluster %s is not running; run pgtrial local start first", c.name)
	}
	conn, err := pgx.Connect(ctx, urlFor(c.marker.Port, ""))
	if err != nil {
		return nil, fmt.Errorf("connect to cluster %s: %w", c.name, err)
	}
	defer conn.Close(context.Background())

	results := make([]SetResult, len(settings))
	statements := make([]string, len(settings))
	restart := false
	for i, s := range settings {
		name := strings.ToLower(strings.TrimSpace(s.Name))
		if !validSettingName.MatchString(name) {
			return nil, fmt.Errorf("setting %q: not a valid setting name", s.Name)
		}
		if managedSettings[name] {
			return nil, fmt.Errorf("setting %s is managed by pgtrial (the cluster listens on 127.0.0.1 and its own socket only)", name)
		}
		if strings.ContainsRune(s.Value, 0) {
			return nil, fmt.Errorf("setting %s: value contains a NUL byte", name)
		}
		var gucContext string
		err := conn.QueryRow(ctx, "SELECT name, context FROM pg_settings WHERE name = $1", name).Scan(&results[i].Name, &gucContext)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("unknown setting %q: no such name in pg_settings (check the spelling; settings of an extension exist only once its library is loaded)", s.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("look up setting %s: %w", name, err)
		}
		if gucContext == "internal" {
			return nil, fmt.Errorf("setting %s is read-only (context internal: fixed when the server was built or initialised)", name)
		}
		results[i].Context = gucContext
		results[i].Needs = ActionReload
		if gucContext == "postmaster" {
			results[i].Needs = ActionRestart
			restart = true
		}
		results[i].NewSessionsOnly = gucContext == "backend" || gucContext == "superuser-backend"
		value, err := pgconf.ValueSQL(results[i].Name, s.Value, c.marker.PGMajor)
		if err != nil {
			return nil, err
		}
		statements[i] = fmt.Sprintf("ALTER SYSTEM SET %s = %s", pgconf.NameSQL(results[i].Name), value)
	}

	// Previous postgresql.auto.conf entries, to roll back if a later value is rejected.
	prev := map[string]string{}
	rows, err := conn.Query(ctx, `SELECT name, setting FROM pg_file_settings
		WHERE sourcefile = current_setting('data_directory') || '/postgresql.auto.conf'`)
	if err != nil {
		return nil, fmt.Errorf("read postgresql.auto.conf entries: %w", err)
	}
	for rows.Next() {
		var n, v string
		if err := rows.Scan(&n, &v); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read postgresql.auto.conf entries: %w", err)
		}
		prev[n] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read postgresql.auto.conf entries: %w", err)
	}

	var loadTime time.Time
	if err := conn.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&loadTime); err != nil {
		return nil, fmt.Errorf("read pg_conf_load_time(): %w", err)
	}

	// A restart with a value the server cannot start with (e.g. a preload library that
	// does not exist) would leave the cluster down; keep the file to restore it.
	autoConf := filepath.Join(c.DataDir(), "postgresql.auto.conf")
	savedAutoConf, err := os.ReadFile(autoConf)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", autoConf, err)
	}

	for i, s := range settings {
		name := results[i].Name
		if _, err := conn.Exec(ctx, statements[i]); err != nil {
			rollbackErr := c.rollbackSettings(ctx, conn, results[:i], prev)
			msg := fmt.Sprintf("set %s = %q: %v", name, s.Value, err)
			if i > 0 {
				if rollbackErr != nil {
					msg += fmt.Sprintf("; rolling back the settings before it failed too: %v", rollbackErr)
				} else {
					msg += "; the settings before it were rolled back, nothing changed"
				}
			}
			return nil, errors.New(msg)
		}
	}

	action := ActionReload
	if restart {
		action = ActionRestart
		conn.Close(ctx)
		if err := c.restart(ctx); err != nil {
			if werr := c.writeFile(autoConf, string(savedAutoConf), 0o600); werr != nil {
				return nil, fmt.Errorf("the server does not start with the new settings: %w; restoring %s failed too: %v", err, autoConf, werr)
			}
			if _, serr := c.start(ctx); serr != nil {
				return nil, fmt.Errorf("the server does not start with the new settings: %w; restored %s, but it does not start either: %v", err, autoConf, serr)
			}
			return nil, fmt.Errorf("the server does not start with the new settings, so they were undone (previous postgresql.auto.conf restored, server running again): %w", err)
		}
	} else {
		if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
			return nil, fmt.Errorf("pg_reload_conf(): %w", err)
		}
		conn.Close(ctx)
		if err := waitReload(ctx, c.marker.Port, loadTime); err != nil {
			return nil, err
		}
	}

	// Read back from a new session: it sees the reloaded (or restarted) configuration.
	check, err := pgx.Connect(ctx, urlFor(c.marker.Port, ""))
	if err != nil {
		return nil, fmt.Errorf("connect after %s: %w", action, err)
	}
	defer check.Close(context.Background())
	for i := range results {
		r := &results[i]
		r.Action = action
		if err := check.QueryRow(ctx, "SELECT current_setting(name), pending_restart FROM pg_settings WHERE name = $1",
			r.Name).Scan(&r.Value, &r.PendingRestart); err != nil {
			return nil, fmt.Errorf("read back %s: %w", r.Name, err)
		}
	}
	// A value ALTER SYSTEM accepted can still fail when the file is applied (e.g. a
	// preload library that does not exist); pg_file_settings says so.
	var problems []string
	rows, err = check.Query(ctx, `SELECT name, error FROM pg_file_settings WHERE error IS NOT NULL`)
	if err == nil {
		for rows.Next() {
			var n, e *string
			if rows.Scan(&n, &e) == nil && e != nil {
				problems = append(problems, fmt.Sprintf("%s: %s", deref(n), *e))
			}
		}
		rows.Close()
	}
	if len(problems) > 0 {
		return results, fmt.Errorf("the configuration files have errors after %s: %s", action, strings.Join(problems, "; "))
	}
	return results, nil
}

func deref(s *string) string {
	if s == nil {
		return "(file)"
	}
	return *s
}

// rollbackSettings restores the postgresql.auto.conf entries of applied settings.
func (c *Cluster) rollbackSettings(ctx context.Context, conn *pgx.Conn, applied []SetResult, prev map[string]string) error {
	var errs []error
	for _, r := range applied {
		sql := "ALTER SYSTEM RESET " + pgconf.NameSQL(r.Name)
		if v, ok := prev[r.Name]; ok {
			value, err := pgconf.ValueSQL(r.Name, v, c.marker.PGMajor)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			sql = fmt.Sprintf("ALTER SYSTEM SET %s = %s", pgconf.NameSQL(r.Name), value)
		}
		if _, err := conn.Exec(ctx, sql); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.Name, err))
		}
	}
	return errors.Join(errs...)
}

// waitReload waits until a new session sees a configuration loaded after since:
// pg_reload_conf() only signals the postmaster, which re-reads the files shortly after;
// new backends inherit its pg_conf_load_time(). Bounded by 10 s.
func waitReload(ctx context.Context, port int, since time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, urlFor(port, ""))
		if err == nil {
			var t time.Time
			err = conn.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&t)
			conn.Close(context.Background())
			if err == nil && t.After(since) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the server to reload its configuration: %w (last error: %v)", ctx.Err(), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
