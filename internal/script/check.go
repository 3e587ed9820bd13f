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
}

// Where is "FILE:LINE:COLUMN" of the offending command.
func (e *ConditionError) Where() string {
	return fmt.Sprintf("%s:%d:%d", e.Script, e.Line, e.Column)
}

func (e *ConditionError) Error() string {
	return fmt.Sprintf("condition error in script \"%s\" command %d: %s", e.Script, e.Command, e.Msg)
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
func (s *Script) CheckConditionals() error {
	var stack []ifState
	var ifs []*Command // the open \if of each stack level
	fail := func(i int, at *Command, msg string) error {
		return &ConditionError{Script: s.Name, Command: i + 1, Msg: msg, Line: at.Line, Column: at.Column}
	}
	for i, c := range s.Commands {
		if c.Kind != MetaCommand {
			continue
		}
		switch c.Meta {
		case MetaIf:
			stack = append(stack, ifFalse)
			ifs = append(ifs, c)
		case MetaElif:
			if len(stack) == 0 {
				return fail(i, c, `\elif without matching \if`)
			}
			if stack[len(stack)-1] == ifElseFalse {
				return fail(i, c, `\elif after \else`)
			}
		case MetaElse:
			if len(stack) == 0 {
				return fail(i, c, `\else without matching \if`)
			}
			if stack[len(stack)-1] == ifElseFalse {
				return fail(i, c, `\else after \else`)
			}
			stack[len(stack)-1] = ifElseFalse
		case MetaEndif:
			if len(stack) == 0 {
				return fail(i, c, `\endif without matching \if`)
			}
			stack = stack[:len(stack)-1]
			ifs = ifs[:len(ifs)-1]
		}
	}
	if len(stack) > 0 {
		return fail(len(s.Commands), ifs[len(ifs)-1], `\if without matching \endif`)
	}
	return nil
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
