package pgerr

import (
	"errors"
	"io"
	"net"
	"reflect"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// This file renders driver errors as libpq's PQerrorMessage would, because
// pgbench prints PQerrorMessage (and scripts and tests match its text):
//
//   - a server error as pqBuildErrorMessage3 at the default verbosity
//     (PQERRORS_DEFAULT, PQSHOW_CONTEXT_ERRORS), every line ending in "\n":
//     "SEVERITY:  message" (+ " at character N" when there is a position but
//     no query text to show it in), then the "LINE n: …" and "^" cursor lines
//     of reportErrorPosition when the query text is known, then "DETAIL:  ",
//     "HINT:  ", "QUERY:  " and "CONTEXT:  " lines for the fields present;
//   - a failed connection as fe-connect.c: per server tried, the
//     emitHostIdentityInfo prefix ("connection to server on socket \"%s\"
//     failed: " or "connection to server at \"%s\" [(%s)], port %s failed: ")
//     and the reason: the server's error, or strerror(errno) with
//     connectFailureMessage's hint line; name lookup failures as
//     "could not translate host name \"%s\" to address: %s".
//
// Passwords never appear: only host names, addresses, ports and the
// server's own messages are used.

// Libpq is libpq's error text for err, with the trailing newline
// (pgbench's logging strips one). Without the query text, a server error's
// position is shown as " at character N", as libpq does when it has no query
// (prepared statements); see LibpqQuery. "" for a nil error.
func Libpq(err error) string {
	return LibpqQuery(err, "")
}

// LibpqQuery is Libpq for an error of query, the text libpq
// sent (simple protocol: the substituted SQL; extended protocol: the SQL with
// $n parameters; prepared statements: none, ""): a statement position is then
// shown as libpq's "LINE n: …" line and "^" cursor. The query is taken to be
// UTF-8, the usual client encoding.
func LibpqQuery(err error, query string) string {
	if err == nil {
		return ""
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return connectErrorMessage(ce)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return string(appendPgError(nil, pe, query))
	}
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) {
		return parseConfigMessage(pce)
	}
	return otherErrorMessage(err)
}

// appendPgError is pqBuildErrorMessage3 at the default verbosity for an error
// result (so CONTEXT is shown).
func appendPgError(b []byte, pe *pgconn.PgError, query string) []byte {
	if pe.Severity != "" {
		b = append(b, pe.Severity...)
		b = append(b, ":  "...)
	}
	b = append(b, pe.Message...)
	var cursorText string
	cursorPos := 0
	if pe.Position > 0 {
		if query != "" {
			cursorText, cursorPos = query, int(pe.Position)
		} else {
			b = append(b, " at character "...)
			b = strconv.AppendInt(b, int64(pe.Position), 10)
		}
	} else if pe.InternalPosition > 0 {
		if pe.InternalQuery != "" {
			cursorText, cursorPos = pe.InternalQuery, int(pe.InternalPosition)
		} else {
			b = append(b, " at character "...)
			b = strconv.AppendInt(b, int64(pe.InternalPosition), 10)
		}
	}
	b = append(b, '\n')
	if cursorText != "" && cursorPos > 0 {
		b = appendErrorPosition(b, cursorText, cursorPos)
	}
	for _, f := range [...]struct{ label, val string }{
		{"DETAIL:  ", pe.Detail},
		{"HINT:  ", pe.Hint},
		{"QUERY:  ", pe.InternalQuery},
		{"CONTEXT:  ", pe.Where},
	} {
		if f.val != "" {
			b = append(b, f.label...)
			b = append(b, f.val...)
			b = append(b, '\n')
		}
	}
	return b
}

// appendErrorPosition is libpq's reportErrorPosition for a UTF-8 query: the
// line holding the 1-based character position loc, cut to about 60 screen
// columns around it (with "..." where cut), and a "^" under the character.
func appendErrorPosition(b []byte, query string, loc int) []byte {
	const (
		displaySize = 60 // screen width limit, in screen columns
		minRightCut = 10 // try to keep this far away from the end of line
	)
	loc-- // 0-based
	if loc < 0 {
		return b
	}
	if i := strings.IndexByte(query, 0); i >= 0 { // a C string ends at NUL
		query = query[:i]
	}
	w := []byte(query)
	// qidx and scridx: each character's byte offset and screen column.
	qidx := make([]int, len(w)+1)
	scridx := make([]int, len(w)+1)
	qoffset, scroffset := 0, 0
	locLine, ibeg, iend := 1, 0, -1
	cno := 0
	for ; qoffset < len(w); cno++ {
		ch := w[qoffset]
		qidx[cno] = qoffset
		scridx[cno] = scroffset
		if ch == '\t' {
			w[qoffset] = ' '
		} else if ch == '\r' || ch == '\n' {
			// Each \r or \n ends a line, except \n right after \r.
			if cno < loc {
				if ch == '\r' || cno == 0 || w[qidx[cno-1]] != '\r' {
					locLine++
				}
				ibeg = cno + 1
			} else {
				iend = cno
				break
			}
		}
		width := utf8DisplayWidth(w[qoffset:])
		if width <= 0 {
			width = 1 // control characters count as one column
		}
		scroffset += width
		qoffset += utf8MBLen(w[qoffset:])
	}
	if iend < 0 {
		iend = cno
		qidx[iend] = qoffset
		scridx[iend] = scroffset
	}
	if loc > cno {
		return b
	}
	begTrunc, endTrunc := false, false
	if scridx[iend]-scridx[ibeg] > displaySize {
		if scridx[ibeg]+displaySize >= scridx[loc]+minRightCut {
			for scridx[iend]-scridx[ibeg] > displaySize {
				iend--
			}
			endTrunc = true
		} else {
			for scridx[loc]+minRightCut < scridx[iend] {
				iend--
				endTrunc = true
			}
			for scridx[iend]-scridx[ibeg] > displaySize {
				ibeg++
				begTrunc = true
			}
		}
	}
	prefix := "LINE " + strconv.Itoa(locLine) + ": "
	if begTrunc {
		prefix += "..."
	}
	b = append(b, prefix...)
	b = append(b, w[qidx[ibeg]:qidx[iend]]...)
	if endTrunc {
		b = append(b, "..."...)
	}
	b = append(b, '\n')
	for n := len(prefix) + scridx[loc] - scridx[ibeg]; n > 0; n-- {
		b = append(b, ' ')
	}
	return append(b, '^', '\n')
}

// utf8MBLen is PQmblenBounded for UTF-8 (pg_utf_mblen, bounded by the end):
// the length announced by the first byte, 1 for an invalid one.
func utf8MBLen(s []byte) int {
	n := 1
	switch c := s[0]; {
	case c&0x80 == 0:
		n = 1
	case c&0xe0 == 0xc0:
		n = 2
	case c&0xf0 == 0xe0:
		n = 3
	case c&0xf8 == 0xf0:
		n = 4
	}
	if n > len(s) {
		n = len(s)
	}
	return n
}

// utf8DisplayWidth is pg_utf_dsplen: the screen width of the character at s:
// 2 for East Asian wide and fullwidth characters, 0 for NUL and combining
// marks, -1 for control characters, 1 otherwise. The wide ranges are the
// main blocks of Unicode's East Asian Width tables that PostgreSQL generates
// its table from.
func utf8DisplayWidth(s []byte) int {
	c := utf8ToUnicode(s)
	switch {
	case c == 0:
		return 0
	case c < 0x20 || (c >= 0x7f && c < 0xa0) || c > 0x10ffff:
		return -1
	case c >= 0x0300 && c <= 0x036f, c >= 0x200b && c <= 0x200f, c >= 0xfe20 && c <= 0xfe2f:
		return 0
	}
	for _, r := range wideRanges {
		if c >= r[0] && c <= r[1] {
			return 2
		}
	}
	return 1
}

// wideRanges are East Asian wide (W) and fullwidth (F) characters.
var wideRanges = [...][2]rune{
	{0x1100, 0x115f}, {0x231a, 0x231b}, {0x2329, 0x232a}, {0x23e9, 0x23ec},
	{0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff},
	{0xa000, 0xa4cf}, {0xa960, 0xa97f}, {0xac00, 0xd7a3}, {0xf900, 0xfaff},
	{0xfe10, 0xfe19}, {0xfe30, 0xfe6f}, {0xff00, 0xff60}, {0xffe0, 0xffe6},
	{0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
}

// utf8ToUnicode is PostgreSQL's utf8_to_unicode: decodes by the lead byte
// without validating the continuation bytes; 0xffffffff (no character) when
// the sequence is cut short or the lead byte is invalid.
func utf8ToUnicode(s []byte) rune {
	c := s[0]
	switch {
	case c&0x80 == 0:
		return rune(c)
	case c&0xe0 == 0xc0 && len(s) >= 2:
		return rune(c&0x1f)<<6 | rune(s[1]&0x3f)
	case c&0xf0 == 0xe0 && len(s) >= 3:
		return rune(c&0x0f)<<12 | rune(s[1]&0x3f)<<6 | rune(s[2]&0x3f)
	case c&0xf8 == 0xf0 && len(s) >= 4:
		return rune(c&0x07)<<18 | rune(s[1]&0x3f)<<12 | rune(s[2]&0x3f)<<6 | rune(s[3]&0x3f)
	}
	return 0x7fffffff
}

// connectErrorMessage is libpq's conn->errorMessage after a failed
// connection: one message per server address tried, in order.
func connectErrorMessage(ce *pgconn.ConnectError) string {
	atts := connectAttempts(ce)
	if len(atts) == 0 {
		return otherErrorMessage(ce.Unwrap())
	}
	var b strings.Builder
	for _, a := range atts {
		b.WriteString(a.libpq)
	}
	return b.String()
}

// attempt is one server address tried (or one name looked up): libpq's
// text for it, the cause, and the address.
type attempt struct {
	libpq    string // libpq's message for this attempt, ending in "\n"
	identity string // emitHostIdentityInfo's prefix; "" for a failed lookup or an error of no address
	addr     string // the address dialled ("" when none)
	host     string // the host name given for it
	cause    error  // what went wrong (a *pgconn.PgError, a *net.DNSError, a dial error, …)
	noPass   bool   // the server asked for a password and none was given (libpq: fe_sendauth)
}

// connectAttempts lists what libpq would report of a failed connection:
// one attempt per address, without pgconn's TLS refusals that libpq would
// not show (sslmode=prefer) and without repeats.
func connectAttempts(ce *pgconn.ConnectError) []attempt {
	var hosts []string // the host names as given, to recognise them in error texts
	noPassword := false
	if ce.Config != nil {
		hosts = append(hosts, ce.Config.Host)
		for _, fb := range ce.Config.Fallbacks {
			if fb != nil {
				hosts = append(hosts, fb.Host)
			}
		}
		noPassword = ce.Config.Password == ""
	}
	errs := flattenConnectErrors(ce.Unwrap())

	var out []attempt
	last := ""
	lookups := map[string]bool{}
	for i, e := range errs {
		var a attempt
		var dnsErr *net.DNSError
		if addr, host, cause, ok := dialAttempt(e, hosts); ok {
			// sslmode=prefer: pgconn tries TLS first and then, as a second
			// attempt, without; libpq falls back silently on the same
			// connection. Drop the TLS refusal when another attempt on the
			// same address follows.
			if isTLSRefusal(cause) && laterAttemptAt(errs[i+1:], addr, hosts) {
				continue
			}
			a = attempt{identity: hostIdentity(addr, host), addr: addr, host: host, cause: cause}
			reason := attemptReason(addr, cause)
			if noPassword && isPasswordFailure(cause) {
				// libpq does not send an empty password: it stops with
				// PQnoPasswordSupplied; pgconn sends one and the server refuses it.
				a.noPass = true
				reason = noPasswordMessage
			}
			a.libpq = a.identity + reason
		} else if errors.As(e, &dnsErr) {
			if lookups[dnsErr.Name] {
				continue // the same name is looked up for each TLS variant
			}
			lookups[dnsErr.Name] = true
			a = attempt{host: dnsErr.Name, cause: dnsErr,
				libpq: "could not translate host name \"" + dnsErr.Name + "\" to address: " + gaiError(dnsErr) + "\n"}
		} else if pe := (*pgconn.PgError)(nil); errors.As(e, &pe) {
			a = attempt{cause: pe, libpq: string(appendPgError(nil, pe, ""))} // e.g. from AfterConnect
		} else {
			a = attempt{cause: e, libpq: otherErrorMessage(e)}
		}
		if a.libpq == last {
			continue // pgconn's TLS and plain attempts failed alike
		}
		out = append(out, a)
		last = a.libpq
	}
	return out
}

// noPasswordMessage is libpq's PQnoPasswordSupplied.
const noPasswordMessage = "fe_sendauth: no password supplied\n"

// isPasswordFailure: the server refused the password (28P01).
func isPasswordFailure(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "28P01"
}

// flattenConnectErrors lists the attempts in a ConnectError's cause: pgconn
// joins one error per address tried (errors.Join), behind a "hostname
// resolving error: %w" wrapper when no name could be resolved.
func flattenConnectErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flattenConnectErrors(e)...)
		}
		return out
	}
	if _, ok := perDialFields(err); ok {
		return []error{err}
	}
	if _, ok := err.(*net.DNSError); ok {
		return []error{err}
	}
	if u := errors.Unwrap(err); u != nil {
		if _, ok := u.(interface{ Unwrap() []error }); ok {
			return flattenConnectErrors(u)
		}
		if _, ok := u.(*net.DNSError); ok {
			return []error{u}
		}
	}
	return []error{err}
}

// dialAttempt takes apart one of pgconn's per-address errors: the address
// dialled ("/dir/.s.PGSQL.5432" or "ip:port"), the host name it came from,
// and the cause (pgconn's "what: %w" wrapper of the underlying error).
func dialAttempt(err error, hosts []string) (addr, host string, cause error, ok bool) {
	f, ok := perDialFields(err)
	if !ok {
		return "", "", nil, false
	}
	cause = errors.Unwrap(err)
	if f.address != "" {
		return f.address, f.originalHostname, cause, true
	}
	// Unknown layout: "ADDRESS (HOST): CAUSE", with HOST one of those given.
	if cause == nil {
		return "", "", nil, false
	}
	prefix, found := strings.CutSuffix(err.Error(), ": "+cause.Error())
	if !found {
		return "", "", nil, false
	}
	for _, h := range hosts {
		if a, found := strings.CutSuffix(prefix, " ("+h+")"); found {
			return a, h, cause, true
		}
	}
	return "", "", nil, false
}

type perDial struct{ address, originalHostname string }

// perDialFields recognises pgconn's unexported perDialConnectError and reads
// its address and originalHostname (by reflection, read-only). ok with empty
// fields means the type is there but its layout is not the one expected.
func perDialFields(err error) (perDial, bool) {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return perDial{}, false
	}
	t := v.Elem().Type()
	if t.Name() != "perDialConnectError" || !strings.HasSuffix(t.PkgPath(), "/pgconn") {
		return perDial{}, false
	}
	get := func(name string) string {
		f := v.Elem().FieldByName(name)
		if !f.IsValid() || f.Kind() != reflect.String {
			return ""
		}
		return f.String()
	}
	return perDial{address: get("address"), originalHostname: get("originalHostname")}, true
}

// hostIdentity is emitHostIdentityInfo: which server the message is about.
// The looked-up IP address is shown after the host name when they differ.
func hostIdentity(addr, host string) string {
	if strings.HasPrefix(addr, "/") || strings.HasPrefix(addr, "@") {
		return "connection to server on socket \"" + addr + "\" failed: "
	}
	ip, port, err := net.SplitHostPort(addr)
	if err != nil {
		ip, port = addr, "5432"
	}
	if host != "" && host != ip {
		return "connection to server at \"" + host + "\" (" + ip + "), port " + port + " failed: "
	}
	return "connection to server at \"" + ip + "\", port " + port + " failed: "
}

// attemptReason is what libpq appends after the host identity.
func attemptReason(addr string, cause error) string {
	var pe *pgconn.PgError
	if errors.As(cause, &pe) {
		return string(appendPgError(nil, pe, ""))
	}
	if pgconn.Timeout(cause) {
		return "timeout expired\n"
	}
	if isTLSRefusal(cause) {
		return "server does not support SSL, but SSL was required\n"
	}
	var op *net.OpError
	var errno syscall.Errno
	if errors.As(cause, &op) && op.Op == "dial" && errors.As(cause, &errno) {
		// connectFailureMessage: strerror and a hint on what to check.
		hint := "\tIs the server running on that host and accepting TCP/IP connections?\n"
		if strings.HasPrefix(addr, "/") || strings.HasPrefix(addr, "@") {
			hint = "\tIs the server running locally and accepting connections on that socket?\n"
		}
		return strerror(errno) + "\n" + hint
	}
	if isConnectionLost(cause) {
		return serverClosedMessage
	}
	msg := cause.Error()
	if u := errors.Unwrap(cause); u != nil {
		msg = u.Error() // drop pgconn's "what:" wrapper
	}
	return msg + "\n"
}

// isTLSRefusal reports pgconn's "server refused TLS connection" (the server
// answered 'N' to SSLRequest).
func isTLSRefusal(err error) bool {
	return err != nil && strings.HasSuffix(err.Error(), "server refused TLS connection")
}

func laterAttemptAt(rest []error, addr string, hosts []string) bool {
	for _, e := range rest {
		if a, _, _, ok := dialAttempt(e, hosts); ok && a == addr {
			return true
		}
	}
	return false
}

// gaiError is gai_strerror for a failed lookup: EAI_NONAME for an unknown
// name, EAI_AGAIN otherwise.
func gaiError(e *net.DNSError) string {
	if e.IsNotFound {
		return "Name or service not known"
	}
	return "Temporary failure in name resolution"
}

// serverClosedMessage is libpq's text when the connection is lost.
const serverClosedMessage = "server closed the connection unexpectedly\n" +
	"\tThis probably means the server terminated abnormally\n" +
	"\tbefore or while processing the request.\n"

func isConnectionLost(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// otherErrorMessage covers errors that are neither the server's nor a
// connection attempt's: a lost connection reads as libpq's, a closed one as
// "no connection to the server", anything else as the driver's text.
func otherErrorMessage(err error) string {
	switch {
	case isConnectionLost(err):
		return serverClosedMessage
	case errors.Is(err, pgconn.ErrConnClosed):
		return "no connection to the server\n"
	}
	return err.Error() + "\n"
}

// parseConfigMessage is a bad connection string's message without the
// string itself (it may hold a password that pgconn could not mask).
func parseConfigMessage(e *pgconn.ParseConfigError) string {
	s := e.Error()
	if i := strings.LastIndex(s, "`: "); i >= 0 {
		s = s[i+len("`: "):]
	}
	return s + "\n"
}
