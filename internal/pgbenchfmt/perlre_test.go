package pgbenchfmt

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The TAP cases' regexps are Perl's. Go's RE2 has the same syntax for what they use,
// with three exceptions handled here:
//   - "$" in Perl (without /m) also matches before a final newline: it becomes
//     (?:\n?\z); "\Z" likewise.
//   - A negative lookahead "(?!X)" standing alone is vacuous in these tests (Perl
//     finds it true at the end of the string): such a regexp always matches.
//   - Backreferences (\1, \2): the groups they refer to are enumerated on the text
//     and each candidate is tried with the references replaced by literals.

// perlRegexp converts a Perl regexp without lookaheads or backreferences.
func perlRegexp(p string) (*regexp.Regexp, error) {
	multiline := multilineFlag.MatchString(p)
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if p[i+1] == 'Z' && !inClass {
				b.WriteString(`(?:\n?\z)`)
			} else {
				b.WriteByte(c)
				b.WriteByte(p[i+1])
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is literal.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '$' && !multiline:
			b.WriteString(`(?:\n?\z)`)
		default:
			b.WriteByte(c)
		}
	}
	return regexp.Compile(b.String())
}

var (
	multilineFlag    = regexp.MustCompile(`^\(\?[a-z]*m[a-z]*\)`)
	vacuousLookahead = regexp.MustCompile(`^(\(\?[a-z]+\))?\(\?![^()]*\)$`)
	backref          = regexp.MustCompile(`\\[1-9]`)
)

// perlMatch reports whether Perl's "text =~ /re/" would be true.
func perlMatch(re, text string) (bool, error) {
	if vacuousLookahead.MatchString(re) {
		return true, nil
	}
	if strings.Contains(re, "(?!") || strings.Contains(re, "(?=") || strings.Contains(re, "(?<") {
		return false, fmt.Errorf("lookaround is not supported")
	}
	if refs := backrefPositions(re); len(refs) > 0 {
		return matchWithBackrefs(re, refs, text)
	}
	r, err := perlRegexp(re)
	if err != nil {
		return false, err
	}
	return r.MatchString(text), nil
}

// group is a capturing group: its number and its span in the pattern.
type group struct{ n, start, end int }

// scanPattern finds the capturing groups and the backreferences (\N outside classes).
func scanPattern(p string) (groups []group, refs [][2]int) {
	var stack []int // indices into groups, -1 for non-capturing
	inClass := false
	n := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if !inClass && p[i+1] >= '1' && p[i+1] <= '9' {
				refs = append(refs, [2]int{i, int(p[i+1] - '0')})
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '(':
			if i+1 < len(p) && p[i+1] == '?' {
				stack = append(stack, -1)
				continue
			}
			n++
			groups = append(groups, group{n: n, start: i})
			stack = append(stack, len(groups)-1)
		case c == ')':
			if len(stack) == 0 {
				continue
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top >= 0 {
				groups[top].end = i + 1
			}
		}
	}
	return groups, refs
}

func backrefPositions(p string) [][2]int {
	if !backref.MatchString(p) {
		return nil
	}
	_, refs := scanPattern(p)
	return refs
}

// matchWithBackrefs tries every way the referenced groups can match in text.
func matchWithBackrefs(p string, refs [][2]int, text string) (bool, error) {
	groups, _ := scanPattern(p)
	byN := map[int]group{}
	for _, g := range groups {
		byN[g.n] = g
	}
	firstRef := refs[0][0]
	cut := 0
	referenced := map[int]bool{}
	for _, r := range refs {
		g, ok := byN[r[1]]
		if !ok || g.end == 0 || g.end > firstRef {
			return false, fmt.Errorf("backreference \\%d before its group", r[1])
		}
		referenced[r[1]] = true
		cut = max(cut, g.end)
	}
	prefix, err := perlRegexp(p[:cut])
	if err != nil {
		return false, err
	}
	// Every match of the prefix, overlapping ones included.
	for pos := 0; pos <= len(text); {
		loc := prefix.FindStringSubmatchIndex(text[pos:])
		if loc == nil {
			break
		}
		values := map[int]string{}
		for n := range referenced {
			if s, e := loc[2*n], loc[2*n+1]; s >= 0 {
				values[n] = text[pos+s : pos+e]
			}
		}
		if ok, err := matchLiteral(p, groups, refs, referenced, values, text); err != nil || ok {
			return ok, err
		}
		pos += loc[0] + 1
	}
	return false, nil
}

// matchLiteral matches p with the referenced groups and their backreferences fixed to
// the given values.
func matchLiteral(p string, groups []group, refs [][2]int, referenced map[int]bool, values map[int]string, text string) (bool, error) {
	type edit struct {
		start, end int
		with       string
	}
	var edits []edit
	for _, g := range groups {
		if referenced[g.n] {
			v, ok := values[g.n]
			if !ok {
				return false, nil // the group did not take part in the match
			}
			edits = append(edits, edit{g.start, g.end, "(" + regexp.QuoteMeta(v) + ")"})
		}
	}
	for _, r := range refs {
		edits = append(edits, edit{r[0], r[0] + 2, "(?:" + regexp.QuoteMeta(values[r[1]]) + ")"})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.start < at {
			continue // nested in a group already replaced
		}
		b.WriteString(p[at:e.start])
		b.WriteString(e.with)
		at = e.end
	}
	b.WriteString(p[at:])
	r, err := perlRegexp(b.String())
	if err != nil {
		return false, err
	}
	return r.MatchString(text), nil
}

func TestPerlMatch(t *testing.T) {
	tests := []struct {
		re, text string
		want     bool
	}{
		{`^$`, "", true},
		{`^$`, "\n", true},
		{`^$`, "x", false},
		{`^$`, "x\n", false},
		{`(?i)^$`, "", true},
		{`a$`, "xa\n", true},
		{`a$`, "a\nb", false},
		{`(?m)^b$`, "a\nb\nc", true},
		{`a\Z`, "a\n", true},
		{`[$]`, "$", true},
		{`\$1 = '1'`, "$1 = '1'", true},
		{`invalid weight specification: \@one`, "invalid weight specification: @one", true},
		{`(?!vacuuming)`, "vacuuming", true},
		{`(?s)(?!UPDATE)`, "", true},
		{`(\d+)/\1`, "10/10", true},
		{`(\d+)/\1`, "10/100", true}, // "10/10" is a prefix of "10/100": Perl agrees
		{`(\d+)/\1\b`, "10/11", false},
		{`(?s)(client (0|1) sending UPDATE xy SET y = y \+ -?\d+\b).*client \2 got an error.*\1`,
			"client 1 sending UPDATE xy SET y = y + 3\nclient 0 sending UPDATE xy SET y = y + 5\nclient 0 got an error\nclient 0 sending UPDATE xy SET y = y + 5\n", true},
		{`(?s)(client (0|1) sending UPDATE xy SET y = y \+ -?\d+\b).*client \2 got an error.*\1`,
			"client 1 sending UPDATE xy SET y = y + 3\nclient 0 sending UPDATE xy SET y = y + 5\nclient 0 got an error\nclient 0 sending UPDATE xy SET y = y + 6\n", false},
		{`(?s)(client (0|1) sending UPDATE xy SET y = y \+ -?\d+\b).*client \2 got an error.*\1`,
			"client 0 sending UPDATE xy SET y = y + 5\nclient 1 got an error\nclient 0 sending UPDATE xy SET y = y + 5\n", false},
	}
	for _, tt := range tests {
		got, err := perlMatch(tt.re, tt.text)
		if err != nil || got != tt.want {
			t.Errorf("perlMatch(%q, %q) = %v, %v; want %v", tt.re, tt.text, got, err, tt.want)
		}
	}
	if _, err := perlMatch(`a(?!b)c`, "ac"); err == nil {
		t.Error("an embedded lookahead should be reported as unsupported")
	}
}
