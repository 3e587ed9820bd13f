package script

import (
	"strings"

	"github.com/pgtrial/pgtrial/internal/cnum"
)

// sqlScanner splits script text into SQL commands the way pgbench's use of
// psql's lexer (src/fe_utils/psqlscan.l) does, with standard_conforming_strings
// on. It only needs to know where commands end, so it tracks the lexical
// states that can hide a ';' or a '\': quoted strings ('…', E'…' with backslash
// escapes, B'…', X'…', N'…', U&'…'), quoted identifiers ("…", U&"…"), dollar
// quotes ($tag$…$tag$), nested /* */ comments and -- comments, plus
// parenthesis depth and the BEGIN … END depth of CREATE FUNCTION/PROCEDURE
// bodies (BEGIN ATOMIC).
//
// pgbench never resets the lexer between commands, so the parenthesis and
// BEGIN depths carry over from one command to the next, as here.
type sqlScanner struct {
	src        string
	parenDepth int
	beginDepth int
	identCount int
	idents     [4]byte // first letters of CREATE/OR/REPLACE/FUNCTION/PROCEDURE
}

type scanResult uint8

const (
	scanSemicolon scanResult = iota // a command-ending ';' (kept in the text)
	scanBackslash                   // a '\' starting a meta-command
	scanEOF                         // end of input
)

func isSQLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

func isIdentStart(c byte) bool {
	return c >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentCont(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

// scan lexes from pos, appending the command text to buf as psql_scan does:
// white space and -- comments are dropped while the buffer is empty (PG15+
// keeps them afterwards), "\;" and "\:" put a bare ';' or ':' into the text,
// and the terminating ';' is kept. It returns why it stopped, the position
// after the ';' or '\' (or the end), the buffer, and the source offset of
// the first byte appended (-1 if none).
func (s *sqlScanner) scan(pos int, buf []byte) (scanResult, int, []byte, int) {
	src := s.src
	n := len(src)
	first := -1
	emit := func(a, b int) {
		if first < 0 {
			first = a
		}
		buf = append(buf, src[a:b]...)
	}
	i := pos
	for i < n {
		c := src[i]
		var c1 byte
		if i+1 < n {
			c1 = src[i+1]
		}
		switch {
		case isSQLSpace(c):
			j := i + 1
			for j < n && isSQLSpace(src[j]) {
				j++
			}
			if len(buf) > 0 {
				emit(i, j)
			}
			i = j

		case c == '-' && c1 == '-':
			j := i + 2
			for j < n && src[j] != '\n' && src[j] != '\r' {
				j++
			}
			if len(buf) > 0 {
				emit(i, j)
			}
			i = j

		case c == '/' && c1 == '*':
			j := skipComment(src, i+2)
			emit(i, j)
			i = j

		case (c == 'b' || c == 'B' || c == 'x' || c == 'X') && c1 == '\'':
			j := skipQuoted(src, i+2, '\'', false)
			emit(i, j)
			i = j

		case (c == 'e' || c == 'E') && c1 == '\'':
			j := skipQuoted(src, i+2, '\'', true)
			emit(i, j)
			i = j

		case (c == 'n' || c == 'N') && c1 == '\'':
			// xnstart: only the N is taken; the quote starts a plain string.
			emit(i, i+1)
			i++

		case (c == 'u' || c == 'U') && c1 == '&':
			switch {
			case i+2 < n && src[i+2] == '\'':
				j := skipQuoted(src, i+3, '\'', false)
				emit(i, j)
				i = j
			case i+2 < n && src[i+2] == '"':
				j := skipQuoted(src, i+3, '"', false)
				emit(i, j)
				i = j
			default:
				// xufailed: the U alone, not an identifier.
				emit(i, i+1)
				i++
			}

		case c == '\'':
			j := skipQuoted(src, i+1, '\'', false)
			emit(i, j)
			i = j

		case c == '"':
			j := skipQuoted(src, i+1, '"', false)
			emit(i, j)
			i = j

		case c == '$':
			j := s.dollar(i)
			emit(i, j)
			i = j

		case isDigit(c) || (c == '.' && isDigit(c1)):
			j := skipJunk(src, skipNumber(src, i))
			emit(i, j)
			i = j

		case isIdentStart(c):
			j := i + 1
			for j < n && isIdentCont(src[j]) {
				j++
			}
			s.identifier(src[i:j])
			emit(i, j)
			i = j

		case c == '(':
			s.parenDepth++
			emit(i, i+1)
			i++

		case c == ')':
			if s.parenDepth > 0 {
				s.parenDepth--
			}
			emit(i, i+1)
			i++

		case c == ';':
			emit(i, i+1)
			i++
			if s.parenDepth == 0 && s.beginDepth == 0 {
				s.identCount = 0
				return scanSemicolon, i, buf, first
			}

		case c == '\\':
			if c1 == ';' || c1 == ':' {
				emit(i+1, i+2)
				if c1 == ';' {
					s.identCount = 0
				}
				i += 2
				continue
			}
			// pgbench 15 does not reset the CREATE FUNCTION tracking here:
			// "SELECT 1 \gset" followed by CREATE FUNCTION … BEGIN ATOMIC
			// splits the function body at its first ';'.
			return scanBackslash, i + 1, buf, first

		case c == ':':
			j := colonToken(src, i)
			emit(i, j)
			i = j

		default:
			emit(i, i+1)
			i++
		}
	}
	return scanEOF, n, buf, first
}

// skipComment returns the end of a /* comment whose body starts at i,
// honouring nesting; n if unterminated.
func skipComment(src string, i int) int {
	depth := 0
	for i < len(src) {
		switch {
		case src[i] == '/' && i+1 < len(src) && src[i+1] == '*':
			depth++
			i += 2
		case src[i] == '*' && i+1 < len(src) && src[i+1] == '/':
			i += 2
			if depth == 0 {
				return i
			}
			depth--
		default:
			i++
		}
	}
	return i
}

// skipQuoted returns the end of a quoted token whose body starts at i: q
// doubled is an embedded quote; with backslash, a backslash escapes the next
// byte (E'…'). Returns len(src) if unterminated.
func skipQuoted(src string, i int, q byte, backslash bool) int {
	for i < len(src) {
		c := src[i]
		switch {
		case backslash && c == '\\':
			i += 2
		case c == q:
			if i+1 < len(src) && src[i+1] == q {
				i += 2
				continue
			}
			return i + 1
		default:
			i++
		}
	}
	return len(src)
}

// skipNumber returns the end of a numeric literal at i: digits, an optional
// fraction (but "1..2" stops before the dots), an optional complete exponent.
func skipNumber(src string, i int) int {
	n := len(src)
	for i < n && isDigit(src[i]) {
		i++
	}
	if i < n && src[i] == '.' && !(i+1 < n && src[i+1] == '.') {
		i++
		for i < n && isDigit(src[i]) {
			i++
		}
	}
	if i < n && (src[i] == 'e' || src[i] == 'E') {
		i = cnum.ExponentEnd(src, i)
	}
	return i
}

// skipJunk extends a numeric literal or parameter ending at j over
// identifier characters glued to it, as the lexer's "trailing junk" rules
// do (1end, 1E'x', $1abc are single tokens, so the E does not start an E-quoted
// string and END is not a keyword), except after "1e+" or "1e-" without
// digits, which the lexer splits ("realfail").
func skipJunk(src string, j int) int {
	n := len(src)
	if j >= n || !isIdentStart(src[j]) {
		return j
	}
	if (src[j] == 'e' || src[j] == 'E') && j+1 < n && (src[j+1] == '+' || src[j+1] == '-') {
		return j
	}
	for j < n && isIdentCont(src[j]) {
		j++
	}
	return j
}

// dollar lexes a token starting with '$' at i: a dollar-quoted string
// ($tag$…$tag$, to the end if unterminated), a parameter ($1), or the lone
// '$' (including dolqfailed, "$abc" without closing '$', which gives back
// all but the '$').
func (s *sqlScanner) dollar(i int) int {
	src := s.src
	n := len(src)
	j := i + 1
	if j < n && isDigit(src[j]) {
		for j < n && isDigit(src[j]) {
			j++
		}
		return skipJunk(src, j)
	}
	if j < n && isIdentStart(src[j]) {
		for j < n && (isIdentStart(src[j]) || isDigit(src[j])) {
			j++
		}
	}
	if j < n && src[j] == '$' {
		tag := src[i : j+1]
		if k := strings.Index(src[j+1:], tag); k >= 0 {
			return j + 1 + k + len(tag)
		}
		return n
	}
	return i + 1
}

// colonToken lexes a token starting with ':' at i: "::", ":=", psql
// variable references :name, :'name', :"name" (kept as is, since pgbench
// gives psql's lexer no variables), or a lone ':'.
func colonToken(src string, i int) int {
	n := len(src)
	j := i + 1
	if j < n && (src[j] == ':' || src[j] == '=') {
		return j + 1
	}
	if j < n && (src[j] == '\'' || src[j] == '"') {
		q := src[j]
		k := j + 1
		for k < n && isVarChar(src[k]) {
			k++
		}
		if k > j+1 && k < n && src[k] == q {
			return k + 1
		}
		return j
	}
	for j < n && isVarChar(src[j]) {
		j++
	}
	return j
}

// identifier tracks CREATE [OR REPLACE] FUNCTION|PROCEDURE … BEGIN ATOMIC …
// END bodies, whose ';' do not end the command (psqlscan's heuristic: CASE
// inside a BEGIN also ends with END).
func (s *sqlScanner) identifier(word string) {
	if s.identCount == 0 {
		s.idents = [4]byte{}
	}
	if equalFold(word, "create") || equalFold(word, "function") || equalFold(word, "procedure") ||
		equalFold(word, "or") || equalFold(word, "replace") {
		if s.identCount < len(s.idents) {
			s.idents[s.identCount] = cnum.ToLower(word[0])
		}
	}
	s.identCount++
	id := s.idents
	if id[0] == 'c' && (id[1] == 'f' || id[1] == 'p' || (id[1] == 'o' && id[2] == 'r' && (id[3] == 'f' || id[3] == 'p'))) &&
		s.parenDepth == 0 {
		switch {
		case equalFold(word, "begin"):
			s.beginDepth++
		case equalFold(word, "case"):
			if s.beginDepth >= 1 {
				s.beginDepth++
			}
		case equalFold(word, "end"):
			if s.beginDepth > 0 {
				s.beginDepth--
			}
		}
	}
}
