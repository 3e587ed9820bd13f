package script

import (
	"errors"
	"strings"
	"testing"
)

// cmdSummary renders a command for table tests: SQL text as is (with "+gset
// PREFIX" / "+aset PREFIX" when merged), meta-commands as their Text.
func cmdSummary(c *Command) string {
	s := c.Text
	switch c.Meta {
	case MetaGset:
		s += " +gset " + c.VarPrefix
	case MetaAset:
		s += " +aset " + c.VarPrefix
	}
	return s
}

func TestSplitSQL(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"two statements", "SELECT 1; SELECT 2;", []string{"SELECT 1;", "SELECT 2;"}},
		{"last needs no semicolon", "SELECT 1;\nSELECT 2", []string{"SELECT 1;", "SELECT 2"}},
		{"leading blanks and -- lines dropped", "  \n-- c;\n\tSELECT 1;\n", []string{"SELECT 1;"}},
		{"-- comment after the first token kept", "SELECT 1 -- c ;\n;", []string{"SELECT 1 -- c ;\n;"}},
		{"-- comment at end of statement kept", "SELECT 1 -- c\n+ 2;", []string{"SELECT 1 -- c\n+ 2;"}},
		{"only comments and blanks", "-- a\n\n  -- b\n", nil},
		{"empty", "", nil},
		{"quoted semicolon", "SELECT ';'; x", []string{"SELECT ';';", "x"}},
		{"doubled quote", "SELECT 'it''s;'; y;", []string{"SELECT 'it''s;';", "y;"}},
		{"standard strings: backslash is literal", "SELECT '\\'; w;", []string{"SELECT '\\';", "w;"}},
		{"E string escapes quote", "SELECT E'\\';'; z;", []string{"SELECT E'\\';';", "z;"}},
		{"e string lower case", "SELECT e'\\\\';", []string{"SELECT e'\\\\';"}},
		{"identifier ending in e is not E''", "SELECT some'\\'; v;", []string{"SELECT some'\\';", "v;"}},
		{"quoted identifier", "SELECT \"a;\"\"b\"; v;", []string{"SELECT \"a;\"\"b\";", "v;"}},
		{"U& identifier and string", "SELECT U&\"a;\", u&'b;'; v;", []string{"SELECT U&\"a;\", u&'b;';", "v;"}},
		{"bit, hex and national strings", "SELECT B'1;', X'2;', N'3;'; v;", []string{"SELECT B'1;', X'2;', N'3;';", "v;"}},
		{"dollar quote", "SELECT $$a;b$$; u;", []string{"SELECT $$a;b$$;", "u;"}},
		{"tagged dollar quote", "SELECT $t$ $$ ; $x$ ; $t$; u;", []string{"SELECT $t$ $$ ; $x$ ; $t$;", "u;"}},
		{"tag must match exactly", "SELECT $ab$ $a$ ; $b$ ; $ab$; u;", []string{"SELECT $ab$ $a$ ; $b$ ; $ab$;", "u;"}},
		{"parameter is not a dollar quote", "SELECT $1; u;", []string{"SELECT $1;", "u;"}},
		{"dollar inside identifier", "SELECT a$b$; u;", []string{"SELECT a$b$;", "u;"}},
		{"nested block comment", "SELECT /* a; /* b; */ c; */ 1; u;", []string{"SELECT /* a; /* b; */ c; */ 1;", "u;"}},
		{"block comment alone is a command", "/* only */", []string{"/* only */"}},
		{"comment start inside operator", "SELECT 2*/*;*/3; u;", []string{"SELECT 2*/*;*/3;", "u;"}},
		{"parentheses hide semicolons", "SELECT (1;\n2); u;", []string{"SELECT (1;\n2);", "u;"}},
		{"backslash semicolon", "SELECT 1 \\; SELECT 2;", []string{"SELECT 1 ; SELECT 2;"}},
		{"backslash colon", "SELECT 1 \\:x;", []string{"SELECT 1 :x;"}},
		{"begin atomic", "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END; u;",
			[]string{"CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END;", "u;"}},
		{"begin atomic with case", "create or replace procedure p() begin atomic select case when true then 1 end; end; u;",
			[]string{"create or replace procedure p() begin atomic select case when true then 1 end; end;", "u;"}},
		{"BEGIN outside a function", "BEGIN; SELECT 1; END;", []string{"BEGIN;", "SELECT 1;", "END;"}},
		{"create table named begin", "CREATE TABLE begin (x int); u;", []string{"CREATE TABLE begin (x int);", "u;"}},
		{"unterminated quote runs to the end", "SELECT 'a; u;\n\\set x 1", []string{"SELECT 'a; u;\n\\set x 1"}},
		{"meta-command after semicolon", "SELECT 1;\\set x 1\nSELECT 2;", []string{"SELECT 1;", "\\set x 1", "SELECT 2;"}},
		{"meta-command ends a statement", "SELECT 1\n\\set x 1\nSELECT 2", []string{"SELECT 1\n", "\\set x 1", "SELECT 2"}},
		{"gset merged", "SELECT 1 AS a \\gset\nSELECT 2 \\aset p_\n", []string{"SELECT 1 AS a  +gset ", "SELECT 2  +aset p_"}},
		{"gset after semicolon", "SELECT 1;\n\\gset x", []string{"SELECT 1; +gset x"}},
		{"compound aset", "\\; SELECT 6 AS i6 \\; SELECT 7 AS i7 \\; \\aset",
			[]string{"; SELECT 6 AS i6 ; SELECT 7 AS i7 ;  +aset "}},
		{"CRLF", "\r\nSELECT 1;\r\n", []string{"SELECT 1;"}},
		{"vertical tab skipped", "\vSELECT 1;", []string{"SELECT 1;"}},
		{"colons", "SELECT a::int, :x, ':y';", []string{"SELECT a::int, :x, ':y';"}},
		{"lone backslash", "\\\nSELECT 1;", []string{"SELECT 1;"}},
		{"space after backslash", "\\ set x 1", []string{"\\ set x 1"}},
		{"continuation", "\\set x 1 + \\\n 2\nSELECT 1;", []string{"\\set x 1 + \\\n 2", "SELECT 1;"}},
		{"NUL cuts the script", "SELECT 1;\x00SELECT 2;", []string{"SELECT 1;"}},
		{"paren depth carries over", "SELECT (1 \\gset\nSELECT 2; SELECT 3);\n", []string{"SELECT (1  +gset ", "SELECT 2; SELECT 3);"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("t.sql", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range s.Commands {
				got = append(got, cmdSummary(c))
			}
			if strings.Join(got, "\x1f") != strings.Join(tt.want, "\x1f") {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCommandFields(t *testing.T) {
	src := "-- header\n\nSELECT abalance\n  FROM t;\n\\set aid random(1, 10)\n\\SLEEP 10ms\nSELECT " +
		strings.Repeat("x", 200) + "\n;\n  \\setshell v echo \\\n  :aid\n"
	s, err := Parse("f.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		kind      CommandKind
		meta      Meta
		line      int
		firstLine string
		args      []string
	}
	want := []row{
		{SQLCommand, MetaNone, 3, "SELECT abalance", nil},
		{MetaCommand, MetaSet, 5, `\set aid random(1, 10)`, []string{"set", "aid"}},
		{MetaCommand, MetaSleep, 6, `\SLEEP 10ms`, []string{"SLEEP", "10ms", "ms"}},
		{SQLCommand, MetaNone, 7, "SELECT " + strings.Repeat("x", 120), nil},
		{MetaCommand, MetaSetShell, 9, "\\setshell v echo \\\n  :aid", []string{"setshell", "v", "echo", ":aid"}},
	}
	if len(s.Commands) != len(want) {
		t.Fatalf("%d commands, want %d", len(s.Commands), len(want))
	}
	for i, w := range want {
		c := s.Commands[i]
		if c.Index != i || c.Kind != w.kind || c.Meta != w.meta || c.Line != w.line || c.FirstLine != w.firstLine {
			t.Errorf("command %d: got %d %v %v line %d %q", i, c.Index, c.Kind, c.Meta, c.Line, c.FirstLine)
		}
		if w.args != nil && strings.Join(c.Args, " ") != strings.Join(w.args, " ") {
			t.Errorf("command %d: args %q, want %q", i, c.Args, w.args)
		}
	}
	// The unit glued to the number is split off, as in pgbench.
	if got := s.Commands[2].sleep; got.mult != 1000 || got.literal != 10 {
		t.Errorf("sleep spec %+v", got)
	}
	if got := s.Variables(); strings.Join(got, ",") != "aid" {
		t.Errorf("Variables() = %q", got)
	}
}

// TestParseErrors checks pgbench's syntax error messages byte for byte (the
// expectations were confirmed with pgbench 15.18).
func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{"\\set i 1 +\n", "f:1: syntax error in command \"set\"\n\\set i 1 +\n          ^ error found here"},
		{"\\set i 1 +", "f:1: syntax error in command \"set\"\n\\set i 1 +\n         ^ error found here"},
		{"\\set i\n", "f:1: syntax error in command \"set\"\n\\set i\n      ^ error found here"},
		{"\\set\n", "f:1: missing argument in command \"set\""},
		{"\\set i 1 2\n", "f:1: syntax error in command \"set\"\n\\set i 1 2\n         ^ error found here"},
		{"\\set x foo\n", "f:1: unexpected function name (foo) in command \"set\"\n\\set x foo\n         ^ error found here"},
		{"\\set i pi\n", "f:1: syntax error in command \"set\"\n\\set i pi\n         ^ error found here"},
		{"\\set i pi(1)\n", "f:1: unexpected number of arguments (pi) in command \"set\"\n\\set i pi(1)\n           ^ error found here"},
		{"\\set i least()\n", "f:1: at least one argument expected (least) in command \"set\"\n\\set i least()\n             ^ error found here"},
		{"\\set i HASH(1,2,3)\n", "f:1: unexpected number of arguments (hash) in command \"set\"\n\\set i HASH(1,2,3)\n                 ^ error found here"},
		{"\\set i power(1)\n", "f:1: unexpected number of arguments (power) in command \"set\"\n\\set i power(1)\n              ^ error found here"},
		{"\\set i 99999999999999999999\n", "f:1: bigint constant overflow (99999999999999999999) in command \"set\"\n\\set i 99999999999999999999\n                          ^ error found here"},
		{"\\set d 1.0E309\n", "f:1: double constant overflow (1.0E309) in command \"set\"\n\\set d 1.0E309\n             ^ error found here"},
		{"\\set d .1E310\n", "f:1: double constant overflow (.1E310) in command \"set\"\n\\set d .1E310\n            ^ error found here"},
		{"\\set i ;\n", "f:1: unexpected character (;) in command \"set\"\n\\set i ;\n       ^ error found here"},
		// The last lexer error on the line wins.
		{"\\set x 1 + ) ; 99999999999999999999\n", "f:1: bigint constant overflow (99999999999999999999) in command \"set\"\n\\set x 1 + ) ; 99999999999999999999\n                                  ^ error found here"},
		{"\\set y 1 < 2 < 3\n", "f:1: syntax error in command \"set\"\n\\set y 1 < 2 < 3\n             ^ error found here"},
		{"\\set i 9223372036854775808\n", "f:1: syntax error in command \"set\"\n\\set i 9223372036854775808\n                         ^ error found here"},
		{"\\set i CASE 1 WHEN 1 THEN 2 END\n", "f:1: syntax error in command \"set\"\n\\set i CASE 1 WHEN 1 THEN 2 END\n            ^ error found here"},
		{"SELECT 1;\n\n  \\set x 1 +\n", "f:3: syntax error in command \"set\"\n\\set x 1 +\n          ^ error found here"},
		{"\\SET i 1 +\n", "f:1: syntax error in command \"SET\"\n\\SET i 1 +\n          ^ error found here"},
		{"\\set i 1 +\\\n 2 )\n", "f:1: syntax error in command \"set\"\n\\set i 1 +\\\n 2 )\n               ^ error found here"},
		{"\\if\n", "f:1: syntax error in command \"if\"\n\\if\n   ^ error found here"},
		{"\\if 0\n\\elif +\n\\endif\n", "f:2: syntax error in command \"elif\"\n\\elif +\n       ^ error found here"},
		{"\\if 0\n\\else BAD\n\\endif\n", "f:2: unexpected argument in command \"else\"\n\\else BAD"},
		{"\\sleep\n", "f:1: missing argument in command \"sleep\"\n\\sleep"},
		{"\\sleep 1 2 3\n", "f:1: too many arguments in command \"sleep\"\n\\sleep 1 2 3\n           ^ error found here"},
		{"\\sleep x\n", "f:1: invalid sleep time, must be an integer (x) in command \"sleep\"\n\\sleep x\n       ^ error found here"},
		{"\\sleep 1 week\n", "f:1: unrecognized time unit, must be us, ms or s (week) in command \"sleep\"\n\\sleep 1 week\n         ^ error found here"},
		{"\\sleep 10xs\n", "f:1: unrecognized time unit, must be us, ms or s (xs) in command \"sleep\"\n\\sleep 10xs\n         ^ error found here"},
		{"\\setshell var\n", "f:1: missing argument in command \"setshell\"\n\\setshell var"},
		{"\\shell\n", "f:1: missing command in command \"shell\"\n\\shell"},
		{"\\gset\n", "f:1: \\gset must follow an SQL command"},
		{"\\set i +1\n\\gset", "f:2: \\gset must follow an SQL command (\\set i +1)"},
		{"SELECT 1 \\gset\n\\aset", "f:2: \\gset must follow an SQL command"},
		{"SELECT 1 \\gset a b\n", "f:1: too many arguments in command \"gset\"\n\\gset a b"},
		{"\\nosuchcommand\n", "f:1: invalid command in command \"nosuchcommand\"\n\\nosuchcommand"},
		{"\\endpipeline x\n", "f:1: unexpected argument in command \"endpipeline\"\n\\endpipeline x"},
		// A continuation joins the next line, whose backslash is unexpected.
		{"\\set x 1 \\\n\\set y 2\n", "f:1: unexpected character (\\) in command \"set\"\n\\set x 1 \\\n\\set y 2\n           ^ error found here"},
	}
	for _, tt := range tests {
		_, err := Parse("f", tt.src)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %v, want a ParseError", tt.src, err)
			continue
		}
		if got := pe.Error(); got != tt.want {
			t.Errorf("%q:\ngot\n%s\nwant\n%s", tt.src, got, tt.want)
		}
		if pe.Line < 1 || pe.AtLine < 1 || pe.AtColumn < 1 {
			t.Errorf("%q: line %d, at %s", tt.src, pe.Line, pe.Where())
		}
	}
}

func TestParseErrorFields(t *testing.T) {
	_, err := Parse("a/b.sql", "\n\\set x least(1,\n")
	pe := err.(*ParseError)
	want := ParseError{File: "a/b.sql", Line: 2, Column: 16, Msg: "syntax error", Command: "set", Text: `\set x least(1,`,
		AtLine: 2, AtColumn: 16}
	if *pe != want {
		t.Errorf("got %+v, want %+v", *pe, want)
	}
	// Without a command line the column is part of the message.
	e := ParseError{File: "f", Line: 3, Column: 5, Msg: "m", Command: "c"}
	if got := e.Error(); got != `f:3: m at column 5 in command "c"` {
		t.Errorf("got %q", got)
	}
}

func TestCheckConditionals(t *testing.T) {
	tests := []struct{ src, want string }{
		{"\\if 1\n\\elif 2\n\\else\n\\endif\n", ""},
		{"\\if 1\n\\if 2\n\\endif\n\\endif\n", ""},
		{"\\elif 1\n", `condition error in script "s" command 1: \elif without matching \if`},
		{"SELECT 1;\n\\else\n", `condition error in script "s" command 2: \else without matching \if`},
		{"\\endif\n", `condition error in script "s" command 1: \endif without matching \if`},
		{"\\if 1\n\\else\n\\elif 0\n\\endif", `condition error in script "s" command 3: \elif after \else`},
		{"\\if 1\n\\else\n\\else\n\\endif", `condition error in script "s" command 3: \else after \else`},
		{"\\if 1\nSELECT 1;\n", `condition error in script "s" command 3: \if without matching \endif`},
		{"SELECT 1 \\gset\n\\if 1\n", `condition error in script "s" command 3: \if without matching \endif`},
	}
	for _, tt := range tests {
		s, err := Parse("s", tt.src)
		if err != nil {
			t.Fatal(err)
		}
		err = s.CheckConditionals()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.src, got, tt.want)
		}
	}
	s, _ := Parse("empty.sql", "-- nothing\n")
	if err := s.CheckEmpty(); err == nil || err.Error() != `empty command list for script "empty.sql"` {
		t.Errorf("CheckEmpty: %v", err)
	}
}

func TestValidVarName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "_": true, "a1": true, "ABC_9": true, "\x80x": true, "é": true, "x\xff": true,
		"": false, "1a": false, "a-b": false, "a b": false, ".": false, "?column?": false, "a$": false,
	} {
		if got := ValidVarName(name); got != want {
			t.Errorf("ValidVarName(%q) = %v", name, got)
		}
	}
}

// TestParseDepth checks bison's stack limit: pgbench fails with "memory
// exhausted" at the token that would make its parser stack reach 10000
// entries (caret columns confirmed with pgbench 15.18).
func TestParseDepth(t *testing.T) {
	r := strings.Repeat
	tests := []struct {
		expr string
		col  int // 1-based caret column, 0 = accepted
	}{
		{r("(", 9996) + "1" + r(")", 9996), 0},
		{r("(", 9997) + "1" + r(")", 9997), 10006}, // at the first ')'
		{r("(", 9998) + "1" + r(")", 9998), 10006}, // at the '1'
		{r("(", 10001) + "1" + r(")", 10001), 10006},
		{r("-", 20000) + "1", 10006},
		{r("abs(", 4998) + "1" + r(")", 4998), 0},
		{r("abs(", 4999) + "1" + r(")", 4999), 20004},
		{r("abs(", 5000) + "1" + r(")", 5000), 20006},
		{r("least(", 4999) + r(")", 4999), 30002},
		{r("1 + ", 100001) + "1", 400010},
	}
	for _, tt := range tests {
		_, err := Parse("d", "\\set x "+tt.expr+"\n")
		pe, _ := err.(*ParseError)
		if tt.col == 0 {
			if err != nil {
				t.Errorf("%.20s…: %s at column %d", tt.expr, pe.Msg, pe.Column)
			}
			continue
		}
		if pe == nil || pe.Msg != "memory exhausted" || pe.Column != tt.col {
			if pe == nil {
				pe = &ParseError{}
			}
			t.Errorf("%.20s…: got %q at column %d, want memory exhausted at %d", tt.expr, pe.Msg, pe.Column, tt.col)
		}
	}
}

// TestSplitNumericJunk checks the lexer's trailing-junk rules, which decide
// whether a letter after a number starts an identifier (pgbench 15.18:
// "1end" is one token, "1e+end" is not; "1E'\'" is 1E followed by a plain
// string).
func TestSplitNumericJunk(t *testing.T) {
	body := "CREATE FUNCTION f() BEGIN ATOMIC SELECT %s; SELECT 2; END;\n"
	for junk, n := range map[string]int{"1end": 1, "1xend": 1, "1.5xend": 1, "1e5end": 1, "0x1end": 1,
		"1e+end": 3, "1..end": 3, "$1end": 1, "1 end": 3} {
		s, err := Parse("j", strings.Replace(body, "%s", junk, 1))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Commands) != n {
			t.Errorf("%s: %d commands, want %d", junk, len(s.Commands), n)
		}
	}
	s, _ := Parse("j", "SELECT 1E'\\'; SELECT 2;'\n\\endif\n")
	var got []string
	for _, c := range s.Commands {
		got = append(got, c.Text)
	}
	if strings.Join(got, "|") != "SELECT 1E'\\';|SELECT 2;|'\n\\endif\n" {
		t.Errorf("1E'\\': %q", got)
	}
}

// TestGsetErrorLine pins pgbench 15's line numbers for "\gset must follow
// an SQL command", computed before its lexer moves on (observed with
// pgbench 15.18).
func TestGsetErrorLine(t *testing.T) {
	for src, line := range map[string]int{
		"\\gset\n":                              1,
		"\\gset\nSELECT 1\n":                    2,
		"\\gset\nSELECT 1\nSELECT 2\n\n\n":      5,
		"\\gset\nSELECT 1":                      2,
		"\\gset":                                1,
		"-- c\n\n\\gset\nSELECT 1\nSELECT 2\n":  5,
		"SELECT 1 \\gset\n\\gset\nSELECT 1\n":   2,
		"\\set a 1\n\\gset\n\nSELECT 1\n":       2,
		"SELECT 1;\n\\set a 1\n\\gset\n\nx\n\n": 3,
		"x\\set y 1\n\r\n\t\\gset\n":            2,
	} {
		_, err := Parse("g", src)
		pe, ok := err.(*ParseError)
		if !ok || pe.Msg != `\gset must follow an SQL command` || pe.Line != line {
			t.Errorf("%q: %v, want line %d", src, err, line)
		}
	}
}

// A condition error also says where the offending meta-command is (pgbench's message
// gives only a command number): the command itself, or the innermost unclosed \if.
func TestConditionErrorWhere(t *testing.T) {
	tests := []struct{ src, where string }{
		{"SELECT 1;\n  \\else\n", "s:2:3"},
		{"\\if 1\n\\else\n\\elif 0\n\\endif", "s:3:1"},
		{"\\if 1\n\\endif\n\\endif\n", "s:3:1"},
		{"\\if 1\nSELECT 1;\n \\if 2\n\\endif\n", "s:1:1"},
		{"\\if 1\n\\if 2\nSELECT 1;\n", "s:2:1"},
	}
	for _, tt := range tests {
		s, err := Parse("s", tt.src)
		if err != nil {
			t.Fatal(err)
		}
		var ce *ConditionError
		if err := s.CheckConditionals(); !errors.As(err, &ce) {
			t.Errorf("%q: %v, want a ConditionError", tt.src, err)
		} else if ce.Where() != tt.where {
			t.Errorf("%q: at %s, want %s", tt.src, ce.Where(), tt.where)
		}
	}
}

// Where locates every error in the file, also those whose pgbench text shows no
// column (argument errors) or another line (\gset after a meta-command).
func TestParseErrorWhere(t *testing.T) {
	tests := []struct{ src, where string }{
		{"select 1;\n  \\sleep\n", "s:2:3"},
		{"select 1;\n\\bogus 1\n", "s:2:1"},
		{"\\set x 1 +\n", "s:1:11"},
		{"\n\\set a 1\n \\gset\nselect 1;\n", "s:3:2"},
		{"\\sleep 1 xs\n", "s:1:10"},
	}
	for _, tt := range tests {
		_, err := Parse("s", tt.src)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: %v, want a ParseError", tt.src, err)
		} else if pe.Where() != tt.where {
			t.Errorf("%q: at %s, want %s (%v)", tt.src, pe.Where(), tt.where, err)
		}
	}
}
