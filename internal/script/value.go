package script

import (
	"math"
	"strconv"
)

// Kind is the type of a Value (pgbench's PgBenchValueType).
type Kind uint8

const (
	// KindNone marks a variable known only in string form (-D, \gset,
	// \aset) whose typed value has not been computed yet.
	KindNone Kind = iota
	KindNull
	KindBool
	KindInt
	KindDouble
)

// String is pgbench's valueTypeName, used in coercion messages.
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindInt:
		return "int"
	case KindDouble:
		return "double"
	}
	return "none"
}

// Value is a typed expression value: NULL, a boolean, a 64-bit integer or a
// double. It is 16 bytes and passed by value; the payload is the integer, the
// IEEE bits of the double, or 0/1 for a boolean.
type Value struct {
	kind Kind
	bits uint64
}

// NullValue returns NULL.
func NullValue() Value { return Value{kind: KindNull} }

// BoolValue returns a boolean.
func BoolValue(b bool) Value {
	if b {
		return Value{kind: KindBool, bits: 1}
	}
	return Value{kind: KindBool}
}

// IntValue returns an integer.
func IntValue(i int64) Value { return Value{kind: KindInt, bits: uint64(i)} }

// DoubleValue returns a double.
func DoubleValue(f float64) Value { return Value{kind: KindDouble, bits: math.Float64bits(f)} }

// Kind returns the value's type.
func (v Value) Kind() Kind { return v.kind }

// Int returns the integer payload (meaningful for KindInt).
func (v Value) Int() int64 { return int64(v.bits) }

// Double returns the double payload (meaningful for KindDouble).
func (v Value) Double() float64 { return math.Float64frombits(v.bits) }

// Bool returns the boolean payload (meaningful for KindBool).
func (v Value) Bool() bool { return v.bits != 0 }

// String returns the value's text as pgbench substitutes it into SQL
// (getVariable): NULL, true/false, %lld, or %.15g for doubles.
func (v Value) String() string { return string(v.AppendText(nil)) }

// AppendText appends the value's pgbench string form to dst.
func (v Value) AppendText(dst []byte) []byte {
	switch v.kind {
	case KindNull:
		return append(dst, "NULL"...)
	case KindBool:
		if v.Bool() {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case KindInt:
		return strconv.AppendInt(dst, v.Int(), 10)
	case KindDouble:
		return appendG15(dst, v.Double())
	}
	return dst
}

// appendG15 formats f as PostgreSQL's snprintf does with "%.15g" (DBL_DIG
// significant digits): C's %g rules, except that NaN and infinities are
// spelled NaN, Infinity and -Infinity. Go's 'g' verb with an explicit
// precision follows the same rules as C (exponent form when exp < -4 or
// exp >= precision, trailing zeros removed, at least two exponent digits).
func appendG15(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 15, 64)
}

// formatCf formats f as PostgreSQL's snprintf does with "%.<prec>f": the exact
// decimal expansion rounded to prec digits, NaN and Infinity spelled out.
func formatCf(f float64, prec int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'f', prec, 64)
}

// truth is pgbench's valueTruth for \if, \elif and CASE conditions: NULL is
// false, a boolean is itself, a number is true when non-zero.
func (v Value) truth() bool {
	switch v.kind {
	case KindBool:
		return v.bits != 0
	case KindInt:
		return v.Int() != 0
	case KindDouble:
		return v.Double() != 0
	}
	return false
}
