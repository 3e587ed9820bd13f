package pgerr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestPQErrorMessageFormats(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		query string
		want  string
	}{
		{"nil", nil, "", ""},
		{
			"context",
			&pgconn.PgError{Severity: "ERROR", Code: "22012", Message: "division by zero", Where: "unnamed portal with parameters: $1 = '1', $2 = NULL"},
			"", "ERROR:  division by zero\nCONTEXT:  unnamed portal with parameters: $1 = '1', $2 = NULL\n",
		},
		{
			"wrapped",
			fmt.Errorf("exec: %w", &pgconn.PgError{Severity: "ERROR", Code: "22P02", Message: `invalid input syntax for type smallint: "1a"`, Where: "unnamed portal parameter $2 = '1a'"}),
			"", "ERROR:  invalid input syntax for type smallint: \"1a\"\nCONTEXT:  unnamed portal parameter $2 = '1a'\n",
		},
		{
			"every field, in libpq's order",
			&pgconn.PgError{Severity: "FATAL", Message: "m", Detail: "d", Hint: "h", InternalQuery: "iq", Where: "w", SchemaName: "s", File: "f.c", Line: 9},
			"", "FATAL:  m\nDETAIL:  d\nHINT:  h\nQUERY:  iq\nCONTEXT:  w\n",
		},
		{
			"position without the query",
			&pgconn.PgError{Severity: "ERROR", Message: `syntax error at or near ";"`, Position: 11},
			"", "ERROR:  syntax error at or near \";\" at character 11\n",
		},
		{
			"position with the query",
			&pgconn.PgError{Severity: "ERROR", Message: `syntax error at or near ";"`, Position: 11},
			"SELECT 1 +;", "ERROR:  syntax error at or near \";\"\nLINE 1: SELECT 1 +;\n                  ^\n",
		},
		{
			"second line (as pgbench 15 printed it)",
			&pgconn.PgError{Severity: "ERROR", Message: `syntax error at or near ";"`, Position: 17},
			"SELECT 1,\n  2 + ;", "ERROR:  syntax error at or near \";\"\nLINE 2:   2 + ;\n              ^\n",
		},
		{
			"position past the end: no cursor",
			&pgconn.PgError{Severity: "ERROR", Message: "m", Position: 99},
			"SELECT 1", "ERROR:  m\n",
		},
		{
			"internal query (psql's output for EXECUTE 'SELECT 1 +')",
			&pgconn.PgError{Severity: "ERROR", Message: "syntax error at end of input", InternalPosition: 11, InternalQuery: "SELECT 1 +", Where: "PL/pgSQL function inline_code_block line 1 at EXECUTE"},
			"DO $$ BEGIN EXECUTE 'SELECT 1 +'; END $$",
			"ERROR:  syntax error at end of input\nLINE 1: SELECT 1 +\n                  ^\nQUERY:  SELECT 1 +\nCONTEXT:  PL/pgSQL function inline_code_block line 1 at EXECUTE\n",
		},
		{
			"internal position without internal query",
			&pgconn.PgError{Severity: "ERROR", Message: "m", InternalPosition: 3},
			"q", "ERROR:  m at character 3\n",
		},
		{"lost connection", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), "", serverClosedMessage},
		{"closed connection", fmt.Errorf("x: %w", pgconn.ErrConnClosed), "", "no connection to the server\n"},
		{"anything else", errors.New("boom"), "", "boom\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := LibpqQuery(tc.err, tc.query)
			if got != tc.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, tc.want)
			}
			if tc.query == "" && Libpq(tc.err) != got {
				t.Errorf("PQErrorMessage differs from LibpqQuery(err, \"\")")
			}
		})
	}
}

// TestPQErrorPosition covers reportErrorPosition's cases; the expected
// texts were printed by psql 15 (libpq 15) for the same queries.
func TestPQErrorPosition(t *testing.T) {
	long := "SELECT 'ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé', 'x' 'y' + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13"
	wide := "SELECT '日本語日本語日本語日本語日本語日本語日本語日本語日本語', 1 1"
	tests := []struct {
		query string
		pos   int
		want  string
	}{
		{long, 79, "LINE 1: ...ééééééééééééééééééééééééééééééééééééééééééé', 'x' 'y' + 1 + ...\n" +
			"                                                             ^\n"},
		{wide, 41, "LINE 1: ...日本語日本語日本語日本語日本語日本語日本語日本語日本語', 1 1\n" +
			"                                                                      ^\n"},
		{"a\r\nb\rc\n\td x", 11, "LINE 4:  d x\n" + "           ^\n"},
		{"x", 0, ""},
	}
	for _, tc := range tests {
		if got := string(appendErrorPosition(nil, tc.query, tc.pos)); got != tc.want {
			t.Errorf("appendErrorPosition(%q, %d):\n%s\nwant:\n%s", tc.query, tc.pos, got, tc.want)
		}
	}
	// Bad input never panics.
	for _, q := range []string{"", "\xff\xfe", "\xe6\x97", "a\x00b", "\r\n\r\n", strings.Repeat("\t", 200)} {
		for pos := -1; pos < len(q)+3; pos++ {
			_ = appendErrorPosition(nil, q, pos)
		}
	}
}

// findTool returns the path of a PostgreSQL client program, or skips.
func findPGTool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(matches) > 0 {
		return matches[len(matches)-1]
	}
	t.Skipf("%s not found", name)
	return ""
}

// pqTestCtx bounds a test against the server to a minute.
func pqTestCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// pqConnect is a libpq-level connection to url, closed at the test's end.
func pqConnect(t *testing.T, ctx context.Context, url string) *pgconn.PgConn {
	t.Helper()
	conn, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestPQErrorPositionAgainstPsql runs queries with syntax errors at many
// places through psql (libpq) and through pgconn, and compares the texts.
func TestPQErrorPositionAgainstPsql(t *testing.T) {
	psql := findPGTool(t, "psql")
	url := pgtest.ConnString(t)
	ctx := pqTestCtx(t)
	conn := pqConnect(t, ctx, url)

	pieces := []string{"1", " + ", "'é'", "'日本'", "\t", "\n", "\r\n", "\r", "abc", "  ", "'" + strings.Repeat("x", 70) + "'", ", ", "'e\u0301'"}
	var queries []string
	seed := uint64(42)
	next := func(n int) int { // xorshift, deterministic
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(n))
	}
	for range 40 {
		var b strings.Builder
		b.WriteString("SELECT ")
		for k := next(12); k > 0; k-- {
			b.WriteString(pieces[next(len(pieces))])
			b.WriteString(", 1")
		}
		b.WriteString(" 2 3") // the syntax error
		for k := next(12); k > 0; k-- {
			b.WriteString(pieces[next(len(pieces))])
		}
		queries = append(queries, b.String())
	}
	queries = append(queries, "SELECT 1 +;", "SELECT 1,\n  2 + ;", "DO $$ BEGIN EXECUTE 'SELECT 1 +'; END $$", "SELECT 1/0")

	for _, q := range queries {
		err := conn.Exec(ctx, q).Close()
		if err == nil {
			t.Fatalf("%q did not fail", q)
		}
		cmd := exec.CommandContext(ctx, psql, "-X", "-q", "-d", url, "-c", q)
		cmd.Env = append(os.Environ(), "PGCLIENTENCODING=UTF8")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run()
		if got, want := LibpqQuery(err, q), stderr.String(); got != want {
			t.Errorf("query %q:\n got:\n%s\nwant (psql):\n%s", q, got, want)
		}
	}
}

// freePort returns a TCP port on 127.0.0.1 that nothing listens on.
func closedTCPPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// TestPQConnectErrors connects to the test cluster (Unix socket and
// 127.0.0.1) and to a closed port, and checks libpq's texts; where pgbench is
// installed, its own output for the same connection string is compared too.
func TestPQConnectErrors(t *testing.T) {
	c := pgtest.Cluster(t)
	_ = pgtest.ConnString(t) // starts the cluster
	sock, port := c.SocketDir(), c.Port()
	closed := closedTCPPort(t)
	const secret = "s3cr3t-pw"
	tests := []struct {
		name string
		conn string
		want string // a regular expression for the whole message
	}{
		{
			"socket, no database",
			fmt.Sprintf("host=%s port=%d user=postgres dbname=no-such-database", sock, port),
			regexp.QuoteMeta(fmt.Sprintf("connection to server on socket \"%s/.s.PGSQL.%d\" failed: FATAL:  database \"no-such-database\" does not exist\n", sock, port)),
		},
		{
			"tcp, no database, sslmode prefer, password",
			fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=no-such-database password=%s", port, secret),
			regexp.QuoteMeta(fmt.Sprintf("connection to server at \"127.0.0.1\", port %d failed: FATAL:  database \"no-such-database\" does not exist\n", port)),
		},
		{
			"tcp, sslmode require",
			fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres sslmode=require", port),
			regexp.QuoteMeta(fmt.Sprintf("connection to server at \"127.0.0.1\", port %d failed: server does not support SSL, but SSL was required\n", port)),
		},
		{
			"closed port",
			fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres password=%s", closed, secret),
			regexp.QuoteMeta(fmt.Sprintf("connection to server at \"127.0.0.1\", port %d failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?\n", closed)),
		},
		{
			"closed port by name: the address is shown",
			fmt.Sprintf("host=localhost port=%d user=postgres dbname=postgres", closed),
			fmt.Sprintf(`(connection to server at "localhost" \((127\.0\.0\.1|::1)\), port %d failed: Connection refused\n`+
				`\tIs the server running on that host and accepting TCP/IP connections\?\n)+`, closed),
		},
		{
			"no socket",
			"host=/nonexistent-pgtrial-dir port=5432 user=postgres dbname=postgres",
			regexp.QuoteMeta("connection to server on socket \"/nonexistent-pgtrial-dir/.s.PGSQL.5432\" failed: No such file or directory\n" +
				"\tIs the server running locally and accepting connections on that socket?\n"),
		},
		{
			"two hosts, each reported",
			fmt.Sprintf("host=/nonexistent-pgtrial-dir,127.0.0.1 port=5432,%d user=postgres dbname=postgres", closed),
			regexp.QuoteMeta("connection to server on socket \"/nonexistent-pgtrial-dir/.s.PGSQL.5432\" failed: No such file or directory\n"+
				"\tIs the server running locally and accepting connections on that socket?\n") +
				regexp.QuoteMeta(fmt.Sprintf("connection to server at \"127.0.0.1\", port %d failed: Connection refused\n"+
					"\tIs the server running on that host and accepting TCP/IP connections?\n", closed)),
		},
		{
			"unknown host",
			"host=no-such-host.invalid port=5432 user=postgres dbname=postgres connect_timeout=5",
			`could not translate host name "no-such-host\.invalid" to address: (Name or service not known|Temporary failure in name resolution)\n`,
		},
	}
	pgbench, _ := exec.LookPath("pgbench")
	if pgbench == "" {
		if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench"); len(m) > 0 {
			pgbench = m[len(m)-1]
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := pgconn.Connect(ctx, tc.conn)
			if err == nil {
				t.Fatal("connected")
			}
			got := Libpq(err)
			if !regexp.MustCompile(`\A` + tc.want + `\z`).MatchString(got) {
				t.Errorf("got:\n%q\nwant (regexp):\n%s\n(driver error: %v)", got, tc.want, err)
			}
			if strings.Contains(got, secret) {
				t.Errorf("the password shows: %q", got)
			}
			if pgbench == "" || strings.Contains(tc.conn, "localhost") || strings.Contains(tc.conn, ".invalid") {
				return // no oracle, or one whose answer depends on the resolver
			}
			out, _ := exec.CommandContext(ctx, pgbench, "-n", "-t", "1", tc.conn).CombinedOutput()
			want := "pgbench: error: " + strings.TrimSuffix(got, "\n") + "\n" + "pgbench: error: could not create connection for setup\n"
			if string(out) != want {
				t.Errorf("pgbench printed:\n%s\nfrom our text it would be:\n%s", out, want)
			}
		})
	}

	// An error from AfterConnect (a setup statement): the server's text.
	cfg, err := pgconn.ParseConfig(fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres", sock, port))
	if err != nil {
		t.Fatal(err)
	}
	cfg.AfterConnect = func(ctx context.Context, pc *pgconn.PgConn) error {
		return pc.Exec(ctx, "SELECT 1/0").Close()
	}
	if _, err := pgconn.ConnectConfig(context.Background(), cfg); err == nil {
		t.Error("AfterConnect: connected")
	} else if got, want := Libpq(err), "ERROR:  division by zero\n"; got != want {
		t.Errorf("AfterConnect: %q, want %q", got, want)
	}

	// A connection string pgconn cannot parse: its message, without the string.
	_, err = pgconn.Connect(context.Background(), "host=x port=notaport password="+secret)
	if got := Libpq(err); strings.Contains(got, secret) || !strings.HasSuffix(got, "\n") {
		t.Errorf("parse error message %q", got)
	}
}

// TestPQErrorPgbenchAborts compares pgbench's "aborted in command" messages
// with ours for the same statements: simple protocol (the substituted SQL is
// the query text) and extended protocol ($n parameters), with the server
// showing the parameters in CONTEXT.
func TestPQErrorPgbenchAborts(t *testing.T) {
	pgbench := findPGTool(t, "pgbench")
	url := pgtest.ConnString(t)
	ctx := pqTestCtx(t)
	conn := pqConnect(t, ctx, url)
	u, _ := urlDatabase(url)
	if err := conn.Exec(ctx, "ALTER DATABASE "+u+" SET log_parameter_max_length_on_error = -1").Close(); err != nil {
		t.Fatal(err)
	}
	// New sessions get the setting.
	conn2 := pqConnect(t, ctx, url)

	dir := t.TempDir()
	tests := []struct {
		name, mode, script string
		args               []string
		run                func() error // the same statement through pgconn
		query              string       // the query text libpq had
	}{
		{
			name: "simple syntax", mode: "simple", script: "SELECT 1 +;\n",
			run:   func() error { return conn2.Exec(ctx, "SELECT 1 +;").Close() },
			query: "SELECT 1 +;",
		},
		{
			name: "extended syntax", mode: "extended", script: "SELECT 1,\n 2 + ;\n",
			run: func() error {
				return conn2.ExecParams(ctx, "SELECT 1,\n 2 + ;", nil, nil, nil, nil).Read().Err
			},
			query: "SELECT 1,\n 2 + ;",
		},
		{
			name: "extended parameters", mode: "extended", script: "\\set one 1\nSELECT :one::int / :nope::int, 1/0;\n",
			run: func() error {
				return conn2.ExecParams(ctx, "SELECT $1::int / $2::int, 1/0;", [][]byte{[]byte("1"), nil}, nil, nil, nil).Read().Err
			},
			query: "SELECT $1::int / $2::int, 1/0;",
		},
		{
			name: "extended bad parameter", mode: "extended", script: "SELECT :v::smallint;\n", args: []string{"-D", "v=1a"},
			run: func() error {
				return conn2.ExecParams(ctx, "SELECT $1::smallint;", [][]byte{[]byte("1a")}, nil, nil, nil).Read().Err
			},
			query: "SELECT $1::smallint;",
		},
	}
	abort := regexp.MustCompile(`(?s)pgbench: error: client 0 script 0 aborted in command \d+ query 0: (.*?)pgbench: error: Run was aborted`)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strconv.Itoa(i)+".sql")
			if err := os.WriteFile(file, []byte(tc.script), 0o644); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			args := append([]string{"-n", "-t", "1", "-M", tc.mode, "-f", file}, tc.args...)
			cmd := exec.CommandContext(ctx, pgbench, append(args, url)...)
			cmd.Stderr = &stderr
			_ = cmd.Run()
			m := abort.FindStringSubmatch(stderr.String())
			if m == nil {
				t.Fatalf("pgbench printed:\n%s", stderr.String())
			}
			err := tc.run()
			if err == nil {
				t.Fatal("the statement did not fail")
			}
			// pgbench's logging strips one trailing newline and adds one.
			if got := LibpqQuery(err, tc.query); got != m[1] {
				t.Errorf("got:\n%s\npgbench:\n%s", got, m[1])
			}
		})
	}
}

// urlDatabase is the quoted database name of a postgres:// URL.
func urlDatabase(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	return `"` + strings.TrimPrefix(u.Path, "/") + `"`, nil
}
