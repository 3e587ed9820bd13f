// Package pgerr says why a connection to PostgreSQL failed, for every
// command that connects, in one place:
//
//   - Describe (and Connect, its error) gives the cause first, per server
//     address tried, in libpq's words where pgbench and psql users know them
//     ("connection to server at \"127.0.0.1\", port 5432 failed: ") with the
//     server's error and its SQLSTATE as pgx writes it ("FATAL: password
//     authentication failed for user \"bench\" (SQLSTATE 28P01)"), and a
//     hint that fits the cause (Classify): a wrong or missing password, no
//     free connection slot, no such database or role, nothing listening, a
//     timeout, TLS required but refused, an unknown host;
//   - Libpq and LibpqQuery (libpq.go) render any driver error exactly as
//     libpq's PQerrorMessage, for the pgbench front end.
//
// pgconn tries TLS first and then plain under sslmode=prefer and joins both
// errors ("tls error: server refused TLS connection" first); as libpq, which
// falls back silently, neither text shows that refusal unless TLS was
// required. Passwords never appear: only host names, addresses, ports, the
// user and database names and the server's own messages are used.
package pgerr

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Class is what went wrong when connecting, as far as the hint is concerned.
type Class string

// The classes, each with its own hint.
const (
	Other          Class = "other"
	WrongPassword  Class = "wrong password"   // 28P01 with a password given
	NoPassword     Class = "no password"      // the server asked for one and none was given
	NotAllowed     Class = "not allowed"      // 28000: no pg_hba.conf line lets this user in
	NoRole         Class = "no role"          // 28000: role "x" does not exist
	TooManyClients Class = "too many clients" // 53300: no connection slot (server, role or database)
	NoDatabase     Class = "no database"      // 3D000
	NotReady       Class = "not ready"        // 57P03: starting up, shutting down, recovering
	Refused        Class = "refused"          // nothing listens at the address (TCP or socket)
	Timeout        Class = "timeout"          // no answer within the connect timeout
	TLSRefused     Class = "tls refused"      // TLS required, the server does not offer it
	TLSFailed      Class = "tls failed"       // the handshake or the certificate check failed
	UnknownHost    Class = "unknown host"     // the name does not resolve
	Lost           Class = "lost"             // the server closed the connection during start-up
)

// Error is a failed connection as Connect describes it. Error() is the
// message, then each hint on a line of its own starting "hint: ".
type Error struct {
	Class   Class  // the first attempt's class
	Message string // the cause, one line per server address tried
	Hint    string // what to do; several hints are separated by "\nhint: "
	Err     error  // the driver's error
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.Message
	}
	return e.Message + "\nhint: " + e.Hint
}

func (e *Error) Unwrap() error { return e.Err }

// Connect is err, a failed connection with cfg (nil: the config pgconn
// records in its ConnectError), as an *Error; nil for nil, and an *Error
// as it is.
func Connect(err error, cfg *pgconn.Config) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	msg, hint := Describe(err, cfg)
	return &Error{Class: Classify(err), Message: msg, Hint: hint, Err: err}
}

// Message is Describe's message alone, for places where a hint does not
// fit (a collector's missing-evidence reason); "" for nil.
func Message(err error) string {
	msg, _ := Describe(err, nil)
	return msg
}

// Classify is the class of a failed connection: its first attempt's.
func Classify(err error) Class {
	if err == nil {
		return Other
	}
	if atts := attemptsOf(err); len(atts) > 0 {
		return classOf(atts[0])
	}
	return classOf(attempt{cause: err})
}

// Describe says why a connection failed: the message, one line per server
// address tried (libpq's host identity, then the cause: the server's error
// with its SQLSTATE, "fe_sendauth: no password supplied", "Connection
// refused", …), and the hint for each distinct class in order (several
// joined by "\nhint: ", so that "hint: "+hint prints each on its line).
// cfg is the connection's config (only the host, port, user, database and
// whether a password was given are used); nil takes the one in pgconn's
// ConnectError. An error that is not a connection's is described as it is.
func Describe(err error, cfg *pgconn.Config) (msg, hint string) {
	if err == nil {
		return "", ""
	}
	atts := attemptsOf(err)
	if len(atts) == 0 {
		atts = []attempt{{cause: err}}
	}
	if cfg == nil {
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) {
			cfg = ce.Config
		}
	}
	var lines, hints []string
	seen := map[string]bool{}
	for _, a := range atts {
		lines = append(lines, a.identity+reason(a))
		if h := hintFor(classOf(a), a, cfg); h != "" && !seen[h] {
			seen[h] = true
			hints = append(hints, h)
		}
	}
	return strings.Join(lines, "\n"), strings.Join(hints, "\nhint: ")
}

// attemptsOf lists the attempts of a failed connection (connectAttempts);
// nil when err is not one.
func attemptsOf(err error) []attempt {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return nil
	}
	return connectAttempts(ce)
}

// reason is the cause of one attempt in one line: the server's error as
// pgx writes it (severity, message, SQLSTATE), else libpq's first line
// ("Connection refused", "timeout expired", "server does not support SSL,
// but SSL was required", "could not translate host name …").
func reason(a attempt) string {
	if a.noPass {
		return strings.TrimSuffix(noPasswordMessage, "\n")
	}
	var pe *pgconn.PgError
	if errors.As(a.cause, &pe) {
		s := pe.Error()
		if pe.Detail != "" {
			s += "\nDETAIL: " + pe.Detail
		}
		if pe.Hint != "" {
			s += "\nHINT: " + pe.Hint
		}
		return s
	}
	text := a.libpq
	if text == "" {
		text = otherErrorMessage(a.cause)
	}
	if a.identity != "" {
		text = strings.TrimPrefix(text, a.identity)
	}
	first, _, _ := strings.Cut(text, "\n")
	return first
}

// classOf classifies one attempt.
func classOf(a attempt) Class {
	if a.noPass {
		return NoPassword
	}
	err := a.cause
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01":
			return WrongPassword
		case "28000":
			if strings.HasPrefix(pe.Message, "role ") && strings.HasSuffix(pe.Message, " does not exist") {
				return NoRole
			}
			return NotAllowed
		case "53300":
			return TooManyClients
		case "3D000":
			return NoDatabase
		case "57P03":
			return NotReady
		}
		return Other
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var alert tls.AlertError
	var recHdr tls.RecordHeaderError
	var errno syscall.Errno
	switch {
	case errors.As(err, &dnsErr):
		return UnknownHost
	case isTLSRefusal(err):
		return TLSRefused
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr),
		errors.As(err, &alert), errors.As(err, &recHdr), strings.Contains(err.Error(), "tls: "):
		return TLSFailed
	case pgconn.Timeout(err), errors.Is(err, context.DeadlineExceeded):
		return Timeout
	case errors.As(err, &errno) && (errno == syscall.ECONNREFUSED || errno == syscall.ENOENT):
		return Refused
	case isConnectionLost(err):
		return Lost
	}
	return Other
}

// hintFor is the hint for class c of attempt a (cfg may be nil).
func hintFor(c Class, a attempt, cfg *pgconn.Config) string {
	var user, db string
	if cfg != nil {
		user, db = cfg.User, cfg.Database
	}
	at := location(a, cfg)
	srv := strings.TrimSpace("the server " + at)
	switch c {
	case WrongPassword:
		return "the server refused the password of user " + quote(user) + ": check PGPASSWORD, " +
			"the password in the connection string, and this server's line in the password file " +
			"(~/.pgpass, or the file PGPASSFILE names)"
	case NoPassword:
		return "the server asks user " + quote(user) + " for a password and none was given: set PGPASSWORD, " +
			"or add a line host:port:database:user:password to ~/.pgpass (mode 0600; PGPASSFILE names another file)"
	case NotAllowed:
		return "no line of the server's pg_hba.conf lets user " + quote(user) + " connect to database " + quote(db) +
			" from here: add one and reload the server (SELECT pg_reload_conf()), or connect as another user"
	case NoRole:
		return "there is no role " + quote(user) + " on " + srv + ": create it (createuser, or CREATE ROLE … LOGIN), " +
			"or connect as another user (PGUSER, user= or postgres://USER@…)"
	case TooManyClients:
		var pe *pgconn.PgError
		errors.As(a.cause, &pe)
		switch {
		case pe != nil && strings.Contains(pe.Message, "for role"):
			return "the role's connection limit is reached: use fewer clients (-c), or raise it (ALTER ROLE " + ident(user) + " CONNECTION LIMIT n)"
		case pe != nil && strings.Contains(pe.Message, "for database"):
			return "the database's connection limit is reached: use fewer clients (-c), or raise it (ALTER DATABASE " + ident(db) + " CONNECTION LIMIT n)"
		}
		return "every connection slot of " + srv + " is taken (max_connections, less superuser_reserved_connections " +
			"for other roles): use fewer clients (-c), end idle sessions, or raise max_connections (a restart)"
	case NoDatabase:
		return "create database " + quote(db) + " (createdb " + shellWord(db) + ", or CREATE DATABASE; on the local cluster " +
			"pgtrial local url --db " + shellWord(db) + "), or name another one; then load the tables with pgtrial init"
	case NotReady:
		return srv + " is starting up, shutting down or in recovery: wait and try again"
	case Refused:
		return "is a server running " + at + "? Start the local one with \"pgtrial local start\", " +
			"or give another server (--url, or PGHOST and PGPORT)"
	case Timeout:
		return "no answer from " + srv + " within the connect timeout (connect_timeout, PGCONNECT_TIMEOUT): " +
			"check the address and any firewall, and whether the server is overloaded or stopped"
	case TLSRefused:
		return srv + " does not accept TLS, and the sslmode asks for it (require, verify-ca, verify-full): " +
			"enable ssl on the server, or connect with sslmode=prefer or disable (sslmode= or PGSSLMODE)"
	case TLSFailed:
		return "the TLS handshake or the check of the server's certificate failed: for sslmode=verify-ca or verify-full " +
			"give the CA that signed it (sslrootcert, PGSSLROOTCERT) and connect by a name the certificate holds"
	case UnknownHost:
		return "the host name " + quote(a.host) + " does not resolve: check its spelling (--url, PGHOST), or give an IP address"
	case Lost:
		return srv + " closed the connection during the start-up: its log says why (a crash, a restart, a limit)"
	}
	return "check the connection settings (--url, or PGHOST, PGPORT, PGUSER, PGDATABASE)"
}

// location is where attempt a went, for a hint: "at 127.0.0.1, port 5432",
// "at db.example.com (10.0.0.5), port 5432", "on the socket
// /tmp/.s.PGSQL.5432", else the config's first host ("" when unknown).
func location(a attempt, cfg *pgconn.Config) string {
	addr := a.addr
	if addr == "" && cfg != nil {
		if strings.HasPrefix(cfg.Host, "/") {
			addr = cfg.Host + "/.s.PGSQL." + strconv.Itoa(int(cfg.Port))
		} else {
			addr = net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
		}
	}
	if addr == "" || addr == ":0" {
		return ""
	}
	if strings.HasPrefix(addr, "/") || strings.HasPrefix(addr, "@") {
		return "on the socket " + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "at " + addr
	}
	if a.host != "" && a.host != host {
		host = a.host + " (" + host + ")"
	}
	return "at " + host + ", port " + port
}

func quote(s string) string { return strconv.Quote(s) }

// ident is s as an SQL identifier.
func ident(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_'
	}) < 0 {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// shellWord is s quoted for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// strerror renders an errno as C's strerror does ("Connection refused"):
// Go's texts are glibc's with a lower-case first letter.
func strerror(errno syscall.Errno) string {
	s := errno.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Cause is Connect without the hint, for a reason that must stay on one
// line per address (a collector's): err as an *Error whose Error() is the
// message alone; nil for nil.
func Cause(err error, cfg *pgconn.Config) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return &Error{Class: pe.Class, Message: pe.Message, Err: err}
	}
	msg, _ := Describe(err, cfg)
	return &Error{Class: Classify(err), Message: msg, Err: err}
}
