package script

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// A 5 MB offending line is cut around the column (the old Error echoed it
// whole), binary garbage is escaped (it was written raw), and the caret
// stays under the offending character; Pgbench keeps pgbench's bytes.
func TestParseErrorShowsACutEscapedLine(t *testing.T) {
	huge := "\\set x 1 + " + strings.Repeat("1 + ", 5<<20/4) + "@ + 2"
	_, err := Parse("big.sql", huge)
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want a ParseError", err)
	}
	msg := pe.Error()
	if len(msg) > 1000 {
		t.Fatalf("the message is %d bytes long; want the line cut", len(msg))
	}
	lines := strings.Split(msg, "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "…") || !strings.HasSuffix(lines[1], "…") && !strings.HasSuffix(lines[1], "+ 2") {
		t.Fatalf("message %q: want the header, the cut line and the caret", msg)
	}
	caret := strings.Index(lines[2], "^")
	if got := []rune(lines[1])[caret]; got != '@' {
		t.Errorf("the caret is under %q, want it under the '@':\n%s", got, msg)
	}
	if pgb := pe.Pgbench(); !strings.Contains(pgb, huge) {
		t.Error("Pgbench() does not hold the whole line, as pgbench prints it")
	}

	garbage := "\\set x 1 + \x01\xff\x1b[2J\x7f\u200b @" // (a NUL would end the script, as in pgbench)
	_, err = Parse("bin.sql", garbage)
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want a ParseError", err)
	}
	msg = pe.Error()
	if !utf8.ValidString(msg) || strings.ContainsAny(msg, "\x01\x1b\x7f\u200b") {
		t.Errorf("message %q holds raw control or invalid bytes", msg)
	}
	for _, want := range []string{`\x01`, `\xff`, `\x1b`, `\x7f`, `\u200b`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks the escape %s", msg, want)
		}
	}
	if !strings.Contains(pe.Pgbench(), "\x01\xff\x1b") {
		t.Error("Pgbench() escaped the bytes pgbench prints raw")
	}
}

func TestShownText(t *testing.T) {
	for _, tc := range []struct {
		text       string
		at         int
		shown, pad string
	}{
		{"\\set x 1 +", 9, "\\set x 1 +", strings.Repeat(" ", 9)},
		{"\\set\tx @", 7, "\\set\tx @", "    \t  "},
		{"a\x00b", 2, `a\x00b`, "     "},
		{"é@", 2, "é@", " "}, // one space for é's two bytes
		{strings.Repeat("a", 300), 0, strings.Repeat("a", 20) + "…", ""},
		{strings.Repeat("a", 300), 299, "…" + strings.Repeat("a", 20), " " + strings.Repeat(" ", 19)},
		{strings.Repeat("é", 30), 31, "…" + strings.Repeat("é", 9) + "…", " " + strings.Repeat(" ", 5)},
	} {
		width := 200
		if len(tc.text) > 20 {
			width = 20
		}
		shown, pad := shownText(tc.text, tc.at, width)
		if shown != tc.shown || pad != tc.pad {
			t.Errorf("shownText(%q, %d) = %q, %q; want %q, %q", tc.text, tc.at, shown, pad, tc.shown, tc.pad)
		}
	}
}
