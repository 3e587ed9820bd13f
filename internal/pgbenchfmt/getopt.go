package pgbenchfmt

import (
	"fmt"
	"strings"
)

// This file is a getopt_long that behaves like glibc's, which is what pgbench uses on
// Linux: the same option syntax, the same permutation of operands, the same
// abbreviations of long options and the same complaints, so that a command line that
// works (or fails) with pgbench works (or fails the same way) here.
//
// Syntax, as glibc:
//   - "-abc" is a cluster of short options; an option that takes an argument takes the
//     rest of the cluster ("-c4", "-nc4") or, if nothing is left, the next argument
//     ("-c 4", even "-c -4").
//   - "--name=value" and "--name value" for long options with an argument; "--name=x"
//     for a long option without one is an error.
//   - A long option may be abbreviated to any prefix that is unique among the long
//     options ("--cli" = "--client"); an exact name always wins ("--log" is not
//     ambiguous with "--log-prefix").
//   - "--" ends the options; "-" alone is an operand.
//   - Operands may appear anywhere (they are permuted to the end), unless
//     POSIXLY_CORRECT is set, in which case the first operand ends the options.

// argKind says whether an option takes an argument.
type argKind int

const (
	noArgument argKind = iota
	requiredArgument
)

// longOption is one entry of getopt_long's table.
type longOption struct {
	name string
	arg  argKind
	code int // the short option letter, or a code above 255 for long-only options
}

// addition says whether o is pgtrial's own option (code ≥ optFirstAddition):
// an abbreviation matches those only when it matches none of pgbench's, so
// every abbreviation pgbench takes (or finds ambiguous) means here what it
// means there.
func (o *longOption) addition() bool { return o.code >= optFirstAddition }

// getoptEvent is one option found on the command line.
type getoptEvent struct {
	code int    // longOption.code or the short letter
	arg  string // the argument, if the option takes one
}

// getopt walks a command line like glibc's getopt_long.
type getopt struct {
	args      []string
	shortOpts map[byte]argKind
	longOpts  []longOption
	inOrder   bool // POSIXLY_CORRECT: the first operand ends the options

	next     int    // index of the next element of args
	cluster  string // rest of the current short-option cluster, "" if none
	operands []string
	done     bool
}

// newGetopt prepares args (without the program name) for scanning with a getopt
// option string (letters, each followed by ':' if it takes an argument) and a table of
// long options.
func newGetopt(args []string, optstring string, longOpts []longOption, posixlyCorrect bool) *getopt {
	g := &getopt{args: args, shortOpts: map[byte]argKind{}, longOpts: longOpts, inOrder: posixlyCorrect}
	for i := 0; i < len(optstring); i++ {
		c := optstring[i]
		kind := noArgument
		if i+1 < len(optstring) && optstring[i+1] == ':' {
			kind = requiredArgument
			i++
		}
		g.shortOpts[c] = kind
	}
	return g
}

// nextOption returns the next option. ok is false when there are no more options (the
// operands are then in g.operands). A non-nil err is glibc's complaint, without the
// program name and without the newline.
func (g *getopt) nextOption() (ev getoptEvent, ok bool, err error) {
	if g.cluster == "" {
		for {
			if g.done || g.next >= len(g.args) {
				g.done = true
				return getoptEvent{}, false, nil
			}
			a := g.args[g.next]
			if a == "--" {
				g.next++
				g.operands = append(g.operands, g.args[g.next:]...)
				g.next = len(g.args)
				g.done = true
				return getoptEvent{}, false, nil
			}
			if len(a) < 2 || a[0] != '-' {
				// An operand.
				if g.inOrder {
					g.operands = append(g.operands, g.args[g.next:]...)
					g.next = len(g.args)
					g.done = true
					return getoptEvent{}, false, nil
				}
				g.operands = append(g.operands, a)
				g.next++
				continue
			}
			g.next++
			if strings.HasPrefix(a, "--") {
				return g.longOption(a[2:])
			}
			g.cluster = a[1:]
			break
		}
	}
	c := g.cluster[0]
	g.cluster = g.cluster[1:]
	kind, known := g.shortOpts[c]
	if !known || c == ':' || c == ';' {
		g.cluster = ""
		return getoptEvent{}, false, fmt.Errorf("invalid option -- '%s'", string([]byte{c}))
	}
	ev = getoptEvent{code: int(c)}
	if kind == requiredArgument {
		switch {
		case g.cluster != "":
			ev.arg = g.cluster
			g.cluster = ""
		case g.next < len(g.args):
			ev.arg = g.args[g.next]
			g.next++
		default:
			return getoptEvent{}, false, fmt.Errorf("option requires an argument -- '%s'", string([]byte{c}))
		}
	}
	return ev, true, nil
}

// longOption handles "--" + text (text is name or name=value).
func (g *getopt) longOption(text string) (getoptEvent, bool, error) {
	name, value, hasValue := strings.Cut(text, "=")
	var found *longOption
	for i := range g.longOpts {
		if g.longOpts[i].name == name {
			found = &g.longOpts[i]
			break
		}
	}
	if found == nil {
		var matches []*longOption
		for _, additions := range []bool{false, true} {
			for i := range g.longOpts {
				if g.longOpts[i].addition() == additions && strings.HasPrefix(g.longOpts[i].name, name) {
					matches = append(matches, &g.longOpts[i])
				}
			}
			if len(matches) > 0 {
				break
			}
		}
		switch len(matches) {
		case 0:
			return getoptEvent{}, false, fmt.Errorf("unrecognized option '--%s'", text)
		case 1:
			found = matches[0]
		default:
			// glibc lists the candidates in table order. (It would accept the first
			// if all candidates had the same argument kind and code; pgbench's long
			// options all have distinct codes.)
			var b strings.Builder
			fmt.Fprintf(&b, "option '--%s' is ambiguous; possibilities:", text)
			for _, m := range matches {
				fmt.Fprintf(&b, " '--%s'", m.name)
			}
			return getoptEvent{}, false, fmt.Errorf("%s", b.String())
		}
	}
	ev := getoptEvent{code: found.code}
	switch {
	case hasValue && found.arg == noArgument:
		return getoptEvent{}, false, fmt.Errorf("option '--%s' doesn't allow an argument", found.name)
	case hasValue:
		ev.arg = value
	case found.arg == requiredArgument:
		if g.next >= len(g.args) {
			return getoptEvent{}, false, fmt.Errorf("option '--%s' requires an argument", found.name)
		}
		ev.arg = g.args[g.next]
		g.next++
	}
	return ev, true, nil
}
