package pgbenchfmt

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// pgbench reads numbers with the C library (strtol, atof, atoi) and with PostgreSQL's
// option_parse_int. The functions here reproduce what those accept, including their
// leniencies (leading blanks, trailing garbage for atof/atoi, "" as 0), because what a
// command line means must not change between pgbench and pgtrial.

// cIsSpace is C's isspace in the C locale.
func cIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// strtol is C's strtol(s, &end, 10) with a 64-bit long: it returns the value, the
// index of the first unparsed byte (0 when no digits were found) and whether the value
// overflowed (errno == ERANGE; the value is then clamped).
func strtol(s string) (val int64, end int, overflow bool) {
	i := 0
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
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

// optionParseInt is PostgreSQL's option_parse_int (fe_utils/option_utils.c): strtol
// into an int, trailing blanks allowed, anything else after the number is invalid, and
// the value must be in [min, max]. It returns pgbench's error text.
func optionParseInt(arg, optname string, min, max int) (int, error) {
	v, end, overflow := strtol(arg)
	for end < len(arg) && cIsSpace(arg[end]) {
		end++
	}
	if end != len(arg) {
		return 0, fmt.Errorf("invalid value \"%s\" for option %s", arg, optname)
	}
	// strtoint: a long that does not fit an int is ERANGE.
	if overflow || v != int64(int32(v)) || v < int64(min) || v > int64(max) {
		return 0, fmt.Errorf("%s must be in range %d..%d", optname, min, max)
	}
	return int(v), nil
}

// atoi is C's atoi on a platform with a 32-bit int and a 64-bit long: (int) strtol,
// so junk is 0 and an out-of-range value keeps its low 32 bits.
func atoi(s string) int32 {
	v, _, _ := strtol(s)
	return int32(v)
}

// atof is C's atof (strtod without an end pointer): the longest prefix that is a
// number, after leading blanks; 0 when there is none. It accepts what glibc's strtod
// accepts: decimal with optional exponent, hexadecimal ("0x1.8p3"), "inf",
// "infinity" and "nan" (with an optional "(chars)"), any case.
func atof(s string) float64 {
	i := 0
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	s = s[i:]
	sign := ""
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		sign = s[:1]
		s = s[1:]
	}
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "infinity"), strings.HasPrefix(lower, "inf"):
		if sign == "-" {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case strings.HasPrefix(lower, "nan"):
		return math.NaN()
	}
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isHex := func(c byte) bool { return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'f' }
	// scan reads digits[.digits] with the given digit class; n counts the digits.
	scan := func(s string, i int, class func(byte) bool) (end, n int) {
		for i < len(s) && class(s[i]) {
			i++
			n++
		}
		if i < len(s) && s[i] == '.' {
			i++
			for i < len(s) && class(s[i]) {
				i++
				n++
			}
		}
		return i, n
	}
	// exponent reads [eEpP][sign]digits at i if present.
	exponent := func(s string, i int, marker byte) int {
		if i < len(s) && s[i]|0x20 == marker {
			j := i + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if j < len(s) && isDigit(s[j]) {
				for j < len(s) && isDigit(s[j]) {
					j++
				}
				return j
			}
		}
		return i
	}
	if len(s) > 2 && s[0] == '0' && s[1]|0x20 == 'x' {
		if end, n := scan(s, 2, isHex); n > 0 {
			num := s[:end]
			if e := exponent(s, end, 'p'); e > end {
				num = s[:e]
			} else {
				num += "p0"
			}
			v, _ := strconv.ParseFloat(sign+num, 64)
			return v
		}
		// "0x" with no hex digit: strtod reads the "0".
		return 0
	}
	end, n := scan(s, 0, isDigit)
	if n == 0 {
		return 0
	}
	end = exponent(s, end, 'e')
	v, _ := strconv.ParseFloat(sign+s[:end], 64) // out of range: ±Inf or 0, as strtod
	return v
}
