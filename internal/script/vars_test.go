package script

import (
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// TestStringToValue checks pgbench's conversion of string variables (-D,
// \gset, \aset) on first use in an expression (confirmed with pgbench
// 15.18).
func TestStringToValue(t *testing.T) {
	tests := []struct{ s, want string }{
		{"t", "boolean true"}, {"tr", "boolean true"}, {"TRUE", "boolean true"}, {"y", "boolean true"},
		{"yES", "boolean true"}, {"on", "boolean true"}, {"ON", "boolean true"},
		{"f", "boolean false"}, {"N", "boolean false"}, {"no", "boolean false"}, {"of", "boolean false"},
		{"off", "boolean false"}, {"False", "boolean false"},
		{"null", "null"}, {"NULL", "null"}, {"Null", "null"},
		{"+3", "int 3"}, {" 12", "int 12"}, {"-9223372036854775808", "int -9223372036854775808"},
		{"9223372036854775807", "int 9223372036854775807"}, {"007", "int 7"},
		{"1.0", "double 1"}, {".5", "double 0.5"}, {"5.", "double 5"}, {" 1.5", "double 1.5"},
		{"1e3", "double 1000"}, {"-0.0", "double -0"}, {"inf", "double Infinity"}, {"-Infinity", "double -Infinity"},
		{"nan", "double NaN"}, {"-nan", "double NaN"}, {"NaN(123)", "double NaN"}, {"0x10", "double 16"},
		{"0x1p3", "double 8"}, {"0x1.8", "double 1.5"}, {"0x1p-1074", "double 4.94065645841247e-324"},
		{"2.2250738585072014e-308", "double 2.2250738585072e-308"},
	}
	for _, tt := range tests {
		_, c, _ := testClient(t, "\\set x 1\n", map[string]string{"v": tt.s})
		v, err := c.Value("v")
		if err != nil {
			t.Errorf("%q: %v", tt.s, err)
			continue
		}
		if got := describe(v); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.s, got, tt.want)
		}
		// The string form is kept for substitution.
		if got, _ := c.Get("v"); got != tt.s {
			t.Errorf("%q: Get = %q", tt.s, got)
		}
	}
	bad := []struct{ s, want string }{
		{"", "evaluation failed"},
		{"o", `malformed variable "v" value: "o"`},
		{"trueX", `malformed variable "v" value: "trueX"`},
		{"nul", `malformed variable "v" value: "nul"`},
		{"12 ", `malformed variable "v" value: "12 "`},
		{"1.5 ", `malformed variable "v" value: "1.5 "`},
		{"1e400", `malformed variable "v" value: "1e400"`},
		{"1e-400", `malformed variable "v" value: "1e-400"`},
		{"1e-310", `malformed variable "v" value: "1e-310"`},
		{"2.2250738585072011e-308", `malformed variable "v" value: "2.2250738585072011e-308"`},
		{"infinit", `malformed variable "v" value: "infinit"`},
		{"0x", `malformed variable "v" value: "0x"`},
		{"9223372036854775808", `value "9223372036854775808" is out of range for type bigint`},
		{"-9223372036854775809", `value "-9223372036854775809" is out of range for type bigint`},
		{"-", `invalid input syntax for type bigint: "-"`},
		{"  ", `invalid input syntax for type bigint: "  "`},
	}
	for _, tt := range bad {
		_, c, _ := testClient(t, "\\set x 1\n", map[string]string{"v": tt.s})
		v, err := c.Value("v")
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: %s, %v; want error %q", tt.s, describe(v), err, tt.want)
		}
	}
}

func TestVarsAPI(t *testing.T) {
	s, err := Parse("v", "\\set a 1\n")
	if err != nil {
		t.Fatal(err)
	}
	c := NewProgram(s).NewClient(0, prng.NewState(1), nil)
	if err := c.SetString("option", "1x", "y"); err == nil || err.Error() != `option: invalid variable name: "1x"` {
		t.Errorf("SetString invalid name: %v", err)
	}
	if err := c.SetBytes("gset", "p_", []byte("?column?"), []byte("1")); err == nil ||
		err.Error() != `gset: invalid variable name: "p_?column?"` {
		t.Errorf("SetBytes invalid name: %v", err)
	}
	if err := c.SetBytes("aset", "p_", []byte("abalance"), []byte("-12")); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Value("p_abalance"); err != nil || describe(v) != "int -12" {
		t.Errorf("p_abalance = %s, %v", describe(v), err)
	}
	if err := c.SetInt("startup", "scale", 20); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Get("scale"); !ok || got != "20" {
		t.Errorf("Get(scale) = %q, %v", got, ok)
	}
	if err := c.SetValue("set", "d", DoubleValue(1.0/3)); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Get("d"); got != "0.333333333333333" {
		t.Errorf("Get(d) = %q", got)
	}
	if c.Defined("a") || !c.Defined("scale") {
		t.Error("Defined")
	}
	if _, ok := c.Get("nosuch"); ok {
		t.Error("Get(nosuch)")
	}
	if got := strings.Join(c.Names(), ","); got != "p_abalance,scale,d" {
		t.Errorf("Names = %q", got)
	}
}
