package script

import (
	"math"

	"github.com/pgtrial/pgtrial/internal/cnum"
)

// This file reproduces pgbench's own number parsing, byte for byte:
// strtoint64, is_an_int and strtodouble, on top of the C library's (package cnum).

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Errors of strtoint64.
type intErr uint8

const (
	intOK intErr = iota
	intRange
	intSyntax
)

// strtoint64 is pgbench's strtoint64 (PostgreSQL 15–18): leading C white
// space, an optional sign, at least one digit, optional trailing white space.
// The value is accumulated negatively so that −2^63 is accepted.
func strtoint64(s string) (int64, intErr) {
	i := 0
	for i < len(s) && cnum.IsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, intSyntax
	}
	var acc int64 // −|value|
	for i < len(s) && isDigit(s[i]) {
		d := int64(s[i] - '0')
		if acc < (math.MinInt64+d)/10 {
			return 0, intRange
		}
		acc = acc*10 - d
		i++
	}
	for i < len(s) && cnum.IsSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, intSyntax
	}
	if !neg {
		if acc == math.MinInt64 {
			return 0, intRange
		}
		acc = -acc
	}
	return acc, intOK
}

// isAnInt is pgbench's is_an_int: "^\s*[-+]?[0-9]+$", except that, as in
// pgbench, a string ending right after the white space or the sign ("-",
// "  ") also passes and then fails in strtoint64.
func isAnInt(s string) bool {
	i := 0
	for i < len(s) && cnum.IsSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i < len(s) && !isDigit(s[i]) {
		return false
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i == len(s)
}

// strtodouble is pgbench's strtodouble: strtod must consume the whole string
// without ERANGE.
func strtodouble(s string) (float64, bool) {
	f, n, erange := cnum.Strtod(s)
	if erange || n == 0 || n != len(s) {
		return f, false
	}
	return f, true
}
