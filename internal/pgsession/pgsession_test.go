package pgsession_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// hostileDB is a fresh database whose sessions get a 1 ms statement, lock and
// idle-in-transaction timeout and a 1 s idle_session_timeout from ALTER DATABASE …
// SET, as a role could have (an idle_session_timeout shorter than a round trip
// would end the session before Own's SET reaches it).
func hostileDB(t *testing.T) string {
	url := pgtest.ConnString(t)
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	db := pgx.Identifier{cfg.Database}.Sanitize()
	pgtest.Exec(t, url,
		"ALTER DATABASE "+db+" SET statement_timeout = '1ms'",
		"ALTER DATABASE "+db+" SET lock_timeout = '1ms'",
		"ALTER DATABASE "+db+" SET idle_in_transaction_session_timeout = '1ms'",
		"ALTER DATABASE "+db+" SET idle_session_timeout = '1s'")
	return url
}

// Own's sessions keep their own timeouts and name whatever the database sets; on
// the old code (no Own) pg_sleep(0.05) fails with 57014.
func TestOwnSessionIgnoresTheRolesTimeouts(t *testing.T) {
	url := hostileDB(t)
	cfg, err := pgx.ParseConfig(url + "&application_name=users-app")
	if err != nil {
		t.Fatal(err)
	}
	pgsession.Own(&cfg.Config, "pgtrial-test", pgsession.Short)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	time.Sleep(1200 * time.Millisecond) // past the database's idle_session_timeout
	if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past its idle_in_transaction_session_timeout
	if _, err := conn.Exec(ctx, "SELECT pg_sleep(0.05)"); err != nil {
		t.Fatalf("a 50 ms statement in pgtrial's own session: %v", err)
	}
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"statement_timeout": "30s", "lock_timeout": "0", "idle_in_transaction_session_timeout": "0",
		"idle_session_timeout": "0", "application_name": "pgtrial-test",
	}
	for name, v := range want {
		var got string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != v {
			t.Errorf("%s = %q, want %q", name, got, v)
		}
	}
}

// The clients keep the role's settings and get pgtrial's name only when the user
// gave none.
func TestClientKeepsTheUsersName(t *testing.T) {
	for _, tc := range []struct {
		conn, env, want string
	}{
		{"postgres://u@h/db", "", "pgtrial run-1"},
		{"postgres://u@h/db?application_name=mine", "", "mine"},
		{"postgres://u@h/db", "from-env", "from-env"},
		{"postgres://u@h/db?fallback_application_name=fb", "", "fb"},
		{"postgres://u@h/db?fallback_application_name=fb&application_name=mine", "", "mine"},
	} {
		t.Setenv("PGAPPNAME", tc.env)
		cfg, err := pgconn.ParseConfig(tc.conn)
		if err != nil {
			t.Fatal(err)
		}
		if tc.env == "" {
			delete(cfg.RuntimeParams, "application_name") // t.Setenv cannot unset
			if strings.Contains(tc.conn, "application_name=mine") {
				cfg.RuntimeParams["application_name"] = "mine"
			}
		}
		pgsession.Client(cfg, "pgtrial run-1")
		if got := cfg.RuntimeParams["application_name"]; got != tc.want {
			t.Errorf("%s (PGAPPNAME %q): application_name %q, want %q", tc.conn, tc.env, got, tc.want)
		}
		if _, ok := cfg.RuntimeParams["fallback_application_name"]; ok {
			t.Errorf("%s: fallback_application_name left for the server, which refuses it", tc.conn)
		}
		if _, ok := cfg.RuntimeParams["statement_timeout"]; ok {
			t.Errorf("%s: the clients' statement_timeout was changed", tc.conn)
		}
	}
}

func TestClientName(t *testing.T) {
	for dir, want := range map[string]string{
		"":                          "pgtrial",
		"runs/20250101-tpcb":        "pgtrial 20250101-tpcb",
		"/x/exp1/runs/003-base-r2/": "pgtrial exp1/003-base-r2",
		strings.Repeat("é", 40):     "pgtrial " + strings.Repeat("é", 27), // 63 bytes at most, whole characters
	} {
		if got := pgsession.ClientName(dir); got != want {
			t.Errorf("ClientName(%q) = %q, want %q", dir, got, want)
		}
	}
}
