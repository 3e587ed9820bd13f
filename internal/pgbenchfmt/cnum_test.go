package pgbenchfmt

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
		v, end, of := strtol(tt.in)
		if v != tt.val || end != tt.end || of != tt.overflow {
			t.Errorf("strtol(%q) = %d, %d, %v; want %d, %d, %v", tt.in, v, end, of, tt.val, tt.end, tt.overflow)
		}
	}
}

func TestOptionParseInt(t *testing.T) {
	tests := []struct {
		in      string
		min     int
		want    int
		wantErr string
	}{
		{in: "4", min: 1, want: 4},
		{in: " 4 ", min: 1, want: 4},
		{in: "+4\t", min: 1, want: 4},
		{in: "2147483647", min: 1, want: 2147483647},
		{in: "0", min: 0, want: 0},
		{in: "", min: 0, want: 0}, // strtol reads nothing, nothing is left: 0
		{in: "  ", min: 0, want: 0},
		{in: "", min: 1, wantErr: "-x/--y must be in range 1..2147483647"},
		{in: "0", min: 1, wantErr: "-x/--y must be in range 1..2147483647"},
		{in: "-1", min: 0, wantErr: "-x/--y must be in range 0..2147483647"},
		{in: "2147483648", min: 1, wantErr: "-x/--y must be in range 1..2147483647"},
		{in: "99999999999999999999", min: 1, wantErr: "-x/--y must be in range 1..2147483647"},
		{in: "three", min: 1, wantErr: `invalid value "three" for option -x/--y`},
		{in: "4x", min: 1, wantErr: `invalid value "4x" for option -x/--y`},
		{in: "0x10", min: 1, wantErr: `invalid value "0x10" for option -x/--y`},
		{in: "4 x", min: 1, wantErr: `invalid value "4 x" for option -x/--y`},
		{in: " -", min: 1, wantErr: `invalid value " -" for option -x/--y`},
		{in: "1.5", min: 1, wantErr: `invalid value "1.5" for option -x/--y`},
	}
	for _, tt := range tests {
		got, err := optionParseInt(tt.in, "-x/--y", tt.min, math.MaxInt32)
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("optionParseInt(%q) = %d, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
		case err != nil || got != tt.want:
			t.Errorf("optionParseInt(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
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
		if got := atof(tt.in); got != tt.want {
			t.Errorf("atof(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if got := atof("nan"); !math.IsNaN(got) {
		t.Errorf("atof(nan) = %v", got)
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
		if got := atoi(tt.in); got != tt.want {
			t.Errorf("atoi(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
