package pgbenchfmt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/pgtrial/pgtrial/internal/cnum"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// parseScriptWeight splits "NAME[@W]" at the last '@' (pgbench's parseScriptWeight):
// W is read with strtol and must be in 0..INT_MAX; no '@' means weight 1.
func (p *parser) parseScriptWeight(option string) (string, int, error) {
	sep := strings.LastIndexByte(option, weightSeparator)
	if sep < 0 {
		return option, 1, nil
	}
	name, spec := option[:sep], option[sep+1:]
	v, end, overflow := cnum.Strtol(spec)
	if overflow || end == 0 || end != len(spec) {
		return "", 0, p.log.fatal("invalid weight specification: %s", option[sep:])
	}
	if v > maxInt || v < 0 {
		return "", 0, p.log.fatal("weight specification out of range (0 .. %d): %d", maxInt, v)
	}
	return name, int(v), nil
}

// findBuiltin is pgbench's findBuiltin: an unambiguous prefix, or an error followed
// by the list.
func (p *parser) findBuiltin(name string) (*workload.BuiltinScript, error) {
	bi, n := workload.FindBuiltin(name)
	if n == 1 {
		return bi, nil
	}
	if n == 0 {
		p.log.Error("no builtin script found for name \"%s\"", name)
	} else {
		p.log.Error("ambiguous builtin name: %d builtin scripts found for prefix \"%s\"", n, name)
	}
	listBuiltins(p.sys.Stderr)
	return nil, &Exit{Code: 1}
}

// mustBuiltin returns a built-in script by its full name.
func mustBuiltin(name string) *workload.BuiltinScript {
	bi, n := workload.FindBuiltin(name)
	if n != 1 || bi.Name != name {
		panic("pgbenchfmt: no built-in script " + name)
	}
	return bi
}

// listBuiltins prints pgbench's list of built-in scripts (listAvailableScripts).
func listBuiltins(w io.Writer) {
	fmt.Fprintf(w, "Available builtin scripts:\n")
	for _, b := range workload.BuiltinScripts {
		fmt.Fprintf(w, "  %13s: %s\n", b.Name, b.Desc)
	}
	fmt.Fprintf(w, "\n")
}

func (p *parser) addBuiltin(bi *workload.BuiltinScript, weight int) error {
	return p.addScript(bi.Desc, bi.Name, bi.Script, weight)
}

// addFile reads a script file ("-" is stdin) and adds it (pgbench's process_file).
func (p *parser) addFile(name string, weight int) error {
	var src []byte
	var err error
	if name == "-" {
		src, err = io.ReadAll(p.sys.Stdin)
		if err != nil {
			return p.log.fatal("could not read file \"%s\": %s", name, strerror(err))
		}
	} else {
		src, err = p.sys.ReadFile(name)
		if err != nil {
			// fopen succeeds on a directory; the read then fails.
			if errors.Is(err, syscall.EISDIR) {
				return p.log.fatal("could not read file \"%s\": %s", name, strerror(err))
			}
			return p.log.fatal("could not open file \"%s\": %s", name, strerror(err))
		}
	}
	// pgbench reads the file into a C string: a NUL byte ends it.
	text := string(src)
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	return p.addScript(name, "", text, weight)
}

// addScript parses a script and appends it (pgbench's ParseScript and addScript):
// a syntax error, an empty script, the 129th script and a bad \if structure are fatal,
// in that order.
func (p *parser) addScript(desc, builtin, src string, weight int) error {
	parsed, err := script.ParsePgbench(desc, src) // pgtrial's extensions are "invalid command" here
	if err != nil {
		// pgbench's lines; then, when they do not show it (no caret, or pgbench's
		// misleading line for \gset), where the error is.
		var pe *script.ParseError
		if !errors.As(err, &pe) {
			p.log.Error("%v", err)
			return &Exit{Code: 1}
		}
		p.log.Error("%s", pe.Pgbench()) // pgbench's bytes: the whole line, raw
		if pe.AtLine > 0 && !(pe.Text != "" && pe.Column > 0 && pe.Line == pe.AtLine) {
			p.log.Detail("the command is at %s", pe.Where())
		}
		return &Exit{Code: 1}
	}
	if len(parsed.Commands) == 0 {
		return p.log.fatal("empty command list for script \"%s\"", desc)
	}
	if len(p.o.Scripts) >= MaxScripts {
		return p.log.fatal("at most %d SQL scripts are allowed", MaxScripts)
	}
	if err := parsed.CheckConditionals(); err != nil {
		// pgbench's line, then where it is, which pgbench does not say.
		p.log.Error("%v", err)
		if ce, ok := err.(*script.ConditionError); ok {
			what := "the command"
			if ce.Command > len(parsed.Commands) { // \if without matching \endif: the open \if
				what = `the unclosed \if`
			}
			p.log.Detail("%s is at %s", what, ce.Where())
		}
		return &Exit{Code: 1}
	}
	p.o.Scripts = append(p.o.Scripts, Script{Desc: desc, Builtin: builtin, Weight: weight, Source: src, Parsed: parsed})
	return nil
}

// strerror renders an OS error as C's strerror does ("No such file or directory"):
// Go's texts for errno values are glibc's with a lower-case first letter.
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
