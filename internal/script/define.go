package script

import (
	"fmt"
	"strings"
)

// Define is one script variable given from outside the script: -D
// NAME=VALUE, or an experiment's workload.variables entry.
type Define struct {
	Name, Value string
}

// CutDefine splits NAME=VALUE at its first '=' (the value may hold more);
// ok is false without '=' or with an empty name. It does not check the
// name: pgbench checks it only when the variable is new (ValidVarName).
func CutDefine(s string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(s, "=")
	return name, value, ok && name != ""
}

// ParseDefine is a -D argument of pgtrial's own commands: NAME=VALUE with a
// valid variable name; the value may be empty.
func ParseDefine(s string) (Define, error) {
	name, value, ok := CutDefine(s)
	if !ok {
		return Define{}, fmt.Errorf("invalid -D %q: expecting NAME=VALUE", s)
	}
	if !ValidVarName(name) {
		return Define{}, fmt.Errorf("invalid -D %q: %q is not a valid variable name (letters, digits, '_'; not starting with a digit)", s, name)
	}
	return Define{Name: name, Value: value}, nil
}
