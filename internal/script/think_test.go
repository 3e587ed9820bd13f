package script

import (
	"errors"
	"strings"
	"testing"
)

func TestThinkBounds(t *testing.T) {
	tests := []struct {
		name, src  string
		start, end int
	}{
		{"none", "SELECT 1;\n\\sleep 1\n", 0, 2},
		{"tpcc", "\\think 18 s\n\\set w 1\nSELECT 1;\nSELECT 2;\n\\set think random_exponential(0, 120000, 10)\n\\think :think ms\n", 1, 5},
		{"leading set before think", "\\set k 5\n\\think :k ms\nSELECT 1;\n", 2, 3},
		{"leading in if", "\\if 1\n\\think 1\n\\else\n\\think 2\n\\endif\n\\set a 1\nSELECT 1;\n", 5, 7},
		{"leading in while", "\\set n 0\n\\while :n < 2\n\\think 1 ms\n\\set n :n + 1\n\\endwhile\nSELECT 1;\n", 5, 6},
		{"trailing in if", "SELECT 1;\n\\if 1\nSELECT 2;\n\\think 1\n\\endif\n", 0, 3},
		{"trailing in while", "SELECT 1;\n\\set n 0\n\\while :n < 2\n\\think 1\n\\set n :n + 1\n\\endwhile\n", 0, 2},
		{"no SQL", "\\think 1\n\\set a 1\n", 1, 2},
	}
	for _, tt := range tests {
		s, err := Parse("t.sql", tt.src)
		if err == nil {
			err = s.CheckConditionals()
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if a, b := s.TxBounds(); a != tt.start || b != tt.end {
			t.Errorf("%s: bounds [%d, %d), want [%d, %d)", tt.name, a, b, tt.start, tt.end)
		}
	}
}

func TestThinkPlacementErrors(t *testing.T) {
	tests := []struct {
		src, msg string
		line     int
	}{
		{"SELECT 1;\n\\think 1\nSELECT 2;\n", `\think between SQL commands (lines 1 and 3)`, 2},
		{"\\while 1\n\\think 1\nSELECT 1;\n\\endwhile\n", `\think inside the \while of line 1, which runs SQL`, 2},
		{"SELECT 0;\n\\while 1\nSELECT 1;\n\\think 1\n\\endwhile\n", `\think inside the \while of line 2, which runs SQL`, 4},
		{"\\if 1\n\\think 1\nSELECT 1;\n\\endif\n", `\think inside the \if of line 1, which runs SQL after it`, 2},
		{"\\if 1\n\\if 0\n\\think 1\n\\endif\nSELECT 1;\n\\endif\nSELECT 2;\n", `\think inside the \if of line 1, which runs SQL after it`, 3},
	}
	for _, tt := range tests {
		s, err := Parse("p.sql", tt.src)
		if err != nil {
			t.Fatal(err)
		}
		err = s.CheckConditionals()
		var ce *ConditionError
		if !errors.As(err, &ce) || !strings.HasPrefix(ce.Msg, tt.msg) || ce.Line != tt.line || !strings.HasPrefix(err.Error(), `placement error in script "p.sql"`) {
			t.Errorf("%q: %v (line %d), want %q at line %d", tt.src, err, lineOf(ce), tt.msg, tt.line)
		}
	}
	for _, src := range []string{"\\think\n", "\\think 1 h\n", "\\think 1 s 2\n", "\\think x\n"} {
		var pe *ParseError
		if _, err := Parse("a.sql", src); !errors.As(err, &pe) || pe.Line != 1 {
			t.Errorf("%q: %v, want a ParseError at line 1", src, err)
		}
	}
}
