package script

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/cnum"
)

// Mode is the query protocol (pgbench -M).
type Mode uint8

const (
	Simple   Mode = iota // simple query protocol, variables substituted as text
	Extended             // extended protocol, unnamed statement, :name → $n
	Prepared             // extended protocol, named statements P_n prepared per connection
)

var modeNames = [...]string{Simple: "simple", Extended: "extended", Prepared: "prepared"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "?"
}

// ParseMode parses a -M argument. As in pgbench the match is
// case-sensitive: only "simple", "extended" and "prepared" are accepted.
func ParseMode(s string) (Mode, bool) {
	for m, n := range modeNames {
		if s == n {
			return Mode(m), true
		}
	}
	return 0, false
}

// sqlRef is one ":name" in a SQL command's text.
type sqlRef struct {
	start, end int // the bytes of ":name" in Text
	slot       int32
}

// sqlRefs finds the variable references of a SQL text as pgbench's
// parseVariable/assignVariables/parseQuery do: a ':' followed by a name
// start byte begins a reference that takes all following name bytes; any
// other run of ':' (including "::") is skipped. References are found
// everywhere, inside string literals and comments too. (A ':' ending the
// text is not a reference; pgbench reads past the end of the string there.)
func (p *parser) sqlRefs(text string) []sqlRef {
	var refs []sqlRef
	i := 0
	for {
		k := strings.IndexByte(text[i:], ':')
		if k < 0 {
			return refs
		}
		at := i + k
		if at+1 < len(text) && isVarStart(text[at+1]) {
			j := at + 2
			for j < len(text) && isVarChar(text[j]) {
				j++
			}
			refs = append(refs, sqlRef{start: at, end: j, slot: p.s.syms.intern(text[at+1 : j])})
			i = j
			continue
		}
		i = at
		for i < len(text) && text[i] == ':' {
			i++
		}
	}
}

// Query is a SQL command as sent under a protocol mode.
type Query struct {
	Mode Mode
	// SQL is the text sent: in simple mode the command text, into which
	// variables are substituted at run time (Client.AppendSQL); in extended
	// and prepared mode the text with every :name replaced by $1, $2, …
	// (one parameter per occurrence, inside literals too).
	SQL string
	// Name is the prepared statement's name, P_n, in prepared mode.
	Name string
	// Params are the variable names bound to $1, $2, … (Client.AppendParams).
	Params []string
}

// Prepare post-processes the script's SQL commands for a protocol mode, as
// pgbench does once all options are known: in extended and prepared mode
// each :name becomes a parameter (at most 255 per statement, else
// "statement has too many arguments (maximum is 255): SQL"), and in
// prepared mode statements are named P_<n>. pgbench numbers statements over
// all scripts in order, so the caller passes the number of the script's
// first statement and gets the number for the next script.
//
// Prepare must run before the script is shared by clients.
func (s *Script) Prepare(mode Mode, firstPrepNum int) (int, error) {
	n := firstPrepNum
	for _, c := range s.Commands {
		if c.Kind != SQLCommand {
			continue
		}
		q := Query{Mode: mode}
		switch mode {
		case Simple:
			q.SQL = c.Text
			c.Query = q
			continue
		case Prepared:
			q.Name = "P_" + strconv.Itoa(n)
			n++
		case Extended:
		default:
			return n, fmt.Errorf("unknown query mode %d", mode)
		}
		if len(c.refs) >= maxArgs {
			return n, fmt.Errorf("statement has too many arguments (maximum is %d): %s", maxArgs-1, c.Text)
		}
		var b strings.Builder
		last := 0
		q.Params = make([]string, len(c.refs))
		for k, r := range c.refs {
			b.WriteString(c.Text[last:r.start])
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(k + 1))
			last = r.end
			q.Params[k] = s.syms.names[r.slot]
		}
		b.WriteString(c.Text[last:])
		q.SQL = b.String()
		c.Query = q
	}
	return n, nil
}

// sleepSpec is a parsed \sleep argument.
type sleepSpec struct {
	fromVar bool
	slot    int32  // variable slot when fromVar
	name    string // variable name (argv[1] without ':')
	literal int32  // atoi(argv[1]) otherwise
	mult    int32  // µs per unit: 1, 1000, 1000000 (no unit: seconds)
}

func (p *parser) sleepSpec(args []string) sleepSpec {
	sp := sleepSpec{mult: 1000000}
	if len(args) > 2 {
		switch {
		case equalFoldASCII(args[2], "ms"):
			sp.mult = 1000
		case equalFoldASCII(args[2], "us"):
			sp.mult = 1
		}
	}
	if a := args[1]; a[0] == ':' {
		sp.fromVar = true
		sp.name = a[1:]
		sp.slot = p.s.syms.intern(sp.name)
	} else {
		sp.literal = cnum.Atoi(a)
	}
	return sp
}

// wordArg is one word of a \setshell or \shell command line.
type wordArg struct {
	text  string // the literal, or the word as written for a variable
	isVar bool
	slot  int32
}

// wordArgs classifies shell words as pgbench's runShellCommand does: a word
// not starting with ':' is literal, "::x" is the literal ":x", ":var" is the
// variable's value.
func (p *parser) wordArgs(words []string) []wordArg {
	out := make([]wordArg, len(words))
	for i, w := range words {
		switch {
		case w[0] != ':':
			out[i] = wordArg{text: w}
		case len(w) > 1 && w[1] == ':':
			out[i] = wordArg{text: w[1:]}
		default:
			out[i] = wordArg{text: w, isVar: true, slot: p.s.syms.intern(w[1:])}
		}
	}
	return out
}
