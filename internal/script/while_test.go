package script

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// runVars runs a script's meta-commands once (as run does) and returns
// the client for its variables, and the number of SQL commands reached.
func runVars(t *testing.T, src string) (*Client, int, error) {
	t.Helper()
	s, err := Parse("w.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckConditionals(); err != nil {
		t.Fatal(err)
	}
	c := NewProgram(s).NewClient(0, prng.NewState(3), nil)
	c.Begin(0)
	sql := 0
	for i, steps := 0, 0; i < len(s.Commands); i, steps = c.Next(i), steps+1 {
		if steps > 5*MaxLoopIterations {
			t.Fatal("runaway")
		}
		if s.Commands[i].Kind == SQLCommand {
			sql++
			continue
		}
		if err := c.Exec(i); err != nil {
			return c, sql, err
		}
	}
	if len(c.cond) != 0 {
		t.Errorf("conditional stack not empty: %v", c.cond)
	}
	return c, sql, nil
}

func TestWhileLoops(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // variable n after the run
		sql       int
	}{
		{"tpcc order lines", "\\set ol_cnt 7\n\\set n 0\n\\set ol 1\n\\while :ol <= :ol_cnt\n\\set i_id random(1, 100000)\nSELECT :i_id \\gset\n\\set n :n + 1\n\\set ol :ol + 1\n\\endwhile\n", "7", 7},
		{"false at once", "\\set n 5\n\\while 0\n\\set n 99\nSELECT 1;\n\\endwhile\n", "5", 0},
		{"NULL is false", "\\set n 5\n\\while NULL\n\\set n 99\n\\endwhile\n", "5", 0},
		{"nested", "\\set n 0\n\\set i 0\n\\while :i < 3\n\\set j 0\n\\while :j < 4\n\\set n :n + 1\n\\set j :j + 1\n\\endwhile\n\\set i :i + 1\n\\endwhile\n", "12", 0},
		{"if inside while", "\\set n 0\n\\set i 0\n\\while :i < 10\n\\if :i % 2 = 0\n\\set n :n + 1\n\\elif :i = 5\n\\set n :n + 100\n\\else\nSELECT 1;\n\\endif\n\\set i :i + 1\n\\endwhile\n", "105", 4},
		{"while inside false if", "\\set n 1\n\\if 0\n\\while 1\n\\set n 2\n\\endwhile\n\\else\n\\set n 3\n\\endif\n", "3", 0},
		{"while inside true if", "\\set n 0\n\\if 1\n\\while :n < 4\n\\set n :n + 1\n\\endwhile\n\\endif\nSELECT 1;\n", "4", 1},
		{"case-insensitive", "\\set n 0\n\\WHILE :n < 2\n\\set n :n + 1\n\\EndWhile\n", "2", 0},
	}
	for _, tt := range tests {
		c, sql, err := runVars(t, tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got, _ := c.Get("n"); got != tt.want || sql != tt.sql {
			t.Errorf("%s: n = %s, %d SQL commands; want %s, %d", tt.name, got, sql, tt.want, tt.sql)
		}
	}
}

// TestWhileIterationCap: a loop whose condition stays true fails after
// MaxLoopIterations iterations (all loops of the transaction together),
// and Begin starts the count again.
func TestWhileIterationCap(t *testing.T) {
	c, _, err := runVars(t, "\\set n 0\n\\while 1\n\\set n :n + 1\n\\endwhile\n")
	var ee *ExecError
	if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "more than 1000000 loop iterations") || !strings.Contains(ee.Msg, "line 2") || ee.Cmd != "while" {
		t.Fatalf("error %#v", err)
	}
	if n, _ := c.Get("n"); n != "1000000" {
		t.Errorf("n = %s after the cap, want 1000000", n)
	}
	// 1000 × 1000 iterations of nested loops are exactly the cap: allowed.
	if _, _, err := runVars(t, "\\set i 0\n\\while :i < 999\n\\set j 0\n\\set i :i + 1\n\\while :j < 1000\n\\set j :j + 1\n\\endwhile\n\\endwhile\n"); err != nil {
		t.Errorf("999 + 999·1000 iterations: %v", err)
	}
}

func TestWhileNestingErrors(t *testing.T) {
	tests := []struct {
		src, msg string
		line     int
	}{
		{"\\set a 1\n\\endwhile\n", `\endwhile without matching \while`, 2},
		{"\\while 1\nSELECT 1;\n", `\while without matching \endwhile`, 1},
		{"\\while 1\n\\while 2\n\\endwhile\n", `\while without matching \endwhile`, 1},
		{"\\while 1\n\\if 1\n\\endwhile\n\\endif\n", `\endwhile without matching \while: the \if of line 2 is not closed`, 3},
		{"\\if 1\n\\while 1\n\\endif\n\\endwhile\n", `\endif without matching \if: the \while of line 2 is not closed`, 3},
		{"\\if 1\n\\while 1\n\\else\n\\endwhile\n\\endif\n", `\else without matching \if: the \while of line 2 is not closed`, 3},
		{"\\if 1\n\\while 1\n\\endwhile\n", `\if without matching \endif`, 1},
	}
	for _, tt := range tests {
		s, err := Parse("n.sql", tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		err = s.CheckConditionals()
		var ce *ConditionError
		if !errors.As(err, &ce) || ce.Msg != tt.msg || ce.Line != tt.line || !strings.HasPrefix(ce.Where(), "n.sql:") {
			t.Errorf("%q: got %v (line %d), want %q at line %d", tt.src, err, lineOf(ce), tt.msg, tt.line)
		}
	}
	for _, src := range []string{"\\while\n", "\\while 1 +\n", "\\endwhile 1\n"} {
		var pe *ParseError
		if _, err := Parse("a.sql", src); !errors.As(err, &pe) || pe.Line != 1 {
			t.Errorf("%q: %v, want a ParseError at line 1", src, err)
		}
	}
}

func lineOf(ce *ConditionError) int {
	if ce == nil {
		return 0
	}
	return ce.Line
}

// TestExtensionsPgbench: pgbench's language (ParsePgbench) knows none of
// pgtrial's commands; they are "invalid command" as any unknown one.
func TestExtensionsPgbench(t *testing.T) {
	for _, src := range []string{"\\while 1\n", "\\endwhile\n", "\\think 1 s\n", "\\tally key :k\n"} {
		_, err := ParsePgbench("p.sql", src)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Msg != "invalid command" {
			t.Fatalf("%q: %v", src, err)
		}
		_, err = ParsePgbench("p.sql", strings.Replace(src, src[1:strings.IndexAny(src, " \n")], "nosuch", 1))
		var pe2 *ParseError
		if !errors.As(err, &pe2) || pe2.Pgbench() != strings.Replace(pe.Pgbench(), pe.Command, "nosuch", -1) {
			t.Errorf("%q: %q, an unknown command gives %v", src, pe.Pgbench(), err)
		}
	}
}
