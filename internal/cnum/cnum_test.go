package cnum

import (
	"math"
	"testing"
)

func TestStrtol(t *testing.T) {
	tests := []struct {
		in       string
		val      int64
		end      int
		overflow bool
	}{
		{"42", 42, 2, false},
		{"  -7x", -7, 4, false},
		{"+3 ", 3, 2, false},
		{"", 0, 0, false},
		{"  ", 0, 0, false},
		{"-", 0, 0, false},
		{"x1", 0, 0, false},
		{"9223372036854775807", math.MaxInt64, 19, false},
		{"9223372036854775808", math.MaxInt64, 19, true},
		{"-9223372036854775808", math.MinInt64, 20, false},
		{"-9223372036854775809", math.MinInt64, 20, true},
		{"99999999999999999999999", math.MaxInt64, 23, true},
	}
	for _, tt := range tests {
		v, end, of := Strtol(tt.in)
		if v != tt.val || end != tt.end || of != tt.overflow {
			t.Errorf("Strtol(%q) = %d, %d, %v; want %d, %d, %v", tt.in, v, end, of, tt.val, tt.end, tt.overflow)
		}
	}
}

func TestAtof(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"1.5", 1.5},
		{"  2", 2},
		{"0.0", 0},
		{"abc", 0},
		{"", 0},
		{"3ms", 3},
		{"1e3", 1000},
		{"1e", 1},
		{"1e+", 1},
		{"-2.5e-1x", -0.25},
		{".5", 0.5},
		{"5.", 5},
		{".", 0},
		{"0x10", 16},
		{"0x1.8p1", 3},
		{"0x", 0},
		{"0xg", 0},
		{"1e400", math.Inf(1)},
		{"-inf", math.Inf(-1)},
		{"Infinity", math.Inf(1)},
		{"1e-400", 0},
	}
	for _, tt := range tests {
		if got := Atof(tt.in); got != tt.want {
			t.Errorf("Atof(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if got := Atof("nan"); !math.IsNaN(got) {
		t.Errorf("Atof(nan) = %v", got)
	}
}

func TestAtoi(t *testing.T) {
	tests := []struct {
		in   string
		want int32
	}{
		{"3", 3},
		{"abc", 0},
		{"-10", -10},
		{" 7z", 7},
		{"2147483648", math.MinInt32},   // low 32 bits of a long
		{"99999999999", 1215752191},     // 99999999999 mod 2^32
		{"99999999999999999999999", -1}, // LONG_MAX, low 32 bits
		{"-99999999999999999999999", 0}, // LONG_MIN, low 32 bits
	}
	for _, tt := range tests {
		if got := Atoi(tt.in); got != tt.want {
			t.Errorf("Atoi(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestCStrtod(t *testing.T) {
	// Expectations from glibc 2.36 (strtod, errno).
	tests := []struct {
		s      string
		v      float64
		n      int
		erange bool
	}{
		{"1e-310", 9.9999999999999694e-311, 6, true},
		{"4.9406564584124654e-324", 4.9406564584124654e-324, 23, true},
		{"2.2250738585072014e-308", 2.2250738585072014e-308, 23, false},
		{"1e-400", 0, 6, true},
		{"0x1p-1074", 4.9406564584124654e-324, 9, false},
		{"0x1.8", 1.5, 5, false},
		{"  12", 12, 4, false},
		{"12 ", 12, 2, false},
		{"inf", math.Inf(1), 3, false},
		{"infinity", math.Inf(1), 8, false},
		{"0x", 0, 1, false},
		{"1e", 1, 1, false},
		{"nan(123)", math.NaN(), 8, false},
		{"1.0E309", math.Inf(1), 7, true},
		{".1E310", math.Inf(1), 6, true},
		{"2.2250738585072011e-308", 2.2250738585072009e-308, 23, true},
		{"abc", 0, 0, false},
		{"-.5e1x", -5, 5, false},
	}
	for _, tt := range tests {
		v, n, er := Strtod(tt.s)
		same := v == tt.v || (math.IsNaN(v) && math.IsNaN(tt.v))
		if !same || n != tt.n || er != tt.erange {
			t.Errorf("Strtod(%q) = %v, %d, %v; want %v, %d, %v", tt.s, v, n, er, tt.v, tt.n, tt.erange)
		}
	}
	for s, want := range map[string]int32{"99999999999999999999": -1, "-99999999999999999999": 0, " 12x": 12,
		"-7": -7, "x": 0, "4294967297": 1} {
		if got := Atoi(s); got != want {
			t.Errorf("Atoi(%q) = %d, want %d", s, got, want)
		}
	}
}
