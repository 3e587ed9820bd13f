package pgerr

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// passwordCluster is a cluster of the test's own (the shared one trusts
// every connection): role bench must give its password (scram-sha-256) over
// TCP, every other role is trusted; max_connections is 3 with no slot
// reserved, so the fourth connection gets "too many clients".
func passwordCluster(t *testing.T) (c *localpg.Cluster, port int) {
	t.Helper()
	if _, err := localpg.FindBinaries(localpg.FindOptions{}); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("no PostgreSQL binaries: %v", err)
	}
	dir := t.TempDir()
	for _, p := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(p, 0o755); err != nil { // as root, the server's OS user must reach it
			t.Fatal(err)
		}
	}
	c, err := localpg.Open(localpg.Config{Name: "pgerr", Dir: filepath.Join(dir, "c"), NoSync: true,
		Settings: map[string]string{"shared_buffers": "16MB", "fsync": "off",
			"max_connections": "3", "superuser_reserved_connections": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Destroy(ctx); err != nil && !errors.Is(err, localpg.ErrNoCluster) {
			t.Errorf("cleanup: %v", err)
		}
	})
	if _, err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	hba := "local all all trust\n" +
		"host all bench 127.0.0.1/32 scram-sha-256\n" +
		"host all all 127.0.0.1/32 trust\n"
	if err := os.WriteFile(filepath.Join(c.DataDir(), "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connect(ctx, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, q := range []string{"CREATE ROLE bench LOGIN PASSWORD 'right-pw'", "SELECT pg_reload_conf()"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return c, c.Port()
}

// silentListener accepts TCP connections and never answers: a connect
// timeout.
func silentListener(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for range 100 {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// TestDescribeRealErrors connects with each kind of mistake to a real
// server and checks the message (the cause first, libpq's host identity,
// the SQLSTATE, no "tls error" of pgconn's sslmode=prefer retry, no
// password), the class and the hint.
func TestDescribeRealErrors(t *testing.T) {
	c, port := passwordCluster(t)
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", filepath.Join(t.TempDir(), "none"))
	silent := silentListener(t)
	const wrong = "wrong-pw-9"
	at := func(p int) string { return fmt.Sprintf("connection to server at \"127.0.0.1\", port %d failed: ", p) }

	// Hold every slot for the "too many clients" case.
	full := func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for i := range 3 {
			conn, err := c.Connect(ctx, "postgres")
			if err != nil {
				t.Fatalf("slot %d: %v", i, err)
			}
			t.Cleanup(func() { conn.Close(context.Background()) })
		}
	}

	tests := []struct {
		name   string
		conn   string
		before func(t *testing.T)
		class  Class
		msg    string // the whole message
		libpq  string // libpq's text, when checked
		hint   []string
	}{
		{
			name:  "wrong password (scram)",
			conn:  fmt.Sprintf("host=127.0.0.1 port=%d user=bench dbname=postgres password=%s", port, wrong),
			class: WrongPassword,
			msg:   at(port) + `FATAL: password authentication failed for user "bench" (SQLSTATE 28P01)`,
			libpq: at(port) + "FATAL:  password authentication failed for user \"bench\"\n",
			hint:  []string{"PGPASSWORD", ".pgpass", "PGPASSFILE", `"bench"`},
		},
		{
			name:  "no password supplied",
			conn:  fmt.Sprintf("host=127.0.0.1 port=%d user=bench dbname=postgres", port),
			class: NoPassword,
			msg:   at(port) + "fe_sendauth: no password supplied",
			libpq: at(port) + "fe_sendauth: no password supplied\n",
			hint:  []string{"none was given", "PGPASSWORD", ".pgpass"},
		},
		{
			name:  "unknown database",
			conn:  fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=no_such_db", port),
			class: NoDatabase,
			msg:   at(port) + `FATAL: database "no_such_db" does not exist (SQLSTATE 3D000)`,
			hint:  []string{"createdb no_such_db", "pgtrial init"},
		},
		{
			name:  "unknown role",
			conn:  fmt.Sprintf("host=127.0.0.1 port=%d user=nobody dbname=postgres", port),
			class: NoRole,
			msg:   at(port) + `FATAL: role "nobody" does not exist (SQLSTATE 28000)`,
			hint:  []string{`no role "nobody"`},
		},
		{
			name:  "connection refused",
			conn:  "host=127.0.0.1 port=1 user=postgres dbname=postgres password=" + wrong,
			class: Refused,
			msg:   at(1) + "Connection refused",
			libpq: at(1) + "Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?\n",
			hint:  []string{"is a server running at 127.0.0.1, port 1?", "pgtrial local start"},
		},
		{
			name:   "too many clients",
			conn:   fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres", port),
			before: full,
			class:  TooManyClients,
			msg:    at(port) + "FATAL: sorry, too many clients already (SQLSTATE 53300)",
			hint:   []string{"max_connections", "fewer clients"},
		},
		{
			name:  "TLS required, the server has none",
			conn:  fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres sslmode=require", port),
			class: TLSRefused,
			msg:   at(port) + "server does not support SSL, but SSL was required",
			hint:  []string{"sslmode", "PGSSLMODE"},
		},
		{
			name:  "timeout",
			conn:  fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres connect_timeout=1 sslmode=disable", silent),
			class: Timeout,
			msg:   at(silent) + "timeout expired",
			hint:  []string{"connect timeout", "127.0.0.1, port " + fmt.Sprint(silent)},
		},
		{
			name:  "unknown host",
			conn:  "host=no-such-host.invalid port=5432 user=postgres dbname=postgres connect_timeout=5",
			class: UnknownHost,
			hint:  []string{`"no-such-host.invalid" does not resolve`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before(t)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			conn, err := pgconn.Connect(ctx, tc.conn)
			if err == nil {
				conn.Close(ctx)
				t.Fatal("connected")
			}
			msg, hint := Describe(err, nil)
			if tc.msg != "" && msg != tc.msg {
				t.Errorf("message:\n got %q\nwant %q\n(driver: %v)", msg, tc.msg, err)
			}
			if tc.msg == "" && !strings.HasPrefix(msg, `could not translate host name "no-such-host.invalid" to address: `) {
				t.Errorf("message %q", msg)
			}
			if got := Classify(err); got != tc.class {
				t.Errorf("class %q, want %q", got, tc.class)
			}
			for _, w := range tc.hint {
				if !strings.Contains(hint, w) {
					t.Errorf("hint %q lacks %q", hint, w)
				}
			}
			if tc.libpq != "" {
				if got := Libpq(err); got != tc.libpq {
					t.Errorf("libpq text:\n got %q\nwant %q", got, tc.libpq)
				}
			}
			e := Connect(err, nil)
			t.Logf("%s", e)
			var ce *pgconn.ConnectError
			if !errors.As(e, &ce) {
				t.Error("Connect's error does not wrap the driver's")
			}
			if want := msg + "\nhint: " + hint; e.Error() != want {
				t.Errorf("Connect: %q, want %q", e.Error(), want)
			}
			for _, bad := range []string{"tls error", "refused TLS", wrong, "right-pw", "failed to connect to"} {
				if strings.Contains(e.Error(), bad) {
					t.Errorf("%q shows in %q", bad, e.Error())
				}
			}
		})
	}

	// The right password from a password file connects (the hint's advice works).
	pass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pass, fmt.Appendf(nil, "127.0.0.1:%d:*:bench:right-pw\n", port), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSFILE", pass)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, fmt.Sprintf("host=127.0.0.1 port=%d user=bench dbname=postgres", port))
	if err != nil {
		t.Fatalf("with PGPASSFILE: %v", err)
	}
	conn.Close(ctx)
}

func TestDescribeOtherErrors(t *testing.T) {
	if m, h := Describe(nil, nil); m != "" || h != "" {
		t.Errorf("nil: %q %q", m, h)
	}
	if Connect(nil, nil) != nil {
		t.Error("Connect(nil) is not nil")
	}
	// An error that is no connection's is described as it is.
	m, h := Describe(errors.New("boom"), nil)
	if m != "boom" || !strings.Contains(h, "connection settings") {
		t.Errorf("other: %q %q", m, h)
	}
	// A server error outside a ConnectError (e.g. a setup query).
	pe := &pgconn.PgError{Severity: "FATAL", Code: "53300", Message: "too many connections for role \"bench\""}
	m, h = Describe(fmt.Errorf("x: %w", pe), &pgconn.Config{User: "bench", Host: "127.0.0.1", Port: 5432})
	if m != `FATAL: too many connections for role "bench" (SQLSTATE 53300)` || !strings.Contains(h, "ALTER ROLE bench CONNECTION LIMIT") {
		t.Errorf("role limit: %q %q", m, h)
	}
	// An *Error is kept as it is.
	e := Connect(errors.New("boom"), nil)
	if Connect(fmt.Errorf("w: %w", e), nil).Error() != "w: "+e.Error() {
		t.Error("Connect rewrapped an *Error")
	}
}
