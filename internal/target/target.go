// Package target decides which PostgreSQL server a command connects to, in
// one place, in libpq's order:
//
//  1. the command line: the argument or --url (a postgres:// URL, a
//     key=value connection string or a database name), or init's -h/-p;
//  2. a target named by the command's configuration (Request.Given): an
//     experiment file's target section, the demo's local cluster;
//  3. the libpq environment, when any of PGHOST, PGHOSTADDR, PGPORT,
//     PGDATABASE, PGUSER or PGSERVICE is set (to a non-empty value: pgx
//     ignores empty ones);
//  4. the local cluster "default" ("pgtrial local"), created and started
//     when needed.
//
// Whatever is chosen, pgx (pgconn.ParseConfig, v5.12) fills in what the
// connection string leaves open from the rest of the environment as libpq
// does — PGPASSWORD, PGPASSFILE or ~/.pgpass, PGSSLMODE and the other
// PGSSL* variables, PGSERVICEFILE or ~/.pg_service.conf, PGCONNECT_TIMEOUT,
// PGAPPNAME, PGOPTIONS, PGTARGETSESSIONATTRS, … — so this package does not
// read them. pgx does not read PGHOSTADDR: Resolve passes it as the host.
//
// Resolve says on its first line of output which target it chose and why:
//
//	pgtrial: target postgres://postgres@127.0.0.1:5433/postgres (from PGHOST, PGPORT)
package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/localpg"
)

// Cluster is a local cluster as Resolve uses it: *localpg.Cluster, or a
// fake in tests.
type Cluster interface {
	Name() string
	Created() bool
	Running() bool
	// Start creates the cluster if needed and starts its server.
	Start(ctx context.Context) (localpg.StartResult, error)
	// URL is a connection URL for database db ("" before creation).
	URL(db string) string
}

// LocalOpener opens the local cluster of a name ("" for the default).
type LocalOpener func(name string) (Cluster, error)

// OpenLocalpg opens a "pgtrial local" cluster at its default place.
func OpenLocalpg(name string) (Cluster, error) {
	c, err := localpg.Open(localpg.Config{Name: name})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Request is what a command knows about its target.
type Request struct {
	Arg string // the command's argument: connection string or database name ("": none)
	URL string // --url ("": none)
	// Host, Port and User are init's -h, -p and -U: they override those
	// parts of whatever target is chosen, and -h or -p alone selects a
	// server (the rest from the environment, as for pgbench).
	Host, Port, User string
	// Given is a target named by the command's configuration; the command
	// line beats it, it beats the environment.
	Given Given
	Env   func(string) (string, bool) // the environment; nil: os.LookupEnv
	Local LocalOpener                 // nil: OpenLocalpg
	Out   func(string)                // the target line and the local cluster's start; nil: none
}

// Given is a target named by a configuration: a server or a local cluster.
type Given struct {
	ConnString string // a server ("": none)
	Local      string // else a local cluster's name ("": none)
	// Why says where it was given, for the target line: "--url",
	// "the file's target.url", "the demo always uses it".
	Why string
}

// Resolved is the chosen target.
type Resolved struct {
	// ConnString is what to connect with; pgx completes it from the
	// environment. It may hold a password: never print it
	// (trial.RedactedURL).
	ConnString string
	// Source is what chose the target: "the argument", "--url", "-h, -p",
	// the Given's Why, "PGHOST, PGPORT" (the variables set), or
	// "local cluster".
	Source string
	// Display is the server as a URL of its user, host, port and database
	// as pgx resolved them: never a password.
	Display string
	Local   Cluster // the local cluster when it is the target; nil otherwise
}

// EnvVars are the libpq variables whose presence makes the environment the
// target, in the order the target line lists them.
var EnvVars = []string{"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"}

// SourceLocal is Resolved.Source for the local cluster chosen because
// nothing else was given.
const SourceLocal = "local cluster"

// Resolve chooses the target (see the package documentation), says which
// and why on r.Out, and starts the local cluster when it is the target and
// not running.
func Resolve(ctx context.Context, r Request) (*Resolved, error) {
	if r.Env == nil {
		r.Env = os.LookupEnv
	}
	if r.Local == nil {
		r.Local = OpenLocalpg
	}
	if r.Arg != "" && r.URL != "" {
		return nil, errors.New("give the server either as an argument or with --url, not both")
	}
	givenWhy := r.Given.Why
	if givenWhy == "" {
		givenWhy = "the target"
	}
	for _, g := range [][2]string{{"the argument", r.Arg}, {"--url", r.URL}, {givenWhy, r.Given.ConnString}} {
		if err := CheckScheme(g[1]); err != nil {
			return nil, fmt.Errorf("%s: %w", g[0], err)
		}
	}
	overrides := r.overrides()
	switch {
	case r.Arg != "" || r.URL != "":
		source, s := "the argument", r.Arg
		if r.URL != "" {
			source, s = "--url", r.URL
		}
		return r.server(source, overrides, applyOverrides(normalize(s), r.Host, r.Port, r.User))
	case r.Host != "" || r.Port != "":
		return r.server(strings.Join(overrides, ", "), nil, applyOverrides("", r.Host, r.Port, r.User))
	case r.Given.ConnString != "":
		return r.server(r.Given.Why, nil, normalize(r.Given.ConnString))
	case r.Given.Local != "":
		return r.local(ctx, r.Given.Local, r.Given.Why, r.Given.Why, nil)
	}
	if names, s := fromEnv(r.Env, r.User == ""); len(names) > 0 {
		return r.server(strings.Join(names, ", "), overrides, applyOverrides(s, "", "", r.User))
	}
	return r.local(ctx, localpg.DefaultName, SourceLocal, "no target given", overrides)
}

// overrides names the given -h, -p and -U.
func (r *Request) overrides() []string {
	var names []string
	for _, o := range [][2]string{{"-h", r.Host}, {"-p", r.Port}, {"-U", r.User}} {
		if o[1] != "" {
			names = append(names, o[0])
		}
	}
	return names
}

func (r *Request) say(line string) {
	if r.Out != nil {
		r.Out(line)
	}
}

// server resolves a connection string chosen by source.
func (r *Request) server(source string, overrides []string, connString string) (*Resolved, error) {
	disp, err := Display(connString)
	if err != nil {
		return nil, fmt.Errorf("the target from %s: %w", source, err)
	}
	r.say(fmt.Sprintf("pgtrial: target %s (from %s%s)", disp, source, with(overrides)))
	return &Resolved{ConnString: connString, Source: source, Display: disp}, nil
}

// local resolves the local cluster name, chosen by source because of why,
// starting it when it is not running.
func (r *Request) local(ctx context.Context, name, source, why string, overrides []string) (*Resolved, error) {
	c, err := r.Local(name)
	if err != nil {
		return nil, fmt.Errorf("the target is the local cluster %q (%s), and it is not usable: %w\n"+
			"hint: give a server as the argument or with --url, set PGHOST (and PGPORT, …), or see \"pgtrial local --help\"", name, why, err)
	}
	why += with(overrides)
	started := false
	if !c.Running() {
		what := "starting it"
		if !c.Created() {
			what = "creating and starting it"
		}
		r.say(fmt.Sprintf("pgtrial: target the local cluster %q (%s); %s (pgtrial local start)", c.Name(), why, what))
		if _, err := c.Start(ctx); err != nil {
			return nil, fmt.Errorf("start the local cluster %q: %w\nhint: give a server as the argument or with --url, or see \"pgtrial local --help\"", c.Name(), err)
		}
		started = true
	}
	connString := applyOverrides(c.URL(""), r.Host, r.Port, r.User)
	disp, err := Display(connString)
	if err != nil {
		return nil, fmt.Errorf("the local cluster %q: %w", c.Name(), err)
	}
	if started {
		r.say(fmt.Sprintf("pgtrial: local cluster %q started: %s", c.Name(), disp))
	} else {
		r.say(fmt.Sprintf("pgtrial: target %s (local cluster %q: %s)", disp, c.Name(), why))
	}
	return &Resolved{ConnString: connString, Source: source, Display: disp, Local: c}, nil
}

func with(overrides []string) string {
	if len(overrides) == 0 {
		return ""
	}
	return ", with " + strings.Join(overrides, ", ")
}

// fromEnv returns the libpq variables that are set and a connection string
// that names what they select: with PGSERVICE only the service (pgx reads
// the service file, and PGHOST and the others below it, as libpq does);
// else PGHOST (or PGHOSTADDR), PGPORT, PGDATABASE and PGUSER as keywords,
// which is what pgx would read from them (PGUSER not when -U overrides it).
// PGHOSTADDR, which pgx ignores,
// becomes the host, over PGHOST: libpq connects to hostaddr when both are
// set (then TLS and .pgpass see the address, not PGHOST's name).
func fromEnv(env func(string) (string, bool), withUser bool) ([]string, string) {
	val := map[string]string{}
	var names []string
	for _, n := range EnvVars {
		if v, _ := env(n); v != "" {
			val[n] = v
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, ""
	}
	var kw [][2]string
	if s := val["PGSERVICE"]; s != "" {
		kw = append(kw, [2]string{"service", s})
		if a := val["PGHOSTADDR"]; a != "" {
			kw = append(kw, [2]string{"host", a})
		}
	} else {
		host := val["PGHOST"]
		if a := val["PGHOSTADDR"]; a != "" {
			host = a
		}
		kw = append(kw, [2]string{"host", host}, [2]string{"port", val["PGPORT"]},
			[2]string{"dbname", val["PGDATABASE"]})
		if withUser {
			kw = append(kw, [2]string{"user", val["PGUSER"]})
		}
	}
	var words []string
	for _, w := range kw {
		if w[1] != "" {
			words = append(words, w[0]+"="+QuoteValue(w[1]))
		}
	}
	return names, strings.Join(words, " ")
}

// CheckScheme refuses a URL whose scheme is not postgres:// or
// postgresql:// (mysql://, http://, POSTGRES://): libpq would take it for a
// database name. Key=value strings and database names pass. The message
// shows the URL without its password.
func CheckScheme(s string) error {
	scheme, _, ok := strings.Cut(strings.TrimSpace(s), "://")
	if !ok || isURL(strings.TrimSpace(s)) || !isScheme(scheme) {
		return nil
	}
	shown := scheme + "://…"
	if u, err := url.Parse(strings.TrimSpace(s)); err == nil {
		shown = scheme + strings.TrimPrefix(u.Redacted(), u.Scheme) // url.Parse lowers the scheme
	}
	if strings.EqualFold(scheme, "postgres") || strings.EqualFold(scheme, "postgresql") {
		return fmt.Errorf("%s is not a PostgreSQL URL: libpq reads the scheme in lower case only; write postgres:// or postgresql://", shown)
	}
	return fmt.Errorf("%s is not a PostgreSQL URL; give postgres://USER@HOST:PORT/DATABASE (or postgresql://), "+
		"a key=value connection string (host=… port=… dbname=…) or a database name", shown)
}

// isScheme says s is a URL scheme (RFC 3986: a letter, then letters,
// digits, "+", "-" or ".").
func isScheme(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// isURL says s is a postgres:// or postgresql:// URL.
func isURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// normalize turns a bare word into a database name, as pgbench and psql
// read it; URLs and key=value strings stay as they are.
func normalize(s string) string {
	if s != "" && !isURL(s) && !strings.Contains(s, "=") {
		return "dbname=" + QuoteValue(s)
	}
	return s
}

// applyOverrides sets the host, port and user of s (those given).
func applyOverrides(s, host, port, user string) string {
	overrides := [][2]string{{"host", host}, {"port", port}, {"user", user}}
	if isURL(s) {
		u, err := url.Parse(s)
		if err != nil {
			return s // Display reports the invalid URL
		}
		q := u.Query()
		for _, kv := range overrides {
			if kv[1] != "" {
				q.Set(kv[0], kv[1])
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for _, kv := range overrides {
		if kv[1] != "" {
			s += " " + kv[0] + "=" + QuoteValue(kv[1])
		}
	}
	return strings.TrimSpace(s)
}

// QuoteValue is a key=value connection string value: as it is when it
// needs no quotes, else quoted as libpq reads it.
func QuoteValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\r\v\f'\\") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// Display is the server connString names, completed by pgx from the
// environment, as a URL of its user, hosts, ports and database:
// postgres://postgres@127.0.0.1:5433/postgres, a socket directory as
// postgres://postgres@%2Ftmp:5433/bench. It is built from those parts only,
// so it never holds a password.
func Display(connString string) (string, error) {
	cfg, err := pgconn.ParseConfig(connString)
	if err != nil {
		return "", err // pgconn redacts the password in its message
	}
	var hosts []string
	add := func(host string, port uint16) {
		h := host
		if strings.HasPrefix(h, "/") {
			h = url.PathEscape(h)
		}
		hp := net.JoinHostPort(h, strconv.Itoa(int(port)))
		for _, x := range hosts {
			if x == hp {
				return // a TLS fallback of the same host
			}
		}
		hosts = append(hosts, hp)
	}
	add(cfg.Host, cfg.Port)
	for _, fb := range cfg.Fallbacks {
		add(fb.Host, fb.Port)
	}
	user := ""
	if cfg.User != "" {
		user = url.User(cfg.User).String() + "@"
	}
	return "postgres://" + user + strings.Join(hosts, ",") + "/" + url.PathEscape(cfg.Database), nil
}
