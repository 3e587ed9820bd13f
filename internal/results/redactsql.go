package results

import "strings"

// Redacted replaces a string literal (or a comment) that may hold a secret
// in a statement's text.
const Redacted = "'<redacted>'"

// redactedComment replaces a comment that mentions a password.
const redactedComment = "/* <redacted> */"

// RedactSQL returns a statement's text with every string literal that may
// hold a password replaced by Redacted, for statements.csv, run.json and
// reports. pg_stat_statements replaces the constants of plannable
// statements by $1, but keeps utility statements (ALTER ROLE, CREATE USER
// MAPPING, …) as they were sent, so their literals are the secrets. A
// literal is redacted when
//
//   - it follows a word ending in "password" (PASSWORD, ENCRYPTED PASSWORD,
//     an OPTIONS (password '…') or sslpassword option; quoted or not,
//     optionally with "=" between);
//   - the statement is CREATE or ALTER of a ROLE, USER, GROUP, USER MAPPING,
//     SERVER, SUBSCRIPTION or FOREIGN DATA WRAPPER (every literal: VALID
//     UNTIL's too, the price of not knowing every option of every FDW);
//   - its text mentions "password" (a DO block or a function body running
//     ALTER ROLE … PASSWORD, a conninfo in CREATE SUBSCRIPTION … CONNECTION
//     or dblink), or it is a password hash (SCRAM-SHA-256$…, md5 + 32 hex
//     digits).
//
// A comment that mentions "password" is replaced too. Where a '…' literal
// ends depends on standard_conforming_strings (on: a doubled quote is the
// only escape; off: a backslash escapes too), which another session may
// have turned off: the text is read both ways, and a byte is kept only
// when neither reading redacts it (adjacent redacted spans become one
// Redacted). An unterminated literal (a text cut at 1000 characters) runs
// to the end. RedactSQL never fails: text it cannot parse is copied, and
// what could be inside a literal is treated as one.
func RedactSQL(sql string) string {
	if sql == "" {
		return ""
	}
	// mask[i]: 0 keep, maskComment: inside a redacted comment, maskLiteral:
	// inside a redacted literal.
	mask := make([]byte, len(sql))
	redactSpans(sql, false, mask)
	redactSpans(sql, true, mask)
	var b strings.Builder
	b.Grow(len(sql))
	for i := 0; i < len(sql); {
		if mask[i] == 0 {
			j := i
			for j < len(sql) && mask[j] == 0 {
				j++
			}
			b.WriteString(sql[i:j])
			i = j
			continue
		}
		j, kind := i, byte(0)
		for j < len(sql) && mask[j] != 0 {
			kind = max(kind, mask[j])
			j++
		}
		if kind == maskLiteral {
			b.WriteString(Redacted)
		} else {
			b.WriteString(redactedComment)
		}
		i = j
	}
	return b.String()
}

// Marks of redactSpans' mask.
const (
	maskComment = 1
	maskLiteral = 2
)

// redactSpans marks in mask the bytes of sql's literals and comments that
// RedactSQL replaces, reading '…' literals with backslash escapes or
// without.
func redactSpans(sql string, backslashes bool, mask []byte) {
	toks := sqlTokens(sql, backslashes)
	sensitive := sensitiveStatement(sql, toks)
	afterPassword := false // the previous significant token names a password
	for _, t := range toks {
		text := sql[t.start:t.end]
		var m byte
		switch t.kind {
		case tokLiteral:
			if sensitive || afterPassword || mentionsPassword(text) || isPasswordHash(text) {
				m = maskLiteral
			}
			afterPassword = false
		case tokComment:
			if mentionsPassword(text) {
				m = maskComment
			}
		case tokSpace:
		case tokWord, tokQuotedIdent:
			afterPassword = isPasswordKey(strings.Trim(text, `"`))
		default: // tokOther
			if text != "=" && text != "(" {
				afterPassword = false
			}
		}
		if m != 0 {
			for i := t.start; i < t.end; i++ {
				mask[i] = max(mask[i], m)
			}
		}
	}
}

func mentionsPassword(s string) bool {
	return strings.Contains(strings.ToLower(s), "password")
}

// isPasswordHash reports whether a literal's text is a stored password's
// form: 'SCRAM-SHA-256$…' or 'md5' followed by 32 hex digits.
func isPasswordHash(lit string) bool {
	s := literalBody(lit)
	if strings.HasPrefix(strings.ToUpper(s), "SCRAM-SHA-256$") {
		return true
	}
	if len(s) < 35 || !strings.EqualFold(s[:3], "md5") {
		return false
	}
	for i := 3; i < 35; i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

// literalBody is a literal's text after its opening quote or dollar tag
// (escapes left as they are).
func literalBody(lit string) string {
	if strings.HasPrefix(lit, "$") {
		if i := strings.IndexByte(lit[1:], '$'); i >= 0 {
			return lit[i+2:]
		}
		return ""
	}
	if i := strings.IndexByte(lit, '\''); i >= 0 {
		return lit[i+1:]
	}
	return lit
}

// sensitiveStatement reports whether the statement creates or alters a
// role, user, group, user mapping, server, subscription or foreign-data
// wrapper: its first words (comments and white space aside) are CREATE or
// ALTER and one of those.
func sensitiveStatement(sql string, toks []sqlToken) bool {
	var words []string
	for _, t := range toks {
		if t.kind == tokSpace || t.kind == tokComment {
			continue
		}
		if t.kind != tokWord {
			break
		}
		words = append(words, strings.ToLower(sql[t.start:t.end]))
		if len(words) == 2 {
			break
		}
	}
	if len(words) < 2 || (words[0] != "create" && words[0] != "alter") {
		return false
	}
	switch words[1] {
	case "role", "user", "group", "server", "subscription", "foreign":
		return true
	}
	return false
}

// Token kinds of sqlTokens.
const (
	tokSpace       = iota // white space
	tokComment            // -- … or /* … */ (nested)
	tokLiteral            // '…', E'…', U&'…', B'…', X'…', N'…', $tag$…$tag$
	tokQuotedIdent        // "…"
	tokWord               // an identifier or a keyword
	tokOther              // anything else, one byte (or a $1 parameter)
)

type sqlToken struct {
	kind       int
	start, end int // byte offsets
}

// sqlTokens splits sql into tokens that cover it exactly, in order.
func sqlTokens(sql string, backslashes bool) []sqlToken {
	var toks []sqlToken
	i := 0
	for i < len(sql) {
		start := i
		c := sql[i]
		kind := tokOther
		switch {
		case isSpace(c):
			for i < len(sql) && isSpace(sql[i]) {
				i++
			}
			kind = tokSpace
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(sql)
			}
			kind = tokComment
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			i = blockCommentEnd(sql, i)
			kind = tokComment
		case c == '\'':
			i = quoteEnd(sql, i, '\'', backslashes)
			kind = tokLiteral
		case c == '"':
			i = quotedIdentEnd(sql, i)
			kind = tokQuotedIdent
		case c == '$':
			if end, ok := dollarQuoteEnd(sql, i); ok {
				i, kind = end, tokLiteral
			} else {
				i++
				for i < len(sql) && sql[i] >= '0' && sql[i] <= '9' {
					i++ // a parameter $n
				}
			}
		case isIdentStart(c):
			for i < len(sql) && isIdentChar(sql[i]) {
				i++
			}
			kind = tokWord
			// A prefix glued to a quote: E'…', U&'…', B'…', X'…', N'…'.
			word := sql[start:i]
			switch {
			case i < len(sql) && sql[i] == '\'' && len(word) == 1 && (word[0] == 'e' || word[0] == 'E'):
				i, kind = quoteEnd(sql, i, '\'', true), tokLiteral // E'…' has backslash escapes
			case i < len(sql) && sql[i] == '\'' && len(word) == 1 && strings.ContainsRune("bBxXnN", rune(word[0])):
				i, kind = quoteEnd(sql, i, '\'', backslashes), tokLiteral
			case len(word) == 1 && (word[0] == 'u' || word[0] == 'U') && strings.HasPrefix(sql[i:], "&'"):
				i, kind = quoteEnd(sql, i+1, '\'', backslashes), tokLiteral
			}
		default:
			i++
		}
		toks = append(toks, sqlToken{kind: kind, start: start, end: i})
	}
	return toks
}

// quoteEnd is the end of the quoted text opened by q at sql[i]: after the
// closing q (a doubled q is part of the text; with backslashes, a
// backslash escapes the next byte), or len(sql).
func quoteEnd(sql string, i int, q byte, backslashes bool) int {
	for i++; i < len(sql); i++ {
		switch sql[i] {
		case '\\':
			if backslashes {
				i++
			}
		case q:
			if i+1 < len(sql) && sql[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(sql)
}

func quotedIdentEnd(sql string, i int) int { return quoteEnd(sql, i, '"', false) }

// blockCommentEnd is the end of the /* … */ comment at sql[i] (comments
// nest, as in PostgreSQL), or len(sql).
func blockCommentEnd(sql string, i int) int {
	depth := 0
	for i < len(sql) {
		switch {
		case strings.HasPrefix(sql[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(sql[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(sql)
}

// dollarQuoteEnd is the end of the $tag$…$tag$ literal at sql[i] (a tag
// is empty or an identifier without $; a $ inside an identifier starts
// none: the tokenizer reads identifiers whole), or false when sql[i] does
// not open one ($1 is a parameter). Unterminated: len(sql).
func dollarQuoteEnd(sql string, i int) (int, bool) {
	j := i + 1
	if j < len(sql) && isIdentStart(sql[j]) {
		for j < len(sql) && isIdentChar(sql[j]) && sql[j] != '$' {
			j++
		}
	}
	if j >= len(sql) || sql[j] != '$' {
		return 0, false
	}
	tag := sql[i : j+1]
	if k := strings.Index(sql[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag), true
	}
	return len(sql), true
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9') || c == '$'
}
