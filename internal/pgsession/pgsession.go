// Package pgsession sets the session parameters of the connections pgtrial opens.
//
// pgtrial's own sessions (the target's inspection, the collectors, the experiment's
// preflight, serverctl, init's loader) are not what is measured, so they must not
// inherit what the role or database sets for the workload (ALTER ROLE … SET
// statement_timeout = '1ms' would fail "read server settings"): Own gives them
// timeouts of their own and a name a DBA can see in pg_stat_activity. The
// benchmark clients keep the role's settings (they are what is measured): Client
// only gives them an application_name when the user set none.
//
// Startup parameters (RuntimeParams) take precedence over ALTER ROLE / ALTER
// DATABASE … SET (PGC_S_CLIENT over PGC_S_DATABASE_USER), so the values below hold
// whatever the role says.
package pgsession

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
)

// Timeouts of pgtrial's own statements.
//
// Short is for queries pgtrial knows to be short (catalogue and statistics views,
// SHOW, count(*) of pgbench_branches): the server itself stops such a statement after
// it, even when the client went away without a cancel request; 30 s is far above any
// of them and below the 60 s that bounds an inspection's context.
//
// Unbounded (0) is for work whose length pgtrial cannot know (init's COPY and index
// builds, an experiment's setup SQL, ALTER SYSTEM around a restart, injected VACUUM or
// CHECKPOINT): the caller's context bounds it.
const (
	Short     = 30 * time.Second
	Unbounded = time.Duration(0)
)

// Names of pgtrial's own sessions (application_name).
const (
	NameSetup     = "pgtrial-setup"     // inspection of the target, an experiment's preflight
	NameServerctl = "pgtrial-serverctl" // settings, reloads, restarts, setup SQL between runs
	NameInit      = "pgtrial-init"      // pgtrial init's loader
)

// maxName is the longest application_name the server keeps (NAMEDATALEN − 1 bytes).
const maxName = 63

// Own makes cfg the config of one of pgtrial's own sessions, named name:
//
//   - application_name = name (always, even over the user's: the user's names the
//     workload's clients, and the collectors leave their own sessions out of what
//     they sample by this name);
//   - statement_timeout = statementTimeout (Short or Unbounded);
//   - lock_timeout = 0: a lock wait is bounded by statement_timeout (or the context),
//     never cut short by the role's lock_timeout;
//   - idle_in_transaction_session_timeout = 0: the one own session idle in a
//     transaction is serverctl's injected lock, which must be held its whole time;
//   - idle_session_timeout = 0 (PostgreSQL ≥ 14) and transaction_timeout = 0 (≥ 17),
//     set right after connecting, since PostgreSQL 13 (supported) refuses unknown
//     startup parameters: the collectors' sessions sit idle between samples. A role's
//     idle_session_timeout shorter than that one round trip still ends the session.
//
// A fallback_application_name in the connection string (libpq's keyword, which
// pgconn would send to the server as a setting) is removed.
func Own(cfg *pgconn.Config, name string, statementTimeout time.Duration) {
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	rp := cfg.RuntimeParams
	delete(rp, "fallback_application_name")
	rp["application_name"] = truncateName(name)
	rp["statement_timeout"] = millis(statementTimeout)
	rp["lock_timeout"] = "0"
	rp["idle_in_transaction_session_timeout"] = "0"
	prev := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, pc *pgconn.PgConn) error {
		if prev != nil {
			if err := prev(ctx, pc); err != nil {
				return err
			}
		}
		return afterConnect(ctx, pc)
	}
}

// afterConnect disables the session timeouts that only newer servers know.
func afterConnect(ctx context.Context, pc *pgconn.PgConn) error {
	major := serverMajor(pc.ParameterStatus("server_version"))
	var sets []string
	if major >= 14 {
		sets = append(sets, "SET idle_session_timeout = 0")
	}
	if major >= 17 {
		sets = append(sets, "SET transaction_timeout = 0")
	}
	if len(sets) == 0 {
		return nil
	}
	if _, err := pc.Exec(ctx, strings.Join(sets, "; ")).ReadAll(); err != nil {
		return fmt.Errorf("set the session timeouts of pgtrial's own connection: %w", err)
	}
	return nil
}

// Client gives the benchmark clients' config application_name = fallback unless the
// user named the application (application_name in the connection string, or
// PGAPPNAME, which pgconn reads into the same place): libpq's
// fallback_application_name semantics. A fallback_application_name in the
// connection string is the user's fallback and wins over ours. Nothing else is
// changed: the clients run with the role's settings.
func Client(cfg *pgconn.Config, fallback string) {
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	rp := cfg.RuntimeParams
	if user, ok := rp["fallback_application_name"]; ok {
		delete(rp, "fallback_application_name")
		fallback = user
	}
	if _, ok := rp["application_name"]; ok || fallback == "" {
		return
	}
	rp["application_name"] = truncateName(fallback)
}

// ClientName is the clients' application_name of a run: "pgtrial" and what
// identifies the run, its directory's base name ("pgtrial 20250101-120000-tpcb-like");
// for an experiment's run (EXP/runs/003-base-r2), the experiment's base name too
// ("pgtrial EXP/003-base-r2"). Without a run directory, "pgtrial".
func ClientName(runDir string) string {
	if runDir == "" {
		return "pgtrial"
	}
	clean := filepath.Clean(runDir)
	id := filepath.Base(clean)
	if parent := filepath.Dir(clean); filepath.Base(parent) == "runs" {
		if exp := filepath.Base(filepath.Dir(parent)); exp != "." && exp != string(filepath.Separator) {
			id = exp + "/" + id
		}
	}
	return truncateName("pgtrial " + id)
}

// truncateName cuts s to the server's limit at a character boundary (the server
// would cut it at a byte).
func truncateName(s string) string {
	if len(s) <= maxName {
		return s
	}
	s = s[:maxName]
	for i := 0; i < utf8.UTFMax-1; i++ { // a character cut in two
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// millis is a duration as a setting in milliseconds ("30000ms"; "0" disables).
func millis(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return fmt.Sprintf("%dms", max(d.Milliseconds(), 1))
}

// serverMajor is the leading integer of server_version ("15.18 (Debian …)": 15).
func serverMajor(v string) int {
	major := 0
	for _, ch := range v {
		if ch < '0' || ch > '9' {
			break
		}
		major = major*10 + int(ch-'0')
	}
	return major
}
