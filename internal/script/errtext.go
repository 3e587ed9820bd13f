package script

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// shownWidth is about how many characters of a script line an error shows:
// the part around the error's column, cut with "…" (a 5 MB line is not
// echoed whole).
const shownWidth = 200

// shownText is text as an error shows it: at most about width characters
// (bytes of text) around byte offset at (0-based; 0 also when unknown), "…"
// where it was cut, and every non-printable byte or character escaped as Go
// quotes it (\x00, \r, \x7f, \u200b; an invalid UTF-8 byte as \xff); tabs
// and the newlines of a command continued with a backslash are kept. pad is
// what goes before a caret under the byte at offset at: a space per
// character shown before it (a newline too, as pgbench counts it), a tab for
// a tab, so that on one line the caret stays under it.
func shownText(text string, at, width int) (shown, pad string) {
	at = min(max(at, 0), len(text))
	start, end := 0, len(text)
	if len(text) > width {
		start = max(at-width/2, 0)
		end = min(start+width, len(text))
		start = max(min(start, end-width), 0)
		for start < len(text) && !utf8.RuneStart(text[start]) {
			start++
		}
		for end > start && end < len(text) && !utf8.RuneStart(text[end]) {
			end--
		}
	}
	var b, p strings.Builder
	if start > 0 {
		b.WriteString("…")
		p.WriteByte(' ')
	}
	for i := start; i < end; {
		r, size := utf8.DecodeRuneInString(text[i:])
		var piece string
		switch {
		case r == utf8.RuneError && size == 1:
			piece = `\x` + strconv.FormatUint(uint64(text[i])|0x100, 16)[1:]
		case r == '\t' || r == '\n' || unicode.IsPrint(r):
			piece = text[i : i+size]
		default:
			q := strconv.QuoteRune(r)
			piece = q[1 : len(q)-1]
		}
		b.WriteString(piece)
		if i < at {
			if r == '\t' {
				p.WriteByte('\t')
			} else {
				p.WriteString(strings.Repeat(" ", utf8.RuneCountInString(piece)))
			}
		}
		i += size
	}
	if end < len(text) {
		b.WriteString("…")
	}
	return b.String(), p.String()
}

// shortText is s escaped and cut to about width bytes from its start, for
// the parts of a message that are not the line itself (a command name, a
// token, a file name).
func shortText(s string, width int) string {
	shown, _ := shownText(s, 0, width)
	return shown
}
