package script

import (
	"fmt"

	"github.com/pgtrial/pgtrial/internal/cnum"
)

// ValidVarName reports whether name is a valid variable name for pgbench
// (valid_variable_name, PostgreSQL 14+): non-empty, the first byte an ASCII
// letter, '_' or any byte >= 0x80, the others also digits.
func ValidVarName(name string) bool {
	if name == "" || !isVarStart(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !isVarChar(name[i]) {
			return false
		}
	}
	return true
}

func isVarStart(c byte) bool {
	return c >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isVarChar(c byte) bool { return isVarStart(c) || isDigit(c) }

// variable is one client variable (pgbench's Variable). A variable holds a
// typed value, a string form, or both: -D, \gset and \aset store strings,
// which are converted on first use in an expression; \set and \setshell
// store typed values, whose string form is produced on first substitution.
// The string form lives in a reusable buffer so that steady-state
// substitution does not allocate.
type variable struct {
	name    string
	defined bool
	val     Value  // KindNone when only the string form is known
	str     []byte // string form, valid when strOK
	strOK   bool
}

func (v *variable) setValue(x Value) {
	v.defined = true
	v.val = x
	v.strOK = false
}

func (v *variable) setString(s []byte) {
	v.defined = true
	v.val = Value{}
	v.str = append(v.str[:0], s...)
	v.strOK = true
}

// text returns the string form (getVariable), formatting the typed value
// into the variable's buffer if needed. The slice is valid until the
// variable is next assigned.
func (v *variable) text() []byte {
	if !v.strOK {
		v.str = v.val.AppendText(v.str[:0])
		v.strOK = true
	}
	return v.str
}

// value returns the typed value, parsing the string form on first use with
// pgbench's rules (makeVariableValue):
//
//   - "" fails without a message;
//   - "null" in any case is NULL;
//   - a case-insensitive prefix of "true" or "yes", or "on", is TRUE;
//   - a case-insensitive prefix of "false" or "no", or "off" or "of", is FALSE;
//   - ^\s*[-+]?[0-9]+$ is an int, with "value "X" is out of range for type
//     bigint" on overflow;
//   - anything else must be a complete strtod() double, else
//     malformed variable "NAME" value: "X".
func (v *variable) value() (Value, error) {
	if v.val.kind != KindNone {
		return v.val, nil
	}
	s := string(v.str)
	switch {
	case s == "":
		return Value{}, errSilent
	case equalFold(s, "null"):
		v.val = NullValue()
	case prefixFold(s, "true") || prefixFold(s, "yes") || equalFold(s, "on"):
		v.val = BoolValue(true)
	case prefixFold(s, "false") || prefixFold(s, "no") || equalFold(s, "off") || equalFold(s, "of"):
		v.val = BoolValue(false)
	case isAnInt(s):
		i, e := strtoint64(s)
		switch e {
		case intRange:
			return Value{}, evalErrorf("value \"%s\" is out of range for type bigint", s)
		case intSyntax:
			return Value{}, evalErrorf("invalid input syntax for type bigint: \"%s\"", s)
		}
		v.val = IntValue(i)
	default:
		f, ok := strtodouble(s)
		if !ok {
			return Value{}, evalErrorf("malformed variable \"%s\" value: \"%s\"", v.name, s)
		}
		v.val = DoubleValue(f)
	}
	return v.val, nil
}

// equalFold is pg_strcasecmp(s, w) == 0 for a lower-case ASCII w.
func equalFold(s, w string) bool { return len(s) == len(w) && cnum.HasPrefixFold(s, 0, w) }

// prefixFold is pg_strncasecmp(s, w, strlen(s)) == 0 for a non-empty s: s is
// a case-insensitive prefix of the lower-case word w.
func prefixFold(s, w string) bool { return len(s) <= len(w) && foldEq(s, w[:len(s)]) }

func foldEq(a, b string) bool {
	for i := 0; i < len(a); i++ {
		if cnum.ToLower(a[i]) != cnum.ToLower(b[i]) {
			return false
		}
	}
	return true
}

// Vars is one client's variable store. Variables named in the program's
// scripts have fixed slots resolved at parse time; other names (from -D,
// \gset, \aset) get client-local slots on first assignment.
type Vars struct {
	prog  *Program
	vars  []variable
	extra map[string]int32
	key   []byte // scratch for prefixed names
}

func (vs *Vars) init(p *Program) {
	vs.prog = p
	vs.vars = make([]variable, len(p.names))
	for i, n := range p.names {
		vs.vars[i].name = n
	}
}

// slot returns the slot of name, or -1.
func (vs *Vars) slot(name []byte) int32 {
	if g, ok := vs.prog.index[string(name)]; ok {
		return g
	}
	if g, ok := vs.extra[string(name)]; ok {
		return g
	}
	return -1
}

// create returns the slot of name, creating the variable if needed; an
// invalid new name fails with "CONTEXT: invalid variable name: "NAME"".
func (vs *Vars) create(context string, name []byte) (int32, error) {
	if g := vs.slot(name); g >= 0 {
		return g, nil
	}
	if !ValidVarName(string(name)) {
		return -1, evalErrorf("%s: invalid variable name: \"%s\"", context, name)
	}
	if vs.extra == nil {
		vs.extra = make(map[string]int32)
	}
	g := int32(len(vs.vars))
	n := string(name)
	vs.vars = append(vs.vars, variable{name: n})
	vs.extra[n] = g
	return g, nil
}

// Defined reports whether the variable exists.
func (vs *Vars) Defined(name string) bool {
	g := vs.slot([]byte(name))
	return g >= 0 && vs.vars[g].defined
}

// SetString assigns a string value (pgbench's putVariable), as -D does with
// context "option" and \gset/\aset with "gset"/"aset". A new variable with an
// invalid name is an error: CONTEXT: invalid variable name: "NAME".
func (vs *Vars) SetString(context, name, value string) error {
	return vs.setBytes(context, []byte(name), []byte(value))
}

// SetBytes is SetString for byte slices: the result columns of \gset and
// \aset. The name is prefix+column, as pgbench builds it; storing into an
// existing variable does not allocate.
func (vs *Vars) SetBytes(context string, prefix string, column, value []byte) error {
	vs.key = append(append(vs.key[:0], prefix...), column...)
	return vs.setBytes(context, vs.key, value)
}

func (vs *Vars) setBytes(context string, name, value []byte) error {
	g, err := vs.create(context, name)
	if err != nil {
		return err
	}
	vs.vars[g].setString(value)
	return nil
}

// SetInt assigns an integer (putVariableInt): the automatic variables
// scale, client_id, default_seed and random_seed, and \setshell results.
func (vs *Vars) SetInt(context, name string, v int64) error {
	return vs.SetValue(context, name, IntValue(v))
}

// SetValue assigns a typed value (putVariableValue).
func (vs *Vars) SetValue(context, name string, v Value) error {
	if v.kind == KindNone {
		return fmt.Errorf("%s: no value for variable %q", context, name)
	}
	g, err := vs.create(context, []byte(name))
	if err != nil {
		return err
	}
	vs.vars[g].setValue(v)
	return nil
}

// Get returns the variable's string form as pgbench substitutes it
// (getVariable), and whether the variable exists.
func (vs *Vars) Get(name string) (string, bool) {
	g := vs.slot([]byte(name))
	if g < 0 || !vs.vars[g].defined {
		return "", false
	}
	return string(vs.vars[g].text()), true
}

// Value returns the variable's typed value, converting a string form with
// pgbench's rules; the error is the message pgbench would print (or a silent
// failure for "").
func (vs *Vars) Value(name string) (Value, error) {
	g := vs.slot([]byte(name))
	if g < 0 || !vs.vars[g].defined {
		return Value{}, evalErrorf("undefined variable \"%s\"", name)
	}
	return vs.vars[g].value()
}

// Names returns the names of the defined variables, in slot order.
func (vs *Vars) Names() []string {
	var out []string
	for i := range vs.vars {
		if vs.vars[i].defined {
			out = append(out, vs.vars[i].name)
		}
	}
	return out
}
