package script

import (
	"fmt"
	"io"
	"strconv"

	"github.com/pgtrial/pgtrial/internal/cnum"
	"github.com/pgtrial/pgtrial/internal/prng"
)

// Program is the set of scripts of a run (pgbench's sql_script array, in
// -f/-b order: a script's index is its number in messages). It resolves the
// variable names of all scripts to one slot numbering so that clients hold
// their variables in a slice.
type Program struct {
	Scripts []*Script
	names   []string
	index   map[string]int32
	maps    [][]int32 // per script: local slot → program slot
	// ZipfianBelowOne allows random_zipfian(lb, ub, s) with 0 < s < 1,
	// pgtrial's extension (YCSB's θ = 0.99 by Gray et al.'s method,
	// prng.GrayZipf; docs/script-extensions.md). `pgtrial run` sets it;
	// the pgbench front end keeps pgbench's error.
	ZipfianBelowOne bool
	// \tally names (tally.go): the program's, and per script local → program
	tallyNames []string
	tallyMaps  [][]int32
}

// NewProgram binds scripts together. The scripts are not modified.
func NewProgram(scripts ...*Script) *Program {
	p := &Program{Scripts: scripts, index: make(map[string]int32)}
	for _, s := range scripts {
		m := make([]int32, len(s.syms.names))
		for i, n := range s.syms.names {
			g, ok := p.index[n]
			if !ok {
				g = int32(len(p.names))
				p.names = append(p.names, n)
				p.index[n] = g
			}
			m[i] = g
		}
		p.maps = append(p.maps, m)
	}
	p.bindTallies()
	return p
}

// Client is the script state of one pgbench client: its variables, its
// random stream for random*() (pgbench's cs_func_rs), its conditional stack,
// and the script and command being run (for debug() lines). It is not safe
// for concurrent use; each client goroutine owns one.
type Client struct {
	Vars
	// ID is the client number (0-based), used in messages.
	ID int
	// Rand is the stream of the script's random functions. pgbench saves it
	// at transaction start and restores it to replay a retried transaction.
	Rand prng.State

	script int
	cmds   []*Command // the current script's commands
	slots  []int32
	cmd    int
	cond   condStack
	debug  io.Writer
	stack  []Value // argument stack of standard functions
	dbuf   []byte
	zipf   prng.GrayZipf // the last random_zipfian(s < 1)'s generator, ζ cached
	jump   int32         // 1 + the command Next returns after a \while or \endwhile; 0: none
	loops  int           // \while iterations since Begin (MaxLoopIterations)
	// tallies are the client's \tally counts by program tally slot
	// (tally.go), allocated at the first counted \tally.
	tallies []tallyCounts
}

// NewClient makes a client with no variables defined. debug receives the
// output of debug() (pgbench writes it to stderr); nil discards it.
func (p *Program) NewClient(id int, rnd prng.State, debug io.Writer) *Client {
	c := &Client{ID: id, Rand: rnd, debug: debug, stack: make([]Value, 0, 64)}
	c.Vars.init(p)
	c.cond = make(condStack, 0, 8)
	if len(p.maps) > 0 {
		c.slots = p.maps[0]
		c.cmds = p.Scripts[0].Commands
	}
	return c
}

// Begin starts a transaction of script number script (pgbench's
// CSTATE_START_TX): later calls refer to that script's commands, and the
// conditional stack is cleared (as it is after an error).
func (c *Client) Begin(script int) {
	c.script = script
	c.slots = c.prog.maps[script]
	c.cmds = c.prog.Scripts[script].Commands
	c.cond = c.cond[:0]
	c.cmd = 0
	c.jump, c.loops = 0, 0
}

// Script returns the number of the current script.
func (c *Client) Script() int { return c.script }

// command returns command i of the current script and records it as the
// command being run.
func (c *Client) command(i int) *Command {
	c.cmd = i
	return c.cmds[i]
}

// Active reports whether commands currently run (no open \if, or the
// current branch is taken).
func (c *Client) Active() bool { return c.cond.active() }

// Next returns the number of the command to run after command i completed,
// skipping the commands of branches not taken exactly as pgbench's
// CSTATE_END_COMMAND and CSTATE_SKIP_COMMAND do (a nested \if in a skipped
// branch is ignored; an \elif whose \if was false is returned so that its
// condition gets evaluated). It returns the number of commands at the end
// of the script. After a \while or \endwhile it returns where the loop
// goes (while.go).
func (c *Client) Next(i int) int {
	if c.jump != 0 {
		j := int(c.jump - 1)
		c.jump = 0
		return j
	}
	cmds := c.cmds
	i++
	if c.cond.active() {
		return i
	}
	for i < len(cmds) {
		cmd := cmds[i]
		if cmd.Kind != MetaCommand || cmd.Meta < MetaIf || cmd.Meta > MetaEndif {
			i++
			continue
		}
		switch c.cond.peek() {
		case ifFalse:
			switch cmd.Meta {
			case MetaIf:
				c.cond.push(ifIgnored)
				i++
			case MetaElif:
				return i
			case MetaElse:
				c.cond.poke(ifElseTrue)
				return i + 1
			case MetaEndif:
				c.cond.pop()
				i++
				if c.cond.active() {
					return i
				}
			}
		case ifIgnored, ifElseFalse:
			switch cmd.Meta {
			case MetaIf:
				c.cond.push(ifIgnored)
			case MetaEndif:
				c.cond.pop()
				if c.cond.active() {
					return i + 1
				}
			}
			i++
		default:
			// Inconsistent (unchecked script): run the command.
			return i
		}
	}
	return len(cmds)
}

// ExecError is a run-time failure of a meta-command. Msg is the message
// pgbench logs first ("division by zero", "undefined variable "x"", …; empty
// when pgbench prints none), Cmd and Reason complete the abort line.
type ExecError struct {
	Msg    string
	Cmd    string // as in the abort line: Args[0] for evaluation, "set" for assignment, "sleep", "shell", "setshell"
	Reason string // "evaluation of meta-command failed", "assignment of meta-command failed", "execution of meta-command failed"
}

func (e *ExecError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	return e.Reason
}

// AbortLine is pgbench's line after the message:
// client N aborted in command C (CMD) of script S; REASON.
func (e *ExecError) AbortLine(client, command, script int) string {
	return fmt.Sprintf("client %d aborted in command %d (%s) of script %d; %s", client, command, e.Cmd, script, e.Reason)
}

const (
	reasonEval   = "evaluation of meta-command failed"
	reasonAssign = "assignment of meta-command failed"
	reasonExec   = "execution of meta-command failed"
)

func execErr(err error, cmd, reason string) *ExecError {
	msg := ""
	if e, ok := err.(*evalError); ok {
		msg = e.msg
	} else if err != nil {
		msg = err.Error()
	}
	return &ExecError{Msg: msg, Cmd: cmd, Reason: reason}
}

// Exec runs meta-command i of the current script when it is \set, \if,
// \elif, \else or \endif (pgbench's executeMetaCommand for those), or
// pgtrial's \while or \endwhile (while.go), updating
// variables and the conditional stack. Other meta-commands and SQL
// commands are left to the caller (see SleepMicros, ShellCommand,
// AppendSQL); Exec does nothing for them. Errors are *ExecError.
func (c *Client) Exec(i int) error {
	cmd := c.command(i)
	if cmd.Kind != MetaCommand {
		return nil
	}
	switch cmd.Meta {
	case MetaSet:
		v, err := c.eval(cmd.expr)
		if err != nil {
			return execErr(err, cmd.Args[0], reasonEval)
		}
		g := c.slots[cmd.setSlot]
		if !cmd.setValid && !c.vars[g].defined {
			return execErr(evalErrorf("%s: invalid variable name: \"%s\"", cmd.Args[0], cmd.Args[1]), "set", reasonAssign)
		}
		c.vars[g].setValue(v)
	case MetaIf:
		v, err := c.eval(cmd.expr)
		if err != nil {
			return execErr(err, cmd.Args[0], reasonEval)
		}
		if v.truth() {
			c.cond.push(ifTrue)
		} else {
			c.cond.push(ifFalse)
		}
	case MetaElif:
		if c.cond.peek() == ifTrue {
			// A branch was taken: skip to \endif without evaluating.
			c.cond.poke(ifIgnored)
			return nil
		}
		v, err := c.eval(cmd.expr)
		if err != nil {
			return execErr(err, cmd.Args[0], reasonEval)
		}
		if v.truth() {
			c.cond.poke(ifTrue)
		} else {
			c.cond.poke(ifFalse)
		}
	case MetaElse:
		if c.cond.peek() == ifTrue {
			c.cond.poke(ifElseFalse)
		}
	case MetaEndif:
		c.cond.pop()
	case MetaWhile, MetaEndwhile:
		return c.execWhile(i, cmd)
	case MetaTally:
		return c.Tally(i, true)
	}
	return nil
}

// Eval evaluates the expression of command i (\set, \if or \elif) without
// side effects on variables or the conditional stack (debug() still
// prints, random functions still draw). It is meant for tests and tools.
func (c *Client) Eval(i int) (Value, error) {
	cmd := c.command(i)
	if cmd.expr == nil {
		return Value{}, fmt.Errorf("command %d has no expression", i)
	}
	return c.eval(cmd.expr)
}

// SleepMicros evaluates a \sleep command (pgbench's evaluateSleep): the
// delay in µs, computed as pgbench does with 32-bit ints (atoi of the
// argument or of the variable's string value, times the unit, wrapping on
// overflow). A negative delay means no sleep.
func (c *Client) SleepMicros(i int) (int32, error) {
	cmd := c.command(i)
	sp := cmd.sleep
	usec := sp.literal
	if sp.fromVar {
		v := &c.vars[c.slots[sp.slot]]
		if !v.defined {
			return 0, &ExecError{Msg: fmt.Sprintf("%s: undefined variable \"%s\"", cmd.Args[0], sp.name), Cmd: cmd.Meta.String(), Reason: reasonExec}
		}
		s := string(v.text())
		usec = cnum.Atoi(s)
		if usec == 0 && (s == "" || !isDigit(s[0])) {
			return 0, &ExecError{Msg: fmt.Sprintf("%s: invalid %s time \"%s\" for variable \"%s\"", cmd.Args[0], cmd.Meta, s, sp.name), Cmd: cmd.Meta.String(), Reason: reasonExec}
		}
	}
	return usec * sp.mult, nil
}

// shellCommandSize is pgbench's SHELL_COMMAND_SIZE.
const shellCommandSize = 256

// ShellCommand builds the command line of a \shell or \setshell command as
// pgbench's runShellCommand does: words joined by single spaces, ":var"
// replaced by the variable's string value, "::x" giving ":x"; the line must
// be shorter than 255 bytes. The caller runs it with system() semantics
// (sh -c); for \setshell it then calls StoreShellResult.
func (c *Client) ShellCommand(i int) (string, error) {
	cmd := c.command(i)
	kind := cmd.Meta.String()
	prog := cmd.Args[1]
	if cmd.Meta == MetaSetShell {
		prog = cmd.Args[2]
	}
	var b []byte
	for k, w := range cmd.words {
		arg := w.text
		if w.isVar {
			v := &c.vars[c.slots[w.slot]]
			if !v.defined {
				return "", &ExecError{Msg: fmt.Sprintf("%s: undefined variable \"%s\"", prog, w.text), Cmd: kind, Reason: reasonExec}
			}
			arg = string(v.text())
		}
		sep := 0
		if k > 0 {
			sep = 1
		}
		if len(b)+len(arg)+sep >= shellCommandSize-1 {
			return "", &ExecError{Msg: fmt.Sprintf("%s: shell command is too long", prog), Cmd: kind, Reason: reasonExec}
		}
		if k > 0 {
			b = append(b, ' ')
		}
		b = append(b, arg...)
	}
	return string(b), nil
}

// StoreShellResult stores the output of a \setshell command: as pgbench
// reads it with fgets into 64 bytes, only the first line (at most 63 bytes)
// counts; it must be a base-10 integer (strtol) followed only by white
// space, and is stored truncated to a 32-bit int. No output at all is
// "could not read result of shell command".
func (c *Client) StoreShellResult(i int, output []byte) error {
	cmd := c.command(i)
	prog := cmd.Args[2]
	if len(output) == 0 {
		return &ExecError{Msg: prog + ": could not read result of shell command", Cmd: "setshell", Reason: reasonExec}
	}
	res := output
	for k, b := range res {
		if b == '\n' {
			res = res[:k+1]
			break
		}
	}
	if len(res) > 63 {
		res = res[:63]
	}
	s := string(res)
	if k := indexNUL(s); k >= 0 {
		s = s[:k]
	}
	v, n, _ := cnum.Strtol(s)
	end := n
	for end < len(s) && cnum.IsSpace(s[end]) {
		end++
	}
	if s == "" || end != len(s) {
		return &ExecError{Msg: fmt.Sprintf("%s: shell command must return an integer (not \"%s\")", prog, s), Cmd: "setshell", Reason: reasonExec}
	}
	g, err := c.create("setshell", []byte(cmd.Args[1]))
	if err != nil {
		return execErr(err, "setshell", reasonExec)
	}
	c.vars[g].setValue(IntValue(int64(int32(v))))
	return nil
}

func indexNUL(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

// AppendSQL appends the text of SQL command i in simple mode: every :name
// of a defined variable replaced by its string value (NULL, true/false,
// integers, doubles as %.15g; strings as stored), undefined ones left as
// written; values are inserted unquoted, inside literals too.
func (c *Client) AppendSQL(dst []byte, i int) []byte {
	cmd := c.command(i)
	last := 0
	for _, r := range cmd.refs {
		v := &c.vars[c.slots[r.slot]]
		if !v.defined {
			continue
		}
		dst = append(dst, cmd.Text[last:r.start]...)
		dst = append(dst, v.text()...)
		last = r.end
	}
	return append(dst, cmd.Text[last:]...)
}

// AppendParams appends the parameter values of SQL command i in extended
// and prepared mode: each variable's string value, nil (SQL NULL) for an
// undefined variable; a NULL value is the text "NULL". The slices point
// into the client's variables and stay valid until the variable is next
// assigned.
func (c *Client) AppendParams(dst [][]byte, i int) [][]byte {
	cmd := c.command(i)
	for _, r := range cmd.refs {
		v := &c.vars[c.slots[r.slot]]
		if !v.defined {
			dst = append(dst, nil)
			continue
		}
		dst = append(dst, v.text())
	}
	return dst
}

// writeDebug prints pgbench's debug() line:
// debug(script=S,command=C): null | boolean true | int N | double %.15g.
func (c *Client) writeDebug(v Value) {
	if c.debug == nil {
		return
	}
	b := c.dbuf[:0]
	b = append(b, "debug(script="...)
	b = strconv.AppendInt(b, int64(c.script), 10)
	b = append(b, ",command="...)
	b = strconv.AppendInt(b, int64(c.cmd+1), 10)
	b = append(b, "): "...)
	switch v.kind {
	case KindNull:
		b = append(b, "null"...)
	case KindBool:
		b = append(b, "boolean "...)
		b = v.AppendText(b)
	case KindInt:
		b = append(b, "int "...)
		b = v.AppendText(b)
	case KindDouble:
		b = append(b, "double "...)
		b = v.AppendText(b)
	}
	b = append(b, '\n')
	c.dbuf = b
	_, _ = c.debug.Write(b)
}
