package script

import "fmt"

// ConditionError is a failure of pgbench's static \if check
// (CheckConditional); Error returns the text pgbench prints after
// "pgbench: error: ".
type ConditionError struct {
	Script  string // the script's name
	Command int    // 1-based command number (pgbench's i + 1)
	Msg     string // e.g. `\elif without matching \if`
	// Line and Column locate the offending meta-command (for "\if without
	// matching \endif": the innermost unclosed \if), which pgbench's message
	// does not say; the front end adds them as a detail line.
	Line, Column int
	what         string // "condition" when empty; "placement" for \think (think.go)
}

// Where is "FILE:LINE:COLUMN" of the offending command.
func (e *ConditionError) Where() string {
	return fmt.Sprintf("%s:%d:%d", e.Script, e.Line, e.Column)
}

func (e *ConditionError) Error() string {
	what := e.what
	if what == "" {
		what = "condition"
	}
	return fmt.Sprintf("%s error in script \"%s\" command %d: %s", what, e.Script, e.Command, e.Msg)
}

// Conditional states (fe_utils/conditional.h).
type ifState uint8

const (
	ifNone      ifState = iota // no \if in progress (empty stack)
	ifTrue                     // the current branch is taken
	ifFalse                    // not taken yet; a later \elif or \else may be
	ifIgnored                  // a branch was taken, or nested in a skipped branch
	ifElseTrue                 // the \else branch is taken
	ifElseFalse                // the \else branch is skipped
)

// CheckConditionals checks the \if/\elif/\else/\endif structure statically,
// as pgbench does for every script before running (exit status 1). The
// messages are `\elif without matching \if`, `\elif after \else`,
// `\else without matching \if`, `\else after \else`,
// `\endif without matching \if` and `\if without matching \endif`.
// With pgtrial's \while (while.go) it checks the nesting of both kinds of
// block (`\endwhile without matching \while`, `\while without matching
// \endwhile`, an \if closed inside a \while or the reverse), then where
// \think commands are (think.go).
func (s *Script) CheckConditionals() error {
	var stack []block // the open blocks, innermost last
	fail := func(i int, at *Command, msg string) error {
		return &ConditionError{Script: s.Name, Command: i + 1, Msg: msg, Line: at.Line, Column: at.Column}
	}
	for i, c := range s.Commands {
		if c.Kind != MetaCommand {
			continue
		}
		top := len(stack) - 1
		switch c.Meta {
		case MetaIf:
			stack = append(stack, block{cmd: c, state: ifFalse})
		case MetaWhile:
			stack = append(stack, block{cmd: c, loop: true})
		case MetaElif, MetaElse, MetaEndif:
			if top >= 0 && stack[top].loop {
				return fail(i, c, fmt.Sprintf(`\%s without matching \if: the \while of line %d is not closed`, c.Meta, stack[top].cmd.Line))
			}
			switch c.Meta {
			case MetaElif:
				if top < 0 {
					return fail(i, c, `\elif without matching \if`)
				}
				if stack[top].state == ifElseFalse {
					return fail(i, c, `\elif after \else`)
				}
			case MetaElse:
				if top < 0 {
					return fail(i, c, `\else without matching \if`)
				}
				if stack[top].state == ifElseFalse {
					return fail(i, c, `\else after \else`)
				}
				stack[top].state = ifElseFalse
			case MetaEndif:
				if top < 0 {
					return fail(i, c, `\endif without matching \if`)
				}
				stack = stack[:top]
			}
		case MetaEndwhile:
			if top < 0 {
				return fail(i, c, `\endwhile without matching \while`)
			}
			if !stack[top].loop {
				return fail(i, c, fmt.Sprintf(`\endwhile without matching \while: the \if of line %d is not closed`, stack[top].cmd.Line))
			}
			stack = stack[:top]
		}
	}
	if n := len(stack); n > 0 {
		if stack[n-1].loop {
			return fail(len(s.Commands), stack[n-1].cmd, `\while without matching \endwhile`)
		}
		return fail(len(s.Commands), stack[n-1].cmd, `\if without matching \endif`)
	}
	return s.checkThinks()
}

// block is an open \if or \while of CheckConditionals.
type block struct {
	cmd   *Command
	loop  bool    // \while
	state ifState // \if: ifElseFalse after its \else
}

// CheckEmpty fails as pgbench does for a script without commands:
// empty command list for script "NAME".
func (s *Script) CheckEmpty() error {
	if len(s.Commands) == 0 {
		return fmt.Errorf("empty command list for script \"%s\"", s.Name)
	}
	return nil
}

// condStack is a client's run-time conditional stack.
type condStack []ifState

func (s condStack) peek() ifState {
	if len(s) == 0 {
		return ifNone
	}
	return s[len(s)-1]
}

func (s *condStack) push(v ifState) { *s = append(*s, v) }

func (s condStack) poke(v ifState) {
	if len(s) > 0 {
		s[len(s)-1] = v
	}
}

func (s *condStack) pop() {
	if len(*s) > 0 {
		*s = (*s)[:len(*s)-1]
	}
}

// active is conditional_active: commands run when no \if is open or the
// current branch is taken.
func (s condStack) active() bool {
	p := s.peek()
	return p == ifNone || p == ifTrue || p == ifElseTrue
}
