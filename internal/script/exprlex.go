package script

import (
	"math"

	"github.com/pgtrial/pgtrial/internal/cnum"
)

// This file is pgbench's exprscan.l: the lexer for backslash commands, in
// its two modes. Word mode splits a command line into white-space separated
// words; expression mode produces the tokens of \set, \if and \elif
// expressions. Both stop at a newline, and a backslash-newline continues the
// line.

// isMetaSpace is exprscan.l's {space}: [ \t\r\f\v] (newline is separate).
func isMetaSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

// continuation returns the length of a line continuation (backslash, optional
// CR, newline) at i, or 0.
func continuation(src string, i int) int {
	if i < len(src) && src[i] == '\\' {
		if i+1 < len(src) && src[i+1] == '\n' {
			return 2
		}
		if i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n' {
			return 3
		}
	}
	return 0
}

// skipBlanks is the index of the first byte at or after i that is neither
// white space other than a newline nor a line continuation (or len(src)).
func skipBlanks(src string, i int) int {
	for i < len(src) {
		if isMetaSpace(src[i]) {
			i++
			continue
		}
		if k := continuation(src, i); k > 0 {
			i += k
			continue
		}
		break
	}
	return i
}

// lexWord is expr_lex_one_word: it skips blanks and continuations and
// returns the next word, its start offset and the position after it. At a
// newline (consumed) or the end of input it returns ok == false. A word
// directly followed by a continuation does not include the backslash.
func lexWord(src string, pos int) (word string, start, next int, ok bool) {
	i := skipBlanks(src, pos)
	if i >= len(src) {
		return "", -1, i, false
	}
	if src[i] == '\n' {
		return "", -1, i + 1, false
	}
	start = i
	for i < len(src) && !isMetaSpace(src[i]) && src[i] != '\n' {
		i++
	}
	end := i
	if end-start > 1 && src[end-1] == '\\' {
		// {nonspace}+{continuation} is a longer match than {nonspace}+.
		if k := continuation(src, end-1); k > 0 {
			return src[start : end-1], start, end - 1 + k, true
		}
	}
	return src[start:end], start, end, true
}

type tokKind uint8

const (
	tEnd tokKind = iota // newline or end of input
	tInt
	tMaxIntPlusOne // 9223372036854775808, valid only after unary minus
	tDouble
	tVar
	tFunc
	tNull
	tTrue
	tFalse
	tAnd
	tOr
	tNot
	tIs
	tIsNull
	tNotNull
	tCase
	tWhen
	tThen
	tElse
	tEndKw
	tPlus
	tMinus
	tStar
	tSlash
	tPercent
	tEq
	tNe
	tLt
	tLe
	tGt
	tGe
	tLs
	tRs
	tBar
	tAmp
	tHash
	tTilde
	tLParen
	tRParen
	tComma
	tError // a lexer error (unexpected character, constant overflow)
)

// token is one expression token; end is the offset just after it, which is
// what pgbench's error column is computed from.
type token struct {
	kind       tokKind
	start, end int
	text       string // variable name (without ':'), function name, error text
	ival       int64
	dval       float64
	msg        string // for tError
}

var exprKeywords = map[string]tokKind{
	"and": tAnd, "or": tOr, "not": tNot, "is": tIs, "isnull": tIsNull, "notnull": tNotNull,
	"case": tCase, "when": tWhen, "then": tThen, "else": tElse, "end": tEndKw,
	"null": tNull, "true": tTrue, "false": tFalse,
}

// keyword returns the keyword token for word (case-insensitive), or tFunc.
func keyword(word string) tokKind {
	if len(word) > 7 {
		return tFunc
	}
	var b [7]byte
	for i := 0; i < len(word); i++ {
		b[i] = cnum.ToLower(word[i])
	}
	if k, ok := exprKeywords[string(b[:len(word)])]; ok {
		return k
	}
	return tFunc
}

// exprLexer produces expression tokens from src, starting at pos, until the
// end of the line.
type exprLexer struct {
	src     string
	pos     int
	newline bool // the last token was the end of line (newline consumed)
}

func (lx *exprLexer) next() token {
	src := lx.src
	i := skipBlanks(src, lx.pos)
	if i >= len(src) {
		lx.pos = i
		// At the end of input flex's offset is the end of the buffer.
		return token{kind: tEnd, start: i, end: len(src)}
	}
	c := src[i]
	if c == '\n' {
		lx.pos = i + 1
		lx.newline = true
		return token{kind: tEnd, start: i, end: i + 1}
	}
	var c1 byte
	if i+1 < len(src) {
		c1 = src[i+1]
	}
	tok := token{start: i}
	two := func(k tokKind) token {
		tok.kind, tok.end = k, i+2
		return tok
	}
	one := func(k tokKind) token {
		tok.kind, tok.end = k, i+1
		return tok
	}
	var t token
	switch {
	case c == '+':
		t = one(tPlus)
	case c == '-':
		t = one(tMinus)
	case c == '*':
		t = one(tStar)
	case c == '/':
		t = one(tSlash)
	case c == '%':
		t = one(tPercent)
	case c == '=':
		t = one(tEq)
	case c == '<' && c1 == '>':
		t = two(tNe)
	case c == '!' && c1 == '=':
		t = two(tNe)
	case c == '<' && c1 == '=':
		t = two(tLe)
	case c == '>' && c1 == '=':
		t = two(tGe)
	case c == '<' && c1 == '<':
		t = two(tLs)
	case c == '>' && c1 == '>':
		t = two(tRs)
	case c == '<':
		t = one(tLt)
	case c == '>':
		t = one(tGt)
	case c == '|':
		t = one(tBar)
	case c == '&':
		t = one(tAmp)
	case c == '#':
		t = one(tHash)
	case c == '~':
		t = one(tTilde)
	case c == '(':
		t = one(tLParen)
	case c == ')':
		t = one(tRParen)
	case c == ',':
		t = one(tComma)
	case c == ':' && isVarChar(c1):
		j := i + 1
		for j < len(src) && isVarChar(src[j]) {
			j++
		}
		t = token{kind: tVar, start: i, end: j, text: src[i+1 : j]}
	case isDigit(c) || (c == '.' && isDigit(c1)):
		t = lexNumber(src, i)
	case isVarStart(c):
		j := i + 1
		for j < len(src) && isVarChar(src[j]) {
			j++
		}
		w := src[i:j]
		t = token{kind: keyword(w), start: i, end: j, text: w}
	default:
		t = token{kind: tError, start: i, end: i + 1, msg: "unexpected character", text: src[i : i+1]}
	}
	lx.pos = t.end
	return t
}

const maxIntPlusOne = "9223372036854775808"

// lexNumber lexes {digit}+ (an int), {digit}+(\.{digit}*)?([eE][-+]?{digit}+)?
// or \.{digit}+([eE][-+]?{digit}+)? (a double), the longest match winning
// and an all-digit match being an int. Overflow is a lexer error:
// "bigint constant overflow" or "double constant overflow" (strtod's ERANGE,
// which includes underflow).
func lexNumber(src string, i int) token {
	n := len(src)
	j := i
	for j < n && isDigit(src[j]) {
		j++
	}
	isDouble := false
	if j < n && src[j] == '.' && (j > i || (j+1 < n && isDigit(src[j+1]))) {
		isDouble = true
		j++
		for j < n && isDigit(src[j]) {
			j++
		}
	}
	if j < n && (src[j] == 'e' || src[j] == 'E') {
		if k := cnum.ExponentEnd(src, j); k > j {
			j = k
			isDouble = true
		}
	}
	text := src[i:j]
	if !isDouble {
		if text == maxIntPlusOne {
			return token{kind: tMaxIntPlusOne, start: i, end: j, text: text}
		}
		v, e := strtoint64(text)
		if e != intOK {
			return token{kind: tError, start: i, end: j, msg: "bigint constant overflow", text: text}
		}
		return token{kind: tInt, start: i, end: j, ival: v, text: text}
	}
	f, ok := strtodouble(text)
	if !ok {
		return token{kind: tError, start: i, end: j, msg: "double constant overflow", text: text}
	}
	return token{kind: tDouble, start: i, end: j, dval: f, text: text}
}

// minInt64 is PG_INT64_MIN.
const minInt64 = math.MinInt64
