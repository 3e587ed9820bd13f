package target

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// pgconnParse is the database pgx reads from a connection string.
func pgconnParse(s string) (string, error) {
	cfg, err := pgconn.ParseConfig(s)
	if err != nil {
		return "", err
	}
	return cfg.Database, nil
}

// fakeCluster is a local cluster that starts without a server.
type fakeCluster struct {
	name             string
	created, running bool
	port             int
	starts           int
	startErr         error
}

func (c *fakeCluster) Name() string  { return c.name }
func (c *fakeCluster) Created() bool { return c.created }
func (c *fakeCluster) Running() bool { return c.running }
func (c *fakeCluster) Start(context.Context) (localpg.StartResult, error) {
	c.starts++
	if c.startErr != nil {
		return localpg.StartResult{}, c.startErr
	}
	res := localpg.StartResult{Created: !c.created, Port: c.port}
	c.created, c.running = true, true
	return res, nil
}
func (c *fakeCluster) URL(db string) string {
	if !c.created {
		return ""
	}
	if db == "" {
		db = "postgres"
	}
	return "postgres://postgres@127.0.0.1:" + strconv.Itoa(c.port) + "/" + db + "?sslmode=disable"
}

// fakeLocal opens fake clusters by name and records which.
type fakeLocal struct {
	clusters map[string]*fakeCluster
	opened   []string
}

func (f *fakeLocal) open(name string) (Cluster, error) {
	f.opened = append(f.opened, name)
	c, ok := f.clusters[name]
	if !ok {
		return nil, errors.New("no such fake cluster")
	}
	return c, nil
}

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// clearEnv empties the libpq variables of the real environment, which pgx
// reads for Display: pgx ignores empty values.
func clearEnv(t *testing.T) {
	for _, n := range []string{"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE",
		"PGSERVICEFILE", "PGPASSWORD", "PGPASSFILE", "PGSSLMODE", "PGTARGETSESSIONATTRS", "PGCONNECT_TIMEOUT"} {
		t.Setenv(n, "")
	}
}

// resolve runs Resolve with a fake local cluster "default" (running on
// port 5999) and returns the result, the lines said and the fake.
func resolve(t *testing.T, r Request) (*Resolved, []string, *fakeLocal, error) {
	t.Helper()
	fl := &fakeLocal{clusters: map[string]*fakeCluster{
		"default": {name: "default", created: true, running: true, port: 5999},
		"bench":   {name: "bench", port: 6001},
	}}
	var lines []string
	r.Local = fl.open
	r.Out = func(s string) { lines = append(lines, s) }
	if r.Env == nil {
		r.Env = env()
	}
	res, err := Resolve(context.Background(), r)
	return res, lines, fl, err
}

// TestCommandLineBeatsEnvironment: the argument, --url or -h/-p win over
// PGHOST and PGPORT, which only fill in what the connection string leaves
// open (as in libpq).
func TestCommandLineBeatsEnvironment(t *testing.T) {
	clearEnv(t)
	t.Setenv("PGHOST", "db9")
	t.Setenv("PGPORT", "7777")
	e := os.LookupEnv
	tests := []struct {
		r                  Request
		conn, source, line string
	}{
		{Request{URL: "postgres://u:pw@h1:5433/db1", Env: e}, "postgres://u:pw@h1:5433/db1", "--url",
			"pgtrial: target postgres://u@h1:5433/db1 (from --url)"},
		{Request{Arg: "postgres://u@h2/db2?port=5434", Env: e}, "postgres://u@h2/db2?port=5434", "the argument",
			"pgtrial: target postgres://u@h2:5434/db2 (from the argument)"},
		// A database name: the rest from the environment, as for psql.
		{Request{Arg: "bench", User: "me", Env: e}, "dbname=bench user=me", "the argument",
			"pgtrial: target postgres://me@db9:7777/bench (from the argument, with -U)"},
		{Request{URL: "host=h3 dbname=x", Port: "6000", Env: e}, "host=h3 dbname=x port=6000", "--url",
			"pgtrial: target postgres://" + osUser(t) + "@h3:6000/x (from --url, with -p)"},
		{Request{URL: "postgres://u@h4:5/db?sslmode=disable", Host: "other", Env: e}, "postgres://u@h4:5/db?host=other&sslmode=disable", "--url",
			"pgtrial: target postgres://u@other:5/db (from --url, with -h)"},
		// -h/-p without a connection string select the server.
		{Request{Host: "/run/pg", Port: "5433", User: "me", Env: e}, "host=/run/pg port=5433 user=me", "-h, -p, -U",
			"pgtrial: target postgres://me@%2Frun%2Fpg:5433/ (from -h, -p, -U)"},
		// The command line beats a configuration's target.
		{Request{URL: "postgres://u@h5/d", Given: Given{Local: "bench", Why: "the file's target.local"}, Env: e}, "postgres://u@h5/d", "--url",
			"pgtrial: target postgres://u@h5:7777/d (from --url)"},
	}
	for _, tt := range tests {
		res, lines, fl, err := resolve(t, tt.r)
		if err != nil {
			t.Errorf("%+v: %v", tt.r, err)
			continue
		}
		if res.ConnString != tt.conn || res.Source != tt.source || res.Local != nil {
			t.Errorf("%+v: %+v; want %q from %q", tt.r, res, tt.conn, tt.source)
		}
		if len(lines) != 1 || lines[0] != tt.line {
			t.Errorf("%+v: said %q, want %q", tt.r, lines, tt.line)
		}
		if len(fl.opened) != 0 {
			t.Errorf("%+v: opened local clusters %v", tt.r, fl.opened)
		}
		if strings.Contains(res.Display, "pw") {
			t.Errorf("password in %q", res.Display)
		}
	}
	if _, _, _, err := resolve(t, Request{Arg: "a", URL: "b"}); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("argument and --url: %v", err)
	}
	_, _, _, err := resolve(t, Request{URL: "postgres://u:s3cret@h:notaport/db"})
	if err == nil || !strings.Contains(err.Error(), "--url") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("invalid URL: %v", err)
	}
}

func osUser(t *testing.T) string {
	t.Helper()
	d, err := Display("host=x")
	if err != nil {
		t.Fatal(err)
	}
	u, _, _ := strings.Cut(strings.TrimPrefix(d, "postgres://"), "@")
	return u
}

// TestEachVariableSelectsEnvironment: any one of the six, alone and set,
// makes the environment the target; empty ones do not count.
func TestEachVariableSelectsEnvironment(t *testing.T) {
	clearEnv(t)
	tests := []struct {
		name, value, conn string
	}{
		{"PGHOST", "db1", "host=db1"},
		{"PGHOSTADDR", "10.1.2.3", "host=10.1.2.3"},
		{"PGPORT", "5544", "port=5544"},
		{"PGDATABASE", "bench", "dbname=bench"},
		{"PGUSER", "alice", "user=alice"},
		{"PGSERVICE", "svc", "service=svc"},
	}
	for _, tt := range tests {
		if tt.name == "PGSERVICE" {
			writeServiceFile(t, "[svc]\nhost=svchost\n")
		}
		res, lines, fl, err := resolve(t, Request{Env: env(tt.name, tt.value)})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if res.Source != tt.name || res.ConnString != tt.conn || res.Local != nil || len(fl.opened) != 0 {
			t.Errorf("%s: %+v, opened %v; want %q", tt.name, res, fl.opened, tt.conn)
		}
		if len(lines) != 1 || !strings.HasSuffix(lines[0], "(from "+tt.name+")") {
			t.Errorf("%s: said %q", tt.name, lines)
		}
	}
	// Empty values are not set (pgx ignores them too): the local cluster.
	res, _, _, err := resolve(t, Request{Env: env("PGHOST", "", "PGPORT", "")})
	if err != nil || res.Source != SourceLocal {
		t.Errorf("empty variables: %+v, %v", res, err)
	}
}

func TestEnvironmentCombined(t *testing.T) {
	clearEnv(t)
	res, lines, _, err := resolve(t, Request{Env: env("PGPORT", "5433", "PGHOST", "127.0.0.1", "PGDATABASE", "postgres", "PGUSER", "postgres")})
	if err != nil {
		t.Fatal(err)
	}
	if res.ConnString != "host=127.0.0.1 port=5433 dbname=postgres user=postgres" || res.Source != "PGHOST, PGPORT, PGDATABASE, PGUSER" {
		t.Errorf("%+v", res)
	}
	if want := "pgtrial: target postgres://postgres@127.0.0.1:5433/postgres (from PGHOST, PGPORT, PGDATABASE, PGUSER)"; len(lines) != 1 || lines[0] != want {
		t.Errorf("said %q, want %q", lines, want)
	}
	// PGHOSTADDR is the address over PGHOST (pgx does not read it).
	res, _, _, err = resolve(t, Request{Env: env("PGHOST", "name.example", "PGHOSTADDR", "10.0.0.9")})
	if err != nil || res.ConnString != "host=10.0.0.9" || res.Source != "PGHOST, PGHOSTADDR" {
		t.Errorf("PGHOSTADDR: %+v, %v", res, err)
	}
	// -U overrides the environment's user.
	res, lines, _, err = resolve(t, Request{User: "bob", Env: env("PGHOST", "h", "PGUSER", "alice")})
	if err != nil || res.ConnString != "host=h user=bob" || !strings.HasPrefix(lines[0], "pgtrial: target postgres://bob@h:5432/") ||
		!strings.HasSuffix(lines[0], "(from PGHOST, PGUSER, with -U)") {
		t.Errorf("-U: %+v, %q, %v", res, lines, err)
	}
}

func writeServiceFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pg_service.conf")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGSERVICEFILE", p)
	return p
}

// TestService: PGSERVICE's entry in the service file (PGSERVICEFILE) is the
// target; pgx reads the file, and the service beats PGHOST and PGPORT, as
// in libpq.
func TestService(t *testing.T) {
	clearEnv(t)
	writeServiceFile(t, "[bench]\nhost=db.example\nport=6432\ndbname=benchdb\nuser=tester\n\n[other]\nhost=elsewhere\n")
	t.Setenv("PGHOST", "ignored.example")
	t.Setenv("PGPORT", "1")
	t.Setenv("PGSERVICE", "bench")
	res, lines, fl, err := resolve(t, Request{Env: os.LookupEnv})
	if err != nil {
		t.Fatal(err)
	}
	if res.ConnString != "service=bench" || res.Source != "PGHOST, PGPORT, PGSERVICE" || len(fl.opened) != 0 {
		t.Errorf("%+v", res)
	}
	if want := "pgtrial: target postgres://tester@db.example:6432/benchdb (from PGHOST, PGPORT, PGSERVICE)"; len(lines) != 1 || lines[0] != want {
		t.Errorf("said %q, want %q", lines, want)
	}
	// A service the file does not have is an error that names the source.
	t.Setenv("PGSERVICE", "missing")
	if _, _, _, err := resolve(t, Request{Env: os.LookupEnv}); err == nil || !strings.Contains(err.Error(), "PGSERVICE") {
		t.Errorf("missing service: %v", err)
	}
}

// TestGiven: a configuration's target beats the environment.
func TestGiven(t *testing.T) {
	clearEnv(t)
	e := env("PGHOST", "db9")
	res, lines, fl, err := resolve(t, Request{Env: e, Given: Given{ConnString: "postgres://u@h/d", Why: "the file's target.url"}})
	if err != nil || res.ConnString != "postgres://u@h/d" || res.Source != "the file's target.url" || len(fl.opened) != 0 ||
		lines[0] != "pgtrial: target postgres://u@h:5432/d (from the file's target.url)" {
		t.Errorf("given URL: %+v, %q, %v", res, lines, err)
	}
	// A named local cluster, not running and not created: created and started.
	res, lines, fl, err = resolve(t, Request{Env: e, Given: Given{Local: "bench", Why: "the file's target.local"}})
	if err != nil {
		t.Fatal(err)
	}
	c := fl.clusters["bench"]
	if res.Local != Cluster(c) || c.starts != 1 || res.ConnString != "postgres://postgres@127.0.0.1:6001/postgres?sslmode=disable" || res.Source != "the file's target.local" {
		t.Errorf("given local: %+v, starts %d", res, c.starts)
	}
	want := []string{
		`pgtrial: target the local cluster "bench" (the file's target.local); creating and starting it (pgtrial local start)`,
		`pgtrial: local cluster "bench" started: postgres://postgres@127.0.0.1:6001/postgres`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("said %q, want %q", lines, want)
	}
}

// TestNothingGivenIsLocal: no argument, no --url, none of the six
// variables: the local cluster "default".
func TestNothingGivenIsLocal(t *testing.T) {
	clearEnv(t)
	res, lines, fl, err := resolve(t, Request{Env: env("PGPASSWORD", "x", "PGSSLMODE", "require")})
	if err != nil {
		t.Fatal(err)
	}
	c := fl.clusters["default"]
	if res.Source != SourceLocal || res.Local != Cluster(c) || c.starts != 0 || res.ConnString != c.URL("") {
		t.Errorf("%+v, starts %d", res, c.starts)
	}
	if want := `pgtrial: target postgres://postgres@127.0.0.1:5999/postgres (local cluster "default": no target given)`; len(lines) != 1 || lines[0] != want {
		t.Errorf("said %q, want %q", lines, want)
	}
	// Stopped: started, and said so after the target line.
	stopped := &fakeCluster{name: "default", created: true, port: 5999}
	lines = nil
	res, err = Resolve(context.Background(), Request{Env: env(), Out: func(s string) { lines = append(lines, s) },
		Local: func(string) (Cluster, error) { return stopped, nil }})
	if err != nil || res.Local == nil || stopped.starts != 1 || len(lines) != 2 ||
		lines[0] != `pgtrial: target the local cluster "default" (no target given); starting it (pgtrial local start)` {
		t.Errorf("stopped: %+v, %q, %v", res, lines, err)
	}
	// Not usable, or failing to start: errors with a hint.
	fl2 := &fakeLocal{}
	_, err = Resolve(context.Background(), Request{Env: env(), Local: fl2.open})
	if err == nil || !strings.Contains(err.Error(), `local cluster "default"`) || !strings.Contains(err.Error(), "PGHOST") {
		t.Errorf("unusable: %v", err)
	}
	bad := &fakeCluster{name: "default", startErr: errors.New("initdb failed")}
	_, err = Resolve(context.Background(), Request{Env: env(), Local: func(string) (Cluster, error) { return bad, nil }})
	if err == nil || !strings.Contains(err.Error(), "initdb failed") {
		t.Errorf("start failure: %v", err)
	}
}

func TestDisplay(t *testing.T) {
	clearEnv(t)
	tests := []struct{ in, want string }{
		{"postgres://a:secret@h1:5433,h2:5434/db?sslmode=prefer", "postgres://a@h1:5433,h2:5434/db"},
		{"host=/tmp port=5433 user=u dbname='my db' password=secret", "postgres://u@%2Ftmp:5433/my%20db"},
		{"postgres://u@[::1]:5432/d", "postgres://u@[::1]:5432/d"},
	}
	for _, tt := range tests {
		got, err := Display(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Display(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestQuoteValue: a database name with blanks, quotes or backslashes comes
// back from pgx as it was given.
func TestQuoteValue(t *testing.T) {
	clearEnv(t)
	for _, name := range []string{"bench", "my db", `it's`, `a\b`, "tab\there"} {
		cfg, err := pgconnParse(normalize(name))
		if err != nil || cfg != name {
			t.Errorf("%q: normalized to %q, pgx reads %q, %v", name, normalize(name), cfg, err)
		}
	}
}

// TestOtherSchemesRefused: a URL of another scheme is not taken for a
// database name (as libpq would): it is refused, saying where it was
// given and without its password; postgres:// and postgresql:// URLs,
// key=value strings and database names pass.
func TestOtherSchemesRefused(t *testing.T) {
	clearEnv(t)
	tests := []struct {
		req  Request
		want string // "" when it passes
	}{
		{Request{URL: "mysql://root:hunter2@db1/shop"}, `--url: mysql://root:xxxxx@db1/shop is not a PostgreSQL URL; give postgres://USER@HOST:PORT/DATABASE`},
		{Request{Arg: "http://db1:5432/bench"}, `the argument: http://db1:5432/bench is not a PostgreSQL URL`},
		{Request{URL: "POSTGRES://u@h/d"}, `--url: POSTGRES://u@h/d is not a PostgreSQL URL`},
		{Request{Given: Given{ConnString: "mariadb://h/d", Why: "the file's target.url"}}, `the file's target.url: mariadb://h/d is not a PostgreSQL URL`},
		{Request{URL: "postgresql://u@h/d"}, ""},
		{Request{URL: "postgres://u@h/d"}, ""},
		{Request{URL: "host=h dbname=d"}, ""},
		{Request{Arg: "bench"}, ""},
	}
	for _, tc := range tests {
		res, lines, _, err := resolve(t, tc.req)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.req, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%+v: %v (%+v), want %q", tc.req, err, res, tc.want)
		case tc.want != "" && (len(lines) != 0 || strings.Contains(err.Error(), "hunter2")):
			t.Errorf("%+v: said %q; error %v", tc.req, lines, err)
		}
	}
}
