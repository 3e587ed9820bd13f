package script

import (
	"math"
	"math/big"
	"strconv"
)

// This file reproduces the C library and pgbench number parsing that the
// script language depends on, byte for byte: isspace in the C locale,
// pgbench's strtoint64/is_an_int/strtodouble, glibc's strtod (including its
// ERANGE on underflow), atoi and strtol.

// isCSpace is isspace() in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

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
	for i < len(s) && isCSpace(s[i]) {
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
	for i < len(s) && isCSpace(s[i]) {
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
	for i < len(s) && isCSpace(s[i]) {
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

func isHexDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s[i:] starts with the lower-case ASCII word w,
// ignoring case.
func hasPrefixFold(s string, i int, w string) bool {
	if len(s)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if lowerASCII(s[i+k]) != w[k] {
			return false
		}
	}
	return true
}

// cStrtod is glibc's strtod: it returns the value, the number of bytes
// consumed (0 when no number was found) and whether errno would be ERANGE.
// Accepted: leading C white space, a sign, "inf", "infinity", "nan",
// "nan(chars)" (any case), hexadecimal "0x" mantissas with an optional binary
// exponent, and decimal numbers. ERANGE is set on overflow to ±Inf and on
// underflow (a result that is subnormal or zero although the input is
// non-zero) unless the result is exact, as glibc does.
func cStrtod(s string) (float64, int, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := 1.0
	if neg {
		sign = -1
	}
	switch {
	case hasPrefixFold(s, i, "inf"):
		n := i + 3
		if hasPrefixFold(s, i, "infinity") {
			n = i + 8
		}
		return math.Inf(int(sign)), n, false
	case hasPrefixFold(s, i, "nan"):
		n := i + 3
		if n < len(s) && s[n] == '(' {
			k := n + 1
			for k < len(s) && (isDigit(s[k]) || s[k] == '_' ||
				(lowerASCII(s[k]) >= 'a' && lowerASCII(s[k]) <= 'z')) {
				k++
			}
			if k < len(s) && s[k] == ')' {
				n = k + 1
			}
		}
		return math.Copysign(math.NaN(), sign), n, false
	}
	start := i
	if i+1 < len(s) && s[i] == '0' && lowerASCII(s[i+1]) == 'x' &&
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
		if j < len(s) && lowerASCII(s[j]) == 'p' {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && isDigit(s[k]) {
				for k < len(s) && isDigit(s[k]) {
					k++
				}
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
	if j < len(s) && lowerASCII(s[j]) == 'e' {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
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

// strtodouble is pgbench's strtodouble: strtod must consume the whole string
// without ERANGE.
func strtodouble(s string) (float64, bool) {
	f, n, erange := cStrtod(s)
	if erange || n == 0 || n != len(s) {
		return f, false
	}
	return f, true
}

// cStrtol is strtol(s, &end, 10) with glibc semantics: leading white space,
// a sign, digits; saturates at the int64 range. It returns the value and the
// number of bytes consumed (0 when there are no digits).
func cStrtol(s string) (int64, int) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, 0
	}
	var acc uint64
	over := false
	for i < len(s) && isDigit(s[i]) {
		d := uint64(s[i] - '0')
		if acc > (math.MaxUint64-d)/10 {
			over = true
		} else {
			acc = acc*10 + d
		}
		i++
	}
	switch {
	case neg && (over || acc > 1<<63):
		return math.MinInt64, i
	case neg:
		return -int64(acc), i
	case over || acc > math.MaxInt64:
		return math.MaxInt64, i
	}
	return int64(acc), i
}

// cAtoi is glibc's atoi: (int) strtol(s, NULL, 10), the cast keeping the low
// 32 bits.
func cAtoi(s string) int32 {
	v, _ := cStrtol(s)
	return int32(v)
}
