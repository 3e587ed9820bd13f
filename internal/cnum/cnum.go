// Package cnum reads numbers the way the C library does (glibc, C locale): strtol,
// atoi, strtod and atof, with their leniencies (leading blanks, partial parses, "" as
// 0) and their errors (ERANGE). pgbench parses options and script values with them,
// and what a command line or a script means must not change between pgbench and
// pgtrial.
package cnum

import (
	"math"
	"math/big"
	"strconv"
)

// IsSpace is isspace() in the C locale.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// SignStart is where the digits of a C number in s may start, as strtol and
// strtod see it: the index after leading white space and an optional sign,
// and whether that sign is '-'.
func SignStart(s string) (i int, neg bool) {
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	return i, neg
}

// ExponentEnd is the end of an exponent whose marker ('e' or 'p') is at j:
// past its optional sign and its digits; j itself when no digit follows
// (the marker is then no part of the number).
func ExponentEnd(s string, j int) int {
	k := j + 1
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		k++
	}
	if k >= len(s) || !isDigit(s[k]) {
		return j
	}
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	return k
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// ToLower is tolower() in the C locale.
func ToLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// HasPrefixFold reports whether s[i:] starts with the lower-case ASCII word w,
// ignoring case.
func HasPrefixFold(s string, i int, w string) bool {
	if len(s)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if ToLower(s[i+k]) != w[k] {
			return false
		}
	}
	return true
}

// Strtol is C's strtol(s, &end, 10) with a 64-bit long: it returns the value, the
// index of the first unparsed byte (0 when no digits were found) and whether the value
// overflowed (errno == ERANGE; the value is then clamped).
func Strtol(s string) (val int64, end int, overflow bool) {
	i, neg := SignStart(s)
	start := i
	var u uint64 // magnitude, saturated
	const limit = uint64(math.MaxInt64) + 1
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		d := uint64(s[i] - '0')
		if u > (limit-d)/10 {
			overflow = true
		} else {
			u = u*10 + d
		}
		i++
	}
	if i == start {
		return 0, 0, false
	}
	switch {
	case neg && (overflow || u > limit):
		return math.MinInt64, i, true
	case neg:
		return int64(-u), i, false // u == limit wraps to MinInt64, which is right
	case overflow || u > math.MaxInt64:
		return math.MaxInt64, i, true
	}
	return int64(u), i, false
}

// Atoi is C's atoi on a platform with a 32-bit int and a 64-bit long: (int) strtol,
// so junk is 0 and an out-of-range value keeps its low 32 bits.
func Atoi(s string) int32 {
	v, _, _ := Strtol(s)
	return int32(v)
}

// Atof is C's atof: Strtod's value, 0 when no number was found.
func Atof(s string) float64 {
	f, _, _ := Strtod(s)
	return f
}

// Strtod is glibc's strtod: it returns the value, the number of bytes
// consumed (0 when no number was found) and whether errno would be ERANGE.
// Accepted: leading C white space, a sign, "inf", "infinity", "nan",
// "nan(chars)" (any case), hexadecimal "0x" mantissas with an optional binary
// exponent, and decimal numbers. ERANGE is set on overflow to ±Inf and on
// underflow (a result that is subnormal or zero although the input is
// non-zero) unless the result is exact, as glibc does.
func Strtod(s string) (float64, int, bool) {
	i, neg := SignStart(s)
	sign := 1.0
	if neg {
		sign = -1
	}
	switch {
	case HasPrefixFold(s, i, "inf"):
		n := i + 3
		if HasPrefixFold(s, i, "infinity") {
			n = i + 8
		}
		return math.Inf(int(sign)), n, false
	case HasPrefixFold(s, i, "nan"):
		n := i + 3
		if n < len(s) && s[n] == '(' {
			k := n + 1
			for k < len(s) && (isDigit(s[k]) || s[k] == '_' ||
				(ToLower(s[k]) >= 'a' && ToLower(s[k]) <= 'z')) {
				k++
			}
			if k < len(s) && s[k] == ')' {
				n = k + 1
			}
		}
		return math.Copysign(math.NaN(), sign), n, false
	}
	start := i
	if i+1 < len(s) && s[i] == '0' && ToLower(s[i+1]) == 'x' &&
		(i+2 < len(s) && (isHexDigit(s[i+2]) || (s[i+2] == '.' && i+3 < len(s) && isHexDigit(s[i+3])))) {
		// Hexadecimal: 0x h* [. h*] [p [+-] d+]
		j := i + 2
		nonzero := false
		for j < len(s) && isHexDigit(s[j]) {
			nonzero = nonzero || s[j] != '0'
			j++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && isHexDigit(s[j]) {
				nonzero = nonzero || s[j] != '0'
				j++
			}
		}
		mant := s[start:j]
		exp := "p0"
		if j < len(s) && ToLower(s[j]) == 'p' {
			if k := ExponentEnd(s, j); k > j {
				exp = s[j:k]
				j = k
			}
		}
		f, erange := parseChecked(mant+exp, nonzero)
		return sign * f, j, erange
	}
	// Decimal: d* [. d*] with at least one digit, then [e [+-] d+].
	j := i
	digits := 0
	nonzero := false
	for j < len(s) && isDigit(s[j]) {
		nonzero = nonzero || s[j] != '0'
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			nonzero = nonzero || s[j] != '0'
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if j < len(s) && ToLower(s[j]) == 'e' {
		j = ExponentEnd(s, j)
	}
	f, erange := parseChecked(s[start:j], nonzero)
	return sign * f, j, erange
}

// parseChecked converts a syntactically valid unsigned decimal or "0x…p…"
// number and reports glibc's ERANGE condition.
func parseChecked(num string, nonzero bool) (float64, bool) {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true // overflow to Inf
		}
		return 0, true // cannot happen for validated input
	}
	if nonzero && math.Abs(f) < 0x1p-1022 {
		// Tiny result: glibc reports ERANGE unless it is exact.
		bf, _, err := big.ParseFloat(num, 0, 64, big.ToNearestEven)
		if err != nil || bf.Acc() != big.Exact {
			return f, true
		}
		g, acc := bf.Float64()
		return f, !(acc == big.Exact && g == f)
	}
	return f, false
}
