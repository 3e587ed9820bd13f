package trial

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// Script is one validated script of a run's workload.
type Script struct {
	Name    string // builtin name or file path: the summary's and the tags' name
	Builtin bool
	Weight  int
	Parsed  *script.Script
}

// ParseScriptArg parses one -b or -f value, NAME[@WEIGHT] (weight 1 when
// none is given), and loads the script.
func ParseScriptArg(builtin bool, arg string) (Script, error) {
	orig, weight := arg, 1
	if i := strings.LastIndexByte(arg, '@'); i >= 0 {
		w, err := strconv.ParseInt(arg[i+1:], 10, 32)
		if err != nil || w < 0 {
			return Script{}, fmt.Errorf("invalid weight in %q: expecting NAME@WEIGHT with WEIGHT an integer 0..2147483647", orig)
		}
		arg, weight = arg[:i], int(w)
	}
	return LoadScript(builtin, arg, weight)
}

// LoadScript loads and checks a built-in script (any unambiguous prefix of
// its name) or a pgbench-language file.
func LoadScript(builtin bool, arg string, weight int) (Script, error) {
	var name, desc, src string
	if builtin {
		bi, n := workload.FindBuiltin(arg)
		if n != 1 {
			return Script{}, fmt.Errorf("%s %q: choose one of %s (any unambiguous prefix), or give a script file with -f", workload.NotOneBuiltin(n), arg, strings.Join(workload.BuiltinNames(), ", "))
		}
		name, desc, src = bi.Name, bi.Desc, bi.Script
	} else {
		if arg == "" {
			return Script{}, errors.New("-f needs a file name")
		}
		data, err := os.ReadFile(arg)
		if err != nil {
			return Script{}, fmt.Errorf("read script: %w", err)
		}
		name, desc, src = arg, arg, string(data)
	}
	s, err := loadText(name, desc, src, weight)
	s.Builtin = builtin
	return s, err
}

// loadText parses and checks one script's text.
func loadText(name, desc, src string, weight int) (Script, error) {
	parsed, err := script.Parse(desc, src)
	if err != nil {
		var pe *script.ParseError
		if errors.As(err, &pe) && pe.AtLine > 0 {
			return Script{}, fmt.Errorf("%v (at %s)", err, pe.Where())
		}
		return Script{}, err
	}
	if len(parsed.Commands) == 0 {
		return Script{}, fmt.Errorf("script %s has no commands", name)
	}
	if err := parsed.CheckConditionals(); err != nil {
		if ce, ok := err.(*script.ConditionError); ok {
			return Script{}, fmt.Errorf("%v (at %s)", err, ce.Where())
		}
		return Script{}, err
	}
	return Script{Name: name, Weight: weight, Parsed: parsed}, nil
}

// WorkloadName names a workload: its scripts' names joined by "+", a
// builtin by its name, a file by its base name without extension.
func WorkloadName(scripts []Script) string {
	names := make([]string, len(scripts))
	for i, s := range scripts {
		if s.Builtin {
			names[i] = s.Name
			continue
		}
		base := filepath.Base(s.Name)
		names[i] = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return strings.Join(names, "+")
}

// NeedsPgbench says whether any script is a built-in one (they need the
// pgbench tables and the scale).
func NeedsPgbench(scripts []Script) bool {
	for _, s := range scripts {
		if s.Builtin {
			return true
		}
	}
	return false
}

// PrepareScripts assigns the prepared statements' names of every script in
// protocol mode (in order, as pgbench numbers them).
func PrepareScripts(scripts []Script, mode script.Mode) error {
	prep := 0
	for _, s := range scripts {
		var err error
		if prep, err = s.Parsed.Prepare(mode, prep); err != nil {
			return fmt.Errorf("script %s: %w", s.Name, err)
		}
	}
	return nil
}
