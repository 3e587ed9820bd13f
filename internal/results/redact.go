package results

import (
	"strings"
)

// RedactArgs returns a copy of a command line with passwords removed, for
// run.json, logs and reports:
//
//   - in conninfo words ("host=db password=secret", quoted values too), every
//     keyword ending in "password" (password, sslpassword, …) is removed with
//     its value;
//   - in postgres:// and postgresql:// URIs, the password of the user info is
//     removed (the user is kept) and so are password query parameters;
//   - an argument "--password=VALUE" is removed.
//
// A bare "--password" or "-W" is kept and the next argument is not touched:
// in pgbench and psql they take no value (they force a password prompt).
// Arguments stay in place, so a positional conninfo that held only a
// password becomes "".
func RedactArgs(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		if strings.HasPrefix(strings.ToLower(a), "--password=") {
			continue
		}
		out = append(out, redactConninfo(redactURIs(a)))
	}
	return out
}

// isPasswordKey reports whether a conninfo keyword or URI parameter names a
// password.
func isPasswordKey(key string) bool {
	return strings.HasSuffix(strings.ToLower(key), "password")
}

// redactURIs removes the password from every postgres:// or postgresql://
// URI in s: user:password@ becomes user@, and password=… query parameters
// are dropped.
func redactURIs(s string) string {
	var b strings.Builder
	for {
		i, n := findURI(s)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+n]) // up to and including "scheme://"
		s = s[i+n:]
		// The URI runs to the next white space or quote.
		end := strings.IndexAny(s, " \t\r\n'\"")
		if end < 0 {
			end = len(s)
		}
		b.WriteString(redactURIRest(s[:end]))
		s = s[end:]
	}
}

// findURI finds the first "postgresql://" or "postgres://" in s (any case)
// and returns its index and length, or -1.
func findURI(s string) (int, int) {
	lower := strings.ToLower(s)
	i := strings.Index(lower, "postgres")
	for i >= 0 {
		rest := lower[i:]
		switch {
		case strings.HasPrefix(rest, "postgresql://"):
			return i, len("postgresql://")
		case strings.HasPrefix(rest, "postgres://"):
			return i, len("postgres://")
		}
		j := strings.Index(lower[i+1:], "postgres")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return -1, 0
}

// redactURIRest redacts the part of a URI after "scheme://":
// [user[:password]@]hosts[/db][?params][#fragment].
func redactURIRest(u string) string {
	authEnd := strings.IndexAny(u, "/?#")
	if authEnd < 0 {
		authEnd = len(u)
	}
	auth, rest := u[:authEnd], u[authEnd:]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		if colon := strings.IndexByte(auth[:at], ':'); colon >= 0 {
			auth = auth[:colon] + auth[at:]
		}
	}
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return auth + rest
	}
	path, query, frag := rest[:q], rest[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, frag = query[:h], query[h:]
	}
	var kept []string
	for _, p := range strings.Split(query, "&") {
		key, _, _ := strings.Cut(p, "=")
		if !isPasswordKey(key) {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return auth + path + frag
	}
	return auth + path + "?" + strings.Join(kept, "&") + frag
}

// redactConninfo removes every password keyword and its value from the
// conninfo words in s, parsing values as libpq does (single quotes,
// backslash escapes). Text that is not keyword=value is kept as it is; an
// unquoted value is itself redacted, so "--dsn=password=x" loses its
// password too.
func redactConninfo(s string) string {
	if !strings.Contains(strings.ToLower(s), "password") {
		return s
	}
	var b strings.Builder
	i := 0
	for i < len(s) {
		if isSpace(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		// keyword: up to '=' or white space.
		start := i
		for i < len(s) && s[i] != '=' && !isSpace(s[i]) {
			i++
		}
		key := s[start:i]
		// optional white space, then '='.
		j := i
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j == len(s) || s[j] != '=' {
			b.WriteString(key) // not keyword=value
			continue
		}
		j++
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		valStart := j
		quoted := j < len(s) && s[j] == '\''
		j = valueEnd(s, j)
		if isPasswordKey(key) {
			i = j
			// Drop the white space after the pair, or, at the end, before it.
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i == len(s) {
				trimmed := strings.TrimRight(b.String(), " \t\r\n")
				b.Reset()
				b.WriteString(trimmed)
			}
			continue
		}
		b.WriteString(s[start:valStart])
		if quoted {
			b.WriteString(s[valStart:j])
		} else {
			b.WriteString(redactConninfo(s[valStart:j]))
		}
		i = j
	}
	return b.String()
}

// valueEnd returns the end of the conninfo value starting at s[i]: a quoted
// value ends after its closing quote, an unquoted one at white space; a
// backslash escapes the next byte in both.
func valueEnd(s string, i int) int {
	if i < len(s) && s[i] == '\'' {
		for i++; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '\'':
				return i + 1
			}
		}
		return len(s)
	}
	for ; i < len(s) && !isSpace(s[i]); i++ {
		if s[i] == '\\' {
			i++
		}
	}
	return min(i, len(s))
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
