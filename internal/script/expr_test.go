package script

import (
	"math"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// parseExprTree parses "\set x EXPR" and renders the desugared tree.
func parseExprTree(t *testing.T, expr string) string {
	t.Helper()
	s, err := Parse("e", "\\set x "+expr+"\n")
	if err != nil {
		t.Fatalf("%q: %v", expr, err)
	}
	return s.Commands[0].expr.format(s.syms.names)
}

func TestExprPrecedence(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"1 + 2 * 3", "+(1, *(2, 3))"},
		{"1 - 2 - 3", "-(-(1, 2), 3)"},
		{"8 / 4 / 2", "/(/(8, 4), 2)"},
		{"5 % 2", "mod(5, 2)"},
		{"(1 + 2) * 3", "*(+(1, 2), 3)"},
		// ~ has the bitwise level, not the unary one.
		{"~1+2", "#(-1, +(1, 2))"},
		{"~ 1 | 2", "|(#(-1, 1), 2)"},
		{"-1+2", "+(-(0, 1), 2)"},
		{"- 1 * 2", "*(-(0, 1), 2)"},
		{"+:x", ":x"},
		{"-:x", "-(0, :x)"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"- 9223372036854775808 * 2", "*(-9223372036854775808, 2)"},
		{"- -9223372036854775808", "-(0, -9223372036854775808)"},
		{"--1", "-(0, -(0, 1))"},
		// All bitwise operators share one left-associative level.
		{"1 | 2 & 3", "&(|(1, 2), 3)"},
		{"1 & 2 | 3", "|(&(1, 2), 3)"},
		{"1 << 2 + 3", "<<(1, +(2, 3))"},
		{"1 # 2 >> 3", ">>(#(1, 2), 3)"},
		{"1 + 2 < 3 | 4", "<(+(1, 2), |(3, 4))"},
		// > and >= swap their operands.
		{":a > :b", "<(:b, :a)"},
		{":a >= :b", "<=(:b, :a)"},
		{":a <= :b", "<=(:a, :b)"},
		{":a != :b", "<>(:a, :b)"},
		{":a <> :b", "<>(:a, :b)"},
		{":a = :b", "=(:a, :b)"},
		{":a OR :b AND :c", "!or(:a, !and(:b, :c))"},
		{":a AND :b OR :c", "!or(!and(:a, :b), :c)"},
		{"NOT :a AND :b", "!and(!not(:a), :b)"},
		{"NOT :a = :b", "!not(=(:a, :b))"},
		{"NOT NOT :a", "!not(!not(:a))"},
		{":a IS NULL", "!is(:a, NULL)"},
		{":a ISNULL", "!is(:a, NULL)"},
		{":a IS NOT NULL", "!not(!is(:a, NULL))"},
		{":a NOTNULL", "!not(!is(:a, NULL))"},
		{":a IS TRUE", "!is(:a, true)"},
		{":a IS NOT FALSE", "!not(!is(:a, false))"},
		{":a ISNULL ISNULL", "!is(!is(:a, NULL), NULL)"},
		{":a IS NULL IS NULL", "!is(!is(:a, NULL), NULL)"},
		{":a = :b IS NULL", "!is(=(:a, :b), NULL)"},
		{"NOT :a IS NULL", "!not(!is(:a, NULL))"},
		{":a AND :b IS NULL", "!and(:a, !is(:b, NULL))"},
		{":a < :b IS NULL < :c", "<(!is(<(:a, :b), NULL), :c)"},
		{"-:a IS NULL", "!is(-(0, :a), NULL)"},
		{":x * :a IS NULL + 1", "+(!is(*(:x, :a), NULL), 1)"},
		{"CASE WHEN :a THEN 1 END", "!case_end(:a, 1, NULL)"},
		{"case when :a then 1 when :b then 2 else 3 end", "!case_end(:a, 1, :b, 2, 3)"},
		{"Ln(Exp(1.0))", "ln(exp(d1))"},
		{"power(2, 3)", "pow(2, 3)"},
		{"MOD(7, 2)", "mod(7, 2)"},
		{"hash(1)", "hash_murmur2(1, :default_seed)"},
		{"hash(1, 2)", "hash_murmur2(1, 2)"},
		{"hash_fnv1a(1)", "hash_fnv1a(1, :default_seed)"},
		{"permute(1, 2)", "permute(1, 2, :default_seed)"},
		// elist: /* empty */ | expr | elist ',' expr, so a leading comma is allowed.
		{"least(,1)", "least(1)"},
		{"greatest(, 1, 2)", "greatest(1, 2)"},
		{"pi()", "pi()"},
		{"1.5e3", "d1500"},
		{".5", "d0.5"},
		{"5.", "d5"},
		{"1e3", "d1000"},
		{"TRUE", "true"},
		{"false", "false"},
		{"Null", "NULL"},
		{"debug(1) > debug(2)", "<(debug(2), debug(1))"},
		{":a1 + :_b", "+(:a1, :_b)"},
	}
	for _, tt := range tests {
		if got := parseExprTree(t, tt.expr); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.expr, got, tt.want)
		}
	}
}

// testClient parses a script of one "\set x EXPR" per expression and
// returns a client with variables defined from vars (as -D strings).
func testClient(t *testing.T, src string, vars map[string]string) (*Script, *Client, *strings.Builder) {
	t.Helper()
	s, err := Parse("e", src)
	if err != nil {
		t.Fatal(err)
	}
	var dbg strings.Builder
	c := NewProgram(s).NewClient(3, prng.NewState(42), &dbg)
	for k, v := range vars {
		if err := c.SetString("option", k, v); err != nil {
			t.Fatal(err)
		}
	}
	c.Begin(0)
	return s, c, &dbg
}

// exprCase is an expression and what it gives (a value as describe
// renders it, or an error's text).
type exprCase struct{ expr, want string }

// setClient is testClient's client for a script of one "\set x EXPR" per
// case, in order (command i evaluates cases[i]).
func setClient(t *testing.T, cases []exprCase, vars map[string]string) *Client {
	t.Helper()
	var src strings.Builder
	for _, tt := range cases {
		src.WriteString("\\set x " + tt.expr + "\n")
	}
	_, c, _ := testClient(t, src.String(), vars)
	return c
}

// describe renders a value as debug() does.
func describe(v Value) string {
	switch v.Kind() {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean " + v.String()
	case KindInt:
		return "int " + v.String()
	case KindDouble:
		return "double " + v.String()
	}
	return "none"
}

func TestEval(t *testing.T) {
	vars := map[string]string{"t": "t", "f": "of", "i": "+3", "n": "null", "d": "1.0", "e": "", "s": "abc",
		"big": "9223372036854775807", "min": "-9223372036854775808", "ovf": "9223372036854775808",
		"default_seed": "5432"}
	tests := []exprCase{
		{"1 + 2 * 3", "int 7"},
		{"7 / -2", "int -3"},
		{"-7 % 3", "int -1"},
		{"5 % -3", "int 2"},
		{"5.5 % 2", "int 0"},
		{"6.5 % 4", "int 2"},
		{"9223372036854775807 % -1", "int 0"},
		{"1 / 2.0", "double 0.5"},
		{"1.0 / 0", "double Infinity"},
		{"-1.0 / 0", "double -Infinity"},
		{"0.0 / 0", "double NaN"},
		{"-0.0", "double 0"},
		{"0.1 + 0.2", "double 0.3"},
		{"1e15", "double 1e+15"},
		{"1e14", "double 100000000000000"},
		{"pow(9223372036854775807, 2)", "double 8.50705917302346e+37"},
		{"pow(-2, -3)", "double -0.125"},
		{"pow(0, 0)", "double 1"},
		{"sqrt(-1)", "double NaN"},
		{"ln(0)", "double -Infinity"},
		{"~1+2", "int -4"},
		{"~0", "int -1"},
		{"-2 >> 1", "int -1"},
		{"1 << 64", "int 1"},
		{"1 << -1", "int -9223372036854775808"},
		{"1 << 63", "int -9223372036854775808"},
		{"6 & 3 | 8 # 1", "int 11"},
		{"int(2.5)", "int 2"},
		{"int(3.5)", "int 4"},
		{"int(-2.5)", "int -2"},
		{"int(7.3)", "int 7"},
		{"double(1 + 1)", "double 2"},
		{"abs(-4)", "int 4"},
		{"abs(-0.8E1)", "double 8"},
		{"abs(-9223372036854775808)", "int -9223372036854775808"},
		{"abs(true)", "double 4.94065645841247e-324"},
		{"abs(false)", "double 0"},
		{"least(3, 1.5, 2)", "double 1.5"},
		{"greatest(3, 1, 2)", "int 3"},
		{"least(1, NULL)", "null"},
		{"greatest(0.0 / 0, 1.0)", "double 1"},
		{"least(1.0, 0.0 / 0)", "double NaN"},
		{"1 = 1.0", "boolean true"},
		{"1 < 2", "boolean true"},
		{"2 > 1", "boolean true"},
		{"1 >= 2", "boolean false"},
		{"1 <> 1", "boolean false"},
		{"NULL + 1", "null"},
		{"NULL = NULL", "null"},
		{"NOT NULL", "null"},
		{"NULL AND 1/0 = 1", "null"},
		{"NULL OR FALSE", "null"},
		{"FALSE AND 1/0 = 1", "boolean false"},
		{"TRUE OR 1/0 = 1", "boolean true"},
		{"TRUE AND NULL", "null"},
		{"FALSE OR NULL", "null"},
		{"TRUE AND FALSE", "boolean false"},
		{"NULL IS NULL", "boolean true"},
		{"1 IS NULL", "boolean false"},
		{"1 IS TRUE", "boolean false"},
		{"TRUE IS TRUE", "boolean true"},
		{"FALSE IS NOT TRUE", "boolean true"},
		{"NULL ISNULL", "boolean true"},
		{"0 NOTNULL", "boolean true"},
		{"CASE WHEN NULL THEN 1 WHEN 0.0 THEN 2 WHEN 3 THEN 4 END", "int 4"},
		{"CASE WHEN FALSE THEN 1 END", "null"},
		{"case when 1 then 2 else 1/0 end", "int 2"},
		{":t AND NOT :f", "boolean true"},
		{":i + 1", "int 4"},
		{":n IS NULL", "boolean true"},
		{":d", "double 1"},
		{":min", "int -9223372036854775808"},
		{":big", "int 9223372036854775807"},
		{"pi()", "double 3.14159265358979"},
		{"hash(10, 5432)", "int -5817877081768721676"},
		{"hash_murmur2(10, 5432)", "int -5817877081768721676"},
		{"hash_fnv1a(10, 5432)", "int -7793829335365542153"},
		{"hash(10)", "int -5817877081768721676"},
		{"permute(0, 2, 5431)", "int 0"},
		{"permute(0, 2, 5433)", "int 1"},
		{"permute(7, 1)", "int 0"},
		{"-(-9223372036854775807 - 1 + 1) - 1", "int 9223372036854775806"},
		{"least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15)", "int 0"},
	}
	c := setClient(t, tests, vars)
	for i, tt := range tests {
		v, err := c.Eval(i)
		if err != nil {
			t.Errorf("%q: %v", tt.expr, err)
			continue
		}
		if got := describe(v); got != tt.want {
			t.Errorf("%q = %s, want %s", tt.expr, got, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	vars := map[string]string{"t": "t", "e": "", "s": "abc", "bad": "trueXXX", "ovf": "9223372036854775808",
		"sp": "  ", "minus": "-", "big": "9223372036854775807", "min": "-9223372036854775808"}
	tests := []exprCase{
		{"1 / 0", "division by zero"},
		{"1 % 0", "division by zero"},
		{"mod(1, 0.4)", "division by zero"},
		{":min / -1", "bigint div out of range"},
		{"(1<<62) + (1<<62)", "bigint add out of range"},
		{"0 - (1<<62) - (1<<62) - (1<<62)", "bigint sub out of range"},
		{"2 * (1<<62)", "bigint mul out of range"},
		{"-:min", "bigint sub out of range"},
		{":big + 1", "bigint add out of range"},
		{"-4611686018427387904 * 2 - 1", "bigint sub out of range"},
		{"3037000500 * 3037000500", "bigint mul out of range"},
		{"int(1E32)", "double to int overflow for 100000000000000005366162204393472.000000"},
		{"int(0.0 / 0)", "double to int overflow for NaN"},
		{"int(9223372036854775807.0)", "double to int overflow for 9223372036854775808.000000"},
		{"NOT 0.0", "cannot coerce double to boolean"},
		{"NOT 1", "cannot coerce int to boolean"},
		{"1 AND TRUE", "cannot coerce int to boolean"},
		{"TRUE AND 1", "cannot coerce int to boolean"},
		{"FALSE OR 2.5", "cannot coerce double to boolean"},
		{"TRUE + 2", "cannot coerce boolean to int"},
		{"ln(TRUE)", "cannot coerce boolean to double"},
		{"random(FALSE, TRUE)", "cannot coerce boolean to int"},
		{"least(TRUE, 1.5)", "cannot coerce boolean to double"},
		{"1 & TRUE", "cannot coerce boolean to int"},
		{"random(5, 1)", "empty range given to random"},
		{"random(:min, :big)", "random range is too large"},
		{"random(0, :big)", "random range is too large"},
		{"random_gaussian(0, 10, 1.0)", "gaussian parameter must be at least 2.000000 (not 1.000000)"},
		{"random_exponential(0, 10, 0.0)", "exponential parameter must be greater than zero (not 0.000000)"},
		{"random_zipfian(0, 10, 1)", "zipfian parameter must be in range [1.001, 1000] (not 1.000000)"},
		{"random_zipfian(0, 10, 0.0 / 0)", "zipfian parameter must be in range [1.001, 1000] (not NaN)"},
		{"permute(1, 0, 5)", "permute size parameter must be greater than zero"},
		{"least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)", "too many function arguments, maximum is 16"},
		{":nosuch", `undefined variable "nosuch"`},
		{"hash(1)", `undefined variable "default_seed"`},
		{":e", "evaluation failed"},
		{":s", `malformed variable "s" value: "abc"`},
		{":bad OR TRUE", `malformed variable "bad" value: "trueXXX"`},
		{":ovf", `value "9223372036854775808" is out of range for type bigint`},
		{":sp", `invalid input syntax for type bigint: "  "`},
		{":minus", `invalid input syntax for type bigint: "-"`},
	}
	c := setClient(t, tests, vars)
	for i, tt := range tests {
		v, err := c.Eval(i)
		if err == nil {
			t.Errorf("%q = %s, want error %q", tt.expr, describe(v), tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%q: error %q, want %q", tt.expr, err, tt.want)
		}
	}
}

// TestExecErrors checks the abort lines pgbench prints after a failed
// \set.
func TestExecErrors(t *testing.T) {
	tests := []struct {
		src, msg, abort string
	}{
		{"\\set x 1/0\n", "division by zero", "client 3 aborted in command 0 (set) of script 0; evaluation of meta-command failed"},
		{"\\SET x :e\n", "", "client 3 aborted in command 0 (SET) of script 0; evaluation of meta-command failed"},
		{"\\set . 1\n", `set: invalid variable name: "."`, "client 3 aborted in command 0 (set) of script 0; assignment of meta-command failed"},
		{"\\if 1/0\n\\endif\n", "division by zero", "client 3 aborted in command 0 (if) of script 0; evaluation of meta-command failed"},
	}
	for _, tt := range tests {
		_, c, _ := testClient(t, tt.src, map[string]string{"e": ""})
		err := c.Exec(0)
		ee, ok := err.(*ExecError)
		if !ok {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if ee.Msg != tt.msg || ee.AbortLine(3, 0, 0) != tt.abort {
			t.Errorf("%q: got %q / %q", tt.src, ee.Msg, ee.AbortLine(3, 0, 0))
		}
	}
}

func TestDebugOutput(t *testing.T) {
	src := "SELECT 1;\n\\set a debug(17)\n\\set b debug(13.856406460551)\n\\set c debug(NULL)\n\\set d debug(1 < 2)\n\\set e debug(1e308 * 10)\n"
	s, c, dbg := testClient(t, src, nil)
	for i := 1; i < len(s.Commands); i++ {
		if err := c.Exec(i); err != nil {
			t.Fatal(err)
		}
	}
	want := "debug(script=0,command=2): int 17\n" +
		"debug(script=0,command=3): double 13.856406460551\n" +
		"debug(script=0,command=4): null\n" +
		"debug(script=0,command=5): boolean true\n" +
		"debug(script=0,command=6): double Infinity\n"
	if dbg.String() != want {
		t.Errorf("got\n%s\nwant\n%s", dbg.String(), want)
	}
	v, _ := c.Value("a")
	if describe(v) != "int 17" {
		t.Errorf("a = %s", describe(v))
	}
}

func TestRandomFunctions(t *testing.T) {
	// pgbench.md §9.7: seed 5432, client 0.
	s, err := Parse("r", "\\set a random(10, 19)\n\\set b random_exponential(100, 199, 10.0)\n"+
		"\\set c random_gaussian(1000, 1999, 10.0)\n\\set d random_zipfian(1, 9, 1.3)\n")
	if err != nil {
		t.Fatal(err)
	}
	st := prng.Derive(5432, 1, 1, false)
	c := NewProgram(s).NewClient(0, st.Clients[0], nil)
	c.Begin(0)
	for i, want := range []int64{17, 104, 1498, 3} {
		v, err := c.Eval(i)
		if err != nil || v.Kind() != KindInt || v.Int() != want {
			t.Errorf("command %d = %s, %v; want %d", i, describe(v), err, want)
		}
	}
}

func TestValueFormatting(t *testing.T) {
	tests := []struct {
		v    Value
		want string
	}{
		{NullValue(), "NULL"},
		{BoolValue(true), "true"},
		{BoolValue(false), "false"},
		{IntValue(-42), "-42"},
		{DoubleValue(1.0), "1"},
		{DoubleValue(0.1 + 0.2), "0.3"},
		{DoubleValue(123456789012345), "123456789012345"},
		{DoubleValue(1234567890123456), "1.23456789012346e+15"},
		{DoubleValue(0.0001), "0.0001"},
		{DoubleValue(0.00001), "1e-05"},
		{DoubleValue(math.Copysign(0, -1)), "-0"},
		{DoubleValue(1e300), "1e+300"},
		{DoubleValue(5e-324), "4.94065645841247e-324"},
		{DoubleValue(999999999999999.875), "1e+15"},
		{DoubleValue(123456.7890123456789), "123456.789012346"},
		{DoubleValue(math.Inf(1)), "Infinity"},
		{DoubleValue(math.Inf(-1)), "-Infinity"},
		{DoubleValue(math.NaN()), "NaN"},
	}
	for _, tt := range tests {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("%v: got %q, want %q", tt.v, got, tt.want)
		}
	}
}
