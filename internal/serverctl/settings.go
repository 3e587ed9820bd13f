package serverctl

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgtrial/pgtrial/internal/pgconf"
)

// Setting is one server setting, NAME = VALUE, the value as postgresql.conf would have
// it without the quotes: "64MB", "on", "pg_stat_statements, auto_explain".
type Setting struct {
	Name  string
	Value string
}

// Change is one variant's server-side changes.
type Change struct {
	Settings []Setting
	// Setup runs after the settings took effect, Teardown in Undo before they are
	// restored: SQL statements in order, each its own statement in autocommit (one
	// statement per element; CREATE INDEX CONCURRENTLY and VACUUM work).
	Setup, Teardown []string
	// BeforeChange, when not nil, is called once before Apply changes anything: after
	// the settings were checked and their postgresql.auto.conf entries read, before
	// the first ALTER SYSTEM (or, for a change without settings, before the setup
	// SQL), with those entries (none without settings). A caller persists them there,
	// so that a crash or a kill -9 after it leaves enough to put the server back
	// (Restore). An error stops Apply, nothing changed.
	BeforeChange func(originals []Original) error
	// Marker, when not "", is written as MarkerSetting = Marker with ALTER SYSTEM
	// before the settings (so it is in postgresql.auto.conf whenever they are) and
	// reset with them (Undo, or Apply's own putting back). Ignored without settings;
	// when the role may not write it, Applied.Notes says so and Apply goes on.
	Marker string
}

// Original is a setting's postgresql.auto.conf entry before Apply wrote it, what
// Restore needs to put it back.
type Original struct {
	Name    string // canonical name (pg_settings.name)
	Context string // pg_settings.context: postmaster, sighup, user, …
	// Present: the file had an entry, Value (as in the file, unquoted); else the
	// setting was not in the file and is RESET. Known is false when pg_file_settings
	// could not be read: then Present is false and Restore RESETs (as Undo does).
	Value   string
	Present bool
	Known   bool
}

// AppliedSetting is one setting as Apply wrote it.
type AppliedSetting struct {
	Name    string // canonical name (pg_settings.name)
	Value   string // as given
	Context string // pg_settings.context: postmaster, sighup, user, …
	// Before is current_setting(name) in a new session before Apply; Undo checks that
	// it is back (unless BeforePending: the server then was not running what its files
	// said, and there is nothing exact to go back to).
	Before        string
	BeforePending bool
	// Previous is the setting's postgresql.auto.conf value before Apply (an earlier
	// ALTER SYSTEM) when HadPrevious; Undo writes it back, or RESETs the setting when
	// there was none. PreviousKnown is false when pg_file_settings could not be read
	// (it needs superuser or pg_read_all_settings): Undo then RESETs.
	Previous      string
	HadPrevious   bool
	PreviousKnown bool

	prevSQL string // Previous rendered for ALTER SYSTEM SET, checked before writing
}

// Applied records what Apply did, so that Undo can put the server back exactly as it
// was.
type Applied struct {
	Settings []AppliedSetting
	Teardown []string
	// Restarted says Apply restarted the server (a setting had context postmaster);
	// UndoRestarted that Undo did (a restored setting was pending a restart).
	Restarted     bool
	UndoRestarted bool
	// Effective is current_setting(name) in a new session after Apply, by canonical
	// name, as SHOW prints it ("64MB").
	Effective map[string]string
	// Notes are things the caller should know (e.g. that Undo can only RESET).
	Notes []string

	cfg          *pgx.ConnConfig
	restarter    Restarter
	beforeChange func([]Original) error
	marker       string // Change.Marker
	markerSet    bool   // the marker is in postgresql.auto.conf (written by Apply)
	mu           sync.Mutex
	undone       bool
}

// validSettingName is what the configuration file grammar accepts for a name
// (identifiers, optionally qualified with a dot for extension settings).
var validSettingName = regexp.MustCompile(`^[a-z_][a-z0-9_$]*(\.[a-z_][a-z0-9_$]*)?$`)

// reloadTimeout bounds the wait for a reload to show in new sessions; readyTimeout the
// wait for a restarted server to accept connections after its Restarter returned.
const (
	reloadTimeout = 10 * time.Second
	reloadPoll    = 20 * time.Millisecond
	readyTimeout  = 30 * time.Second
)

// Apply applies a variant's change:
//
//  1. checks every setting name against pg_settings (unknown or read-only: error,
//     nothing changed) and, when one has context postmaster, that r is not nil (else
//     an error naming it, nothing changed);
//  2. reads each setting's previous postgresql.auto.conf value (pg_file_settings) and
//     passes them to c.BeforeChange;
//  3. writes c.Marker, then each setting with ALTER SYSTEM SET (a rejected value: those
//     before it and the marker are written back, nothing changed);
//  4. restarts the server through r when a setting has context postmaster, else calls
//     pg_reload_conf() and waits until new sessions see the reload;
//  5. checks from a new session that no setting is pending a restart and the files
//     have no error for them, and records current_setting in Effective;
//  6. runs Setup.
//
// A failure in 4–6 writes the settings back (and reloads or restarts) before returning
// the error; a failed setup statement does not run Teardown (the setup statements
// before it stay done, the error says which one failed and the server's message).
func Apply(ctx context.Context, connString string, r Restarter, c Change) (*Applied, error) {
	wanted, err := checkSettings(c.Settings)
	if err != nil {
		return nil, err
	}
	if err := checkStatements("setup", c.Setup); err != nil {
		return nil, err
	}
	if err := checkStatements("teardown", c.Teardown); err != nil {
		return nil, err
	}
	cfg, err := parseConfig(connString)
	if err != nil {
		return nil, err
	}
	if isNil(r) {
		r = nil
	}
	a := &Applied{
		Teardown:     slices.Clone(c.Teardown),
		Effective:    map[string]string{},
		cfg:          cfg,
		restarter:    r,
		beforeChange: c.BeforeChange,
		marker:       c.Marker,
	}
	if len(wanted) > 0 {
		if err := a.applySettings(ctx, wanted); err != nil {
			return nil, err
		}
	} else if a.beforeChange != nil {
		if err := a.beforeChange(nil); err != nil {
			return nil, fmt.Errorf("before the setup SQL: %w; nothing was changed", err)
		}
	}
	if err := a.runSetup(ctx, c.Setup); err != nil {
		if len(a.Settings) == 0 {
			return nil, err
		}
		if rerr := a.restore(ctx, true); rerr != nil {
			return nil, fmt.Errorf("%w; putting the settings back failed too: %v", err, rerr)
		}
		return nil, fmt.Errorf("%w; the settings were put back (teardown SQL was not run)", err)
	}
	return a, nil
}

// checkSettings normalises names (trimmed, lower case: setting names are
// case-insensitive) and rejects invalid or repeated names and NUL bytes.
func checkSettings(in []Setting) ([]Setting, error) {
	out := make([]Setting, len(in))
	seen := map[string]bool{}
	for i, s := range in {
		name := strings.ToLower(strings.TrimSpace(s.Name))
		if !validSettingName.MatchString(name) {
			return nil, fmt.Errorf("setting %d of %d: %q is not a valid setting name (letters, digits, _ and $, optionally ext.name)", i+1, len(in), s.Name)
		}
		if seen[name] {
			return nil, fmt.Errorf("setting %s is given twice; give each setting once", name)
		}
		seen[name] = true
		if strings.ContainsRune(s.Value, 0) {
			return nil, fmt.Errorf("setting %s: the value contains a NUL byte", name)
		}
		out[i] = Setting{Name: name, Value: s.Value}
	}
	return out, nil
}

// isNil reports whether r is nil or a typed nil pointer (e.g. a nil *localpg.Cluster),
// which would panic when called.
func isNil(r Restarter) bool {
	if r == nil {
		return true
	}
	v := reflect.ValueOf(r)
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// applySettings is steps 1–5 of Apply.
func (a *Applied) applySettings(ctx context.Context, wanted []Setting) error {
	conn, err := connect(ctx, a.cfg)
	if err != nil {
		return err
	}
	defer func() { closeConn(conn) }()

	var pgMajor int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int / 10000").Scan(&pgMajor); err != nil {
		return fmt.Errorf("read the server version: %w", err)
	}

	// 1. Names, contexts and values, before anything is written.
	settings := make([]AppliedSetting, len(wanted))
	stmts := make([]string, len(wanted))
	var restartFor []string
	for i, w := range wanted {
		s := &settings[i]
		err := conn.QueryRow(ctx, "SELECT name, context, current_setting(name), pending_restart FROM pg_settings WHERE name = $1",
			w.Name).Scan(&s.Name, &s.Context, &s.Before, &s.BeforePending)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("unknown setting %q: no such name in pg_settings (check the spelling; an extension's settings exist only once its library is loaded); nothing was changed", w.Name)
		}
		if err != nil {
			return fmt.Errorf("look up setting %s in pg_settings: %w", w.Name, err)
		}
		if s.Context == "internal" {
			return fmt.Errorf("setting %s is read-only (context internal: fixed when the server was built or initialised); nothing was changed", s.Name)
		}
		s.Value = w.Value
		value, err := pgconf.ValueSQL(s.Name, w.Value, pgMajor)
		if err != nil {
			return fmt.Errorf("%w; nothing was changed", err)
		}
		stmts[i] = fmt.Sprintf("ALTER SYSTEM SET %s = %s", pgconf.NameSQL(s.Name), value)
		if s.Context == "postmaster" {
			restartFor = append(restartFor, s.Name)
		}
	}
	if len(restartFor) > 0 && a.restarter == nil {
		return fmt.Errorf("setting %s needs a server restart (pg_settings.context = 'postmaster'), and there is no way to restart this server: "+
			"give the target a restart_command (or use a local cluster); nothing was changed", strings.Join(restartFor, ", "))
	}

	// 2. Previous postgresql.auto.conf values, to write back in Undo.
	prev, prevErr := readAutoConf(ctx, conn)
	if prevErr != nil {
		a.Notes = append(a.Notes, fmt.Sprintf("could not read postgresql.auto.conf's entries from pg_file_settings (%v): "+
			"Undo will RESET the settings rather than restore earlier ALTER SYSTEM values", prevErr))
	}
	for i := range settings {
		s := &settings[i]
		if prevErr != nil {
			continue
		}
		s.PreviousKnown = true
		v, ok := prev[s.Name]
		if !ok {
			continue
		}
		s.Previous, s.HadPrevious = v, true
		if s.prevSQL, err = pgconf.ValueSQL(s.Name, v, pgMajor); err != nil {
			return fmt.Errorf("setting %s: its postgresql.auto.conf value %q could not be written back by Undo: %w; nothing was changed", s.Name, v, err)
		}
	}
	if a.beforeChange != nil {
		orig := make([]Original, len(settings))
		for i, s := range settings {
			orig[i] = Original{Name: s.Name, Context: s.Context, Value: s.Previous, Present: s.HadPrevious, Known: s.PreviousKnown}
		}
		if err := a.beforeChange(orig); err != nil {
			return fmt.Errorf("before the first ALTER SYSTEM: %w; nothing was changed", err)
		}
	}

	// 3. Write: the marker first, so that it is in the file whenever a setting is.
	// A role allowed ALTER SYSTEM for some parameters only (PostgreSQL 15's GRANT
	// ALTER SYSTEM ON PARAMETER) may not write the marker: a note, not a failure.
	if a.marker != "" {
		if err := setMarker(ctx, conn, a.marker); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("write the marker %s: %w; nothing was changed", MarkerSetting, err)
			}
			a.Notes = append(a.Notes, fmt.Sprintf("could not write the marker %s (%v): another experiment will not see that this server holds changed settings", MarkerSetting, err))
		} else {
			a.markerSet = true
		}
	}
	for i := range settings {
		if err := execOne(ctx, conn, stmts[i]); err != nil {
			err = fmt.Errorf("set %s = %q: %w", settings[i].Name, settings[i].Value, err)
			if i == 0 && !a.markerSet {
				return fmt.Errorf("%w; nothing was changed", err)
			}
			a.Settings = settings[:i]
			if rerr := a.restore(ctx, false); rerr != nil {
				return fmt.Errorf("%w; writing back the settings before it failed: %v", err, rerr)
			}
			a.Settings = nil
			return fmt.Errorf("%w; the settings before it were written back, nothing was changed", err)
		}
	}
	a.Settings = settings

	// 4. Take effect.
	if len(restartFor) > 0 {
		closeConn(conn) // the restart ends it anyway
		if err := a.restarter.Restart(ctx); err != nil {
			return a.fail(ctx, fmt.Errorf("restart the server for %s: %w", strings.Join(restartFor, ", "), err))
		}
		a.Restarted = true
	} else if err := reloadConf(ctx, a.cfg, conn); err != nil {
		return a.fail(ctx, err)
	}

	// 5. Check from a new session.
	state, err := a.readBack(ctx)
	if err != nil {
		return a.fail(ctx, fmt.Errorf("check the settings after the %s: %w", a.action(), err))
	}
	var problems []string
	for _, s := range a.Settings {
		st := state[s.Name]
		a.Effective[s.Name] = st.value
		if st.pending {
			problems = append(problems, fmt.Sprintf("%s is still pending a restart after the %s (the server runs %s)", s.Name, a.action(), st.value))
		}
		if st.fileErr != "" {
			problems = append(problems, fmt.Sprintf("%s: the configuration file has an error: %s", s.Name, st.fileErr))
		}
	}
	if len(problems) > 0 {
		return a.fail(ctx, fmt.Errorf("the settings did not take effect: %s", strings.Join(problems, "; ")))
	}
	return nil
}

func (a *Applied) action() string {
	if a.Restarted {
		return "restart"
	}
	return "reload"
}

// fail puts the settings back after a failure in steps 4–5 and returns err with what
// became of them.
func (a *Applied) fail(ctx context.Context, err error) error {
	if rerr := a.restore(ctx, true); rerr != nil {
		return fmt.Errorf("%w; putting the settings back failed too: %v", err, rerr)
	}
	return fmt.Errorf("%w; the settings were put back", err)
}

// readAutoConf reads postgresql.auto.conf's entries (name → value as in the file,
// unquoted) from pg_file_settings; a name given twice takes its last value, as the
// server does (seqno is the order of reading).
func readAutoConf(ctx context.Context, conn *pgx.Conn) (map[string]string, error) {
	rows, err := conn.Query(ctx, `SELECT name, setting FROM pg_file_settings
		WHERE right(sourcefile, 20) = 'postgresql.auto.conf' AND name IS NOT NULL ORDER BY seqno`)
	if err != nil {
		return nil, err
	}
	prev := map[string]string{}
	for rows.Next() {
		var name string
		var value *string
		if err := rows.Scan(&name, &value); err != nil {
			rows.Close()
			return nil, err
		}
		if value != nil {
			prev[strings.ToLower(name)] = *value
		}
	}
	return prev, rows.Err()
}

// settingState is one setting as a new session sees it.
type settingState struct {
	value   string // current_setting
	pending bool   // pg_settings.pending_restart
	fileErr string // pg_file_settings.error for it, "" when none or unreadable
}

// readBack reads the state of a.Settings from a new session (retrying the connection
// for up to readyTimeout, for a server that has just restarted).
func (a *Applied) readBack(ctx context.Context) (map[string]settingState, error) {
	conn, err := connectRetry(ctx, a.cfg, readyTimeout)
	if err != nil {
		return nil, err
	}
	defer closeConn(conn)
	state := map[string]settingState{}
	for _, s := range a.Settings {
		var st settingState
		if err := conn.QueryRow(ctx, "SELECT current_setting(name), pending_restart FROM pg_settings WHERE name = $1",
			s.Name).Scan(&st.value, &st.pending); err != nil {
			return nil, fmt.Errorf("read back %s: %w", s.Name, err)
		}
		state[s.Name] = st
	}
	// A value ALTER SYSTEM accepted can still fail when the file is applied (e.g. a
	// preload library that does not exist). pg_file_settings needs privileges; without
	// them this check is skipped.
	names := make([]string, len(a.Settings))
	for i, s := range a.Settings {
		names[i] = s.Name
	}
	rows, err := conn.Query(ctx, `SELECT name, error FROM pg_file_settings
		WHERE error IS NOT NULL AND name = ANY($1) ORDER BY seqno`, names)
	if err == nil {
		for rows.Next() {
			var name, msg string
			if rows.Scan(&name, &msg) == nil {
				st := state[name]
				st.fileErr = msg
				state[name] = st
			}
		}
		rows.Close()
	}
	return state, nil
}

// restore writes back the postgresql.auto.conf values of a.Settings (ALTER SYSTEM SET
// the previous value, or ALTER SYSTEM RESET when there was none). When activated (the
// new values took effect), it then reloads, restarts if a setting is pending a restart
// (the server runs the value Apply restarted it for), and checks that every setting is
// back to its value before Apply.
func (a *Applied) restore(ctx context.Context, activated bool) error {
	if a.cfg == nil {
		return errors.New("this Applied was not made by Apply: nothing is known about the server")
	}
	conn, err := connectRetry(ctx, a.cfg, readyTimeout)
	if err != nil {
		return fmt.Errorf("%w; postgresql.auto.conf still holds %s: set them back by hand (or remove those lines) and start the server",
			err, a.writtenList())
	}
	defer func() { closeConn(conn) }()
	var errs []error
	for _, s := range a.Settings {
		sql := "ALTER SYSTEM RESET " + pgconf.NameSQL(s.Name)
		if s.HadPrevious {
			sql = fmt.Sprintf("ALTER SYSTEM SET %s = %s", pgconf.NameSQL(s.Name), s.prevSQL)
		}
		if err := execOne(ctx, conn, sql); err != nil {
			errs = append(errs, fmt.Errorf("write back %s: %w", s.Name, err))
		}
	}
	// The marker goes only once every setting is back.
	if a.markerSet && len(errs) == 0 {
		if err := resetMarker(ctx, conn); err != nil {
			errs = append(errs, fmt.Errorf("reset the marker %s: %w", MarkerSetting, err))
		} else {
			a.markerSet = false
		}
	}
	if !activated {
		return errors.Join(errs...)
	}
	if err := reloadConf(ctx, a.cfg, conn); err != nil {
		return errors.Join(append(errs, err)...)
	}
	closeConn(conn)

	state, err := a.readBack(ctx)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("check the settings after the reload: %w", err))...)
	}
	var pending []string
	for _, s := range a.Settings {
		if state[s.Name].pending {
			pending = append(pending, s.Name)
		}
	}
	if len(pending) > 0 {
		if a.restarter == nil {
			return errors.Join(append(errs, fmt.Errorf("%s need a restart to be back, and there is no way to restart this server", strings.Join(pending, ", ")))...)
		}
		if err := a.restarter.Restart(ctx); err != nil {
			return errors.Join(append(errs, fmt.Errorf("restart the server to put back %s: %w", strings.Join(pending, ", "), err))...)
		}
		a.UndoRestarted = true
		if state, err = a.readBack(ctx); err != nil {
			return errors.Join(append(errs, fmt.Errorf("check the settings after the restart: %w", err))...)
		}
	}
	for _, s := range a.Settings {
		st := state[s.Name]
		switch {
		case st.pending:
			errs = append(errs, fmt.Errorf("%s is still pending a restart (the server runs %s)", s.Name, st.value))
		case !s.BeforePending && st.value != s.Before:
			errs = append(errs, fmt.Errorf("%s is %s, but was %s before Apply (is it also set elsewhere, or was pg_file_settings unreadable?)", s.Name, st.value, s.Before))
		}
	}
	return errors.Join(errs...)
}

// writtenList is "name = 'value', …" of a.Settings for a message.
func (a *Applied) writtenList() string {
	parts := make([]string, len(a.Settings))
	for i, s := range a.Settings {
		parts[i] = fmt.Sprintf("%s = %q", s.Name, s.Value)
	}
	return strings.Join(parts, ", ")
}

// reloadConf calls pg_reload_conf() on conn and waits until a new session sees the
// reload.
func reloadConf(ctx context.Context, cfg *pgx.ConnConfig, conn *pgx.Conn) error {
	var since time.Time
	if err := conn.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&since); err != nil {
		return fmt.Errorf("read pg_conf_load_time(): %w", err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_reload_conf()").Scan(&ok); err != nil {
		return fmt.Errorf("pg_reload_conf(): %w", err)
	}
	if !ok {
		return errors.New("pg_reload_conf() returned false: the server could not signal its postmaster")
	}
	return waitReload(ctx, cfg, since)
}

// waitReload waits until a new session sees a configuration loaded after since:
// pg_reload_conf() only signals the postmaster, which re-reads the files shortly
// after, and new backends inherit its pg_conf_load_time(). Tries every reloadPoll, for
// at most reloadTimeout.
func waitReload(ctx context.Context, cfg *pgx.ConnConfig, since time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, reloadTimeout)
	defer cancel()
	var last error
	for {
		conn, err := connect(ctx, cfg)
		if err == nil {
			var t time.Time
			err = conn.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&t)
			closeConn(conn)
			if err == nil && t.After(since) {
				return nil
			}
			if err == nil {
				err = fmt.Errorf("pg_conf_load_time() is still %s", t.Format(time.RFC3339Nano))
			}
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the server to reload its configuration: %w (last: %v)", context.Cause(ctx), last)
		case <-time.After(reloadPoll):
		}
	}
}

// connectRetry connects, trying again every readyPoll for up to timeout (a server that
// has just restarted may still be starting up).
func connectRetry(ctx context.Context, cfg *pgx.ConnConfig, timeout time.Duration) (*pgx.Conn, error) {
	ctx2, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		conn, err := connect(ctx2, cfg)
		if err == nil {
			return conn, nil
		}
		select {
		case <-ctx2.Done():
			return nil, fmt.Errorf("%w (tried for %v)", err, timeout)
		case <-time.After(readyPoll):
		}
	}
}

// runSetup runs the setup statements, stopping at the first failure.
func (a *Applied) runSetup(ctx context.Context, stmts []string) error {
	if len(stmts) == 0 {
		return nil
	}
	conn, err := connect(ctx, a.cfg)
	if err != nil {
		return fmt.Errorf("setup SQL: %w", err)
	}
	defer closeConn(conn)
	for i, s := range stmts {
		if err := execOne(ctx, conn, s); err != nil {
			done := ""
			switch {
			case i == 1:
				done = " (setup statement 1 ran and stays done)"
			case i > 1:
				done = fmt.Sprintf(" (setup statements 1 to %d ran and stay done)", i)
			}
			return fmt.Errorf("setup statement %d of %d (%s) failed: %w%s", i+1, len(stmts), shortSQL(s), err, done)
		}
	}
	return nil
}

// runTeardown runs every teardown statement, also after failures (reconnecting when a
// failure closed the connection), and returns all errors.
func (a *Applied) runTeardown(ctx context.Context) error {
	if len(a.Teardown) == 0 {
		return nil
	}
	if a.cfg == nil {
		return errors.New("this Applied was not made by Apply: nothing is known about the server")
	}
	var conn *pgx.Conn
	defer func() { closeConn(conn) }()
	var errs []error
	for i, s := range a.Teardown {
		if conn == nil || conn.IsClosed() {
			c, err := connect(ctx, a.cfg)
			if err != nil {
				errs = append(errs, fmt.Errorf("teardown statements %d to %d not run: %w", i+1, len(a.Teardown), err))
				break
			}
			conn = c
		}
		if err := execOne(ctx, conn, s); err != nil {
			errs = append(errs, fmt.Errorf("teardown statement %d of %d (%s) failed: %w", i+1, len(a.Teardown), shortSQL(s), err))
		}
	}
	return errors.Join(errs...)
}

// Undo runs Teardown (every statement, collecting errors), then puts the settings
// back: ALTER SYSTEM SET each previous postgresql.auto.conf value, or ALTER SYSTEM
// RESET where there was none; reloads, and restarts when a setting is pending a
// restart; then checks that every setting is back to its value before Apply. Only the
// first call does anything (later ones return nil), so a deferred Undo is safe; a nil
// *Applied is a no-op too. Give it a context that is not cancelled when the run is.
func (a *Applied) Undo(ctx context.Context) error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.undone {
		return nil
	}
	a.undone = true
	var errs []error
	if err := a.runTeardown(ctx); err != nil {
		errs = append(errs, err)
	}
	if len(a.Settings) > 0 {
		if err := a.restore(ctx, true); err != nil {
			errs = append(errs, fmt.Errorf("put the settings back: %w", err))
		}
	}
	return errors.Join(errs...)
}
