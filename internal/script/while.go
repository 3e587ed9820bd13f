package script

import "fmt"

// pgtrial's \while EXPR … \endwhile (docs/script-extensions.md): the
// commands between run again while EXPR is true, with \if's truthiness.
// \while evaluates EXPR: true runs the next command, false jumps past its
// \endwhile; \endwhile jumps back to its \while. The block structure is
// checked by CheckConditionals; link (at the end of Parse) resolves the
// jumps whatever the structure, so an unchecked script cannot jump out of
// range.

// MaxLoopIterations bounds the \while iterations of one transaction (all
// loops together, counted from Begin): one more is an ExecError, so that a
// condition that stays true fails the transaction instead of spinning.
const MaxLoopIterations = 1_000_000

// link resolves each \while's and \endwhile's jump and the transaction's
// bounds (think.go).
func (s *Script) link() {
	var open []int // indices of the open \while commands
	for i, c := range s.Commands {
		if c.Kind != MetaCommand {
			continue
		}
		switch c.Meta {
		case MetaWhile:
			c.jump = int32(len(s.Commands)) // no \endwhile: false ends the script
			open = append(open, i)
		case MetaEndwhile:
			c.jump = -1 // no \while: no jump
			if n := len(open); n > 0 {
				w := s.Commands[open[n-1]]
				w.jump = int32(i + 1)
				c.jump = int32(open[n-1])
				open = open[:n-1]
			}
		case MetaThink:
			s.hasThink = true
		}
	}
	s.txStart, s.txEnd = 0, len(s.Commands)
	if s.hasThink {
		s.txStart, s.txEnd = s.thinkBounds()
	}
}

// execWhile runs \while (cmd i) or \endwhile.
func (c *Client) execWhile(i int, cmd *Command) error {
	if cmd.Meta == MetaEndwhile {
		if cmd.jump >= 0 {
			c.jump = cmd.jump + 1
		}
		return nil
	}
	v, err := c.eval(cmd.expr)
	if err != nil {
		return execErr(err, cmd.Args[0], reasonEval)
	}
	if !v.truth() {
		c.jump = cmd.jump + 1
		return nil
	}
	c.loops++
	if c.loops > MaxLoopIterations {
		return &ExecError{
			Msg:    fmt.Sprintf("%s at line %d: more than %d loop iterations in one transaction; does the condition ever become false?", cmd.Args[0], cmd.Line, MaxLoopIterations),
			Cmd:    cmd.Args[0],
			Reason: reasonExec,
		}
	}
	return nil
}
