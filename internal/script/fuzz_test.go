package script

import (
	"errors"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// FuzzParse parses arbitrary script text: Parse must not panic, syntax
// errors must point at a line >= 1, and a parsed script must survive the
// static checks, Prepare in every mode and one transaction of its
// meta-commands (shell commands are built, never run).
func FuzzParse(f *testing.F) {
	for _, s := range diffScripts {
		f.Add(s)
	}
	for _, s := range splitScripts {
		f.Add(s)
	}
	f.Add(tpcbLike)
	for _, s := range extensionScripts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse("fuzz.sql", src)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v", err, err)
			}
			if pe.Line < 1 || pe.Column < 0 || pe.Msg == "" || pe.File != "fuzz.sql" {
				t.Fatalf("bad ParseError %+v", *pe)
			}
			_ = pe.Error()
			return
		}
		for i, c := range s.Commands {
			if c.Index != i || c.Line < 1 || (c.Kind != SQLCommand && c.Kind != MetaCommand) {
				t.Fatalf("command %d: %+v", i, c)
			}
			if c.Kind == MetaCommand && (len(c.Args) == 0 || c.Text == "" || c.Text[0] != '\\') {
				t.Fatalf("meta-command %d: %+v", i, c)
			}
		}
		_ = s.CheckEmpty()
		checked := s.CheckConditionals() == nil
		for _, m := range []Mode{Extended, Simple, Prepared} {
			if _, err := s.Prepare(m, 0); err != nil && m == Simple {
				t.Fatalf("Prepare(simple): %v", err)
			}
		}
		runFuzzTransaction(t, s, checked)
	})
}

// runFuzzTransaction runs one transaction's meta-commands and builds the SQL
// of the SQL commands.
func runFuzzTransaction(t *testing.T, s *Script, checked bool) {
	c := NewProgram(s).NewClient(0, prng.NewState(7), nil)
	_ = c.SetString("option", "v", "12")
	_ = c.SetInt("startup", "scale", 1)
	_ = c.SetInt("startup", "default_seed", 5)
	c.Begin(0)
	steps, loops := 0, false
	for _, cmd := range s.Commands {
		loops = loops || cmd.Meta == MetaWhile
	}
	for i := 0; i < len(s.Commands); i = c.Next(i) {
		if steps++; steps > 10*len(s.Commands)+10 {
			if loops {
				return // a \while may loop up to MaxLoopIterations
			}
			t.Fatal("no progress")
		}
		cmd := s.Commands[i]
		switch {
		case cmd.Kind == SQLCommand:
			_ = c.AppendSQL(nil, i)
			_ = c.AppendParams(nil, i)
		case cmd.Meta == MetaSleep:
			_, _ = c.SleepMicros(i)
		case cmd.Meta == MetaThink:
			_, _ = c.ThinkMicros(i)
		case cmd.Meta == MetaShell:
			_, _ = c.ShellCommand(i)
		case cmd.Meta == MetaSetShell:
			if _, err := c.ShellCommand(i); err == nil {
				_ = c.StoreShellResult(i, []byte("42\n"))
			}
		default:
			if err := c.Exec(i); err != nil {
				var ee *ExecError
				if !errors.As(err, &ee) || ee.Cmd == "" || ee.Reason == "" {
					t.Fatalf("command %d: error %T %v", i, err, err)
				}
				return
			}
		}
	}
	if checked && len(c.cond) != 0 {
		t.Fatalf("conditional stack %v at end of a checked script", c.cond)
	}
}

// FuzzEval parses and evaluates an expression with variables holding
// arbitrary strings and numbers: no panic, errors carry a message or are
// pgbench's silent failure, and evaluation is deterministic for a given
// random state.
func FuzzEval(f *testing.F) {
	seeds := []string{"1 + 2 * 3", "random(1, 100000 * :scale)", ":a + :b", "debug(:a) > debug(:b)",
		"CASE WHEN :a THEN :b ELSE :c END", "hash(:a) # permute(:b, 10)", "least(:a, :b, :c, 1.5)",
		"random_zipfian(1, :i, 1.5)", "random_gaussian(:i, 100, :d)", "random_exponential(1, 10, :d)",
		"int(:d) << :i", "NOT :a OR :b AND :c IS NULL", "-9223372036854775808 / :i", "pow(:d, :i)",
		"abs(:a = :b)", "exp(:d) + ln(:d) + sqrt(:d)", "~:i | 3 & 4 # 5 >> 1", "mod(:i, :c)"}
	vals := []string{"1", "0", "-1", "t", "of", "null", "1.5", "", "abc", "9223372036854775807", "nan", "-0x1p3"}
	for k, e := range seeds {
		f.Add(e, vals[k%len(vals)], vals[(k+3)%len(vals)], vals[(k+7)%len(vals)], int64(k), 2.5, uint64(k))
	}
	f.Fuzz(func(t *testing.T, expr, a, b, c string, i int64, d float64, seed uint64) {
		s, err := Parse("e", "\\set x "+expr+"\n\\if "+expr+"\n\\endif\n")
		if err != nil {
			return
		}
		prog := NewProgram(s)
		eval := func() (string, string, Value) {
			cl := prog.NewClient(0, prng.NewState(seed), nil)
			for name, v := range map[string]string{"a": a, "b": b, "c": c} {
				if err := cl.SetString("option", name, v); err != nil {
					t.Fatal(err)
				}
			}
			_ = cl.SetInt("startup", "i", i)
			_ = cl.SetValue("startup", "d", DoubleValue(d))
			_ = cl.SetInt("startup", "scale", i%1000)
			_ = cl.SetInt("startup", "default_seed", int64(seed))
			cl.Begin(0)
			v, err := cl.Eval(0)
			msg := ""
			if err != nil {
				msg = err.Error()
				if msg == "" {
					t.Fatal("empty error message")
				}
			}
			if err := cl.Exec(0); err != nil {
				var ee *ExecError
				if !errors.As(err, &ee) {
					t.Fatalf("Exec: %T %v", err, err)
				}
			}
			return msg, v.String(), v
		}
		m1, s1, v1 := eval()
		m2, s2, v2 := eval()
		if m1 != m2 || s1 != s2 || v1.Kind() != v2.Kind() {
			t.Fatalf("not deterministic: %q %q / %q %q", m1, s1, m2, s2)
		}
		if m1 == "" && (v1.Kind() < KindNull || v1.Kind() > KindDouble) {
			t.Fatalf("bad kind %v", v1.Kind())
		}
	})
}

// extensionScripts seed the fuzzer with pgtrial's extensions.
var extensionScripts = []string{
	"\\set ol 1\n\\while :ol <= 10\n\\set i_id random(1, 100000)\nSELECT :i_id \\gset\n\\set ol :ol + 1\n\\endwhile\n",
	"\\while 1\n\\if 0\n\\endwhile\n\\endif\n",
	"\\think 18 s\nSELECT 1;\n\\set think random_exponential(0, 120000, 10)\n\\think :think ms\n",
	"SELECT 1;\n\\think 1\nSELECT 2;\n",
	"\\set k random(1, 1000)\n\\tally key :k\nSELECT :k;\n",
}
