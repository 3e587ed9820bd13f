package script

import "fmt"

// pgtrial's \think DURATION [us|ms|s] (docs/script-extensions.md): a wait
// like \sleep that is not part of the transaction. The \think commands
// before the script's first SQL command run before the transaction starts,
// those after its last SQL command after its end is recorded; one between
// SQL commands, or in a block that runs SQL after it (any SQL, for a
// \while), is refused by CheckConditionals. The engine runs commands
// [0, TxStart) before the transaction and [TxEnd, …) after it
// (TxBounds).

// HasThink reports whether the script has a \think command.
func (s *Script) HasThink() bool { return s.hasThink }

// TxBounds returns the commands of the transaction, [start, end): before
// start are the leading \think commands (and what precedes them, up to the
// end of the outermost block holding the last of them), from end the
// trailing ones (from the first of them, or the outermost \while holding
// it). Without \think it is 0 and len(Commands). start is always at the
// top level (no block open), so a retry can start there; the commands
// from end never jump back before it.
func (s *Script) TxBounds() (start, end int) { return s.txStart, s.txEnd }

// ThinkMicros evaluates a \think command as SleepMicros does a \sleep: the
// delay in µs (negative: none).
func (c *Client) ThinkMicros(i int) (int32, error) { return c.SleepMicros(i) }

// thinkPlace is where a \think is: its index, whether SQL comes before or
// after it, and the blocks that hold it (outermost first).
type thinkPlace struct {
	at        int
	sqlBefore int // index of the last SQL command before it, -1 none
	sqlAfter  int // index of the first SQL command after it, -1 none
	blocks    []int
}

// thinkPlaces walks the script once: for every \think, where it is. The
// block structure is read tolerantly (an unmatched closer closes
// nothing); CheckConditionals refuses a bad one before checkThinks runs.
func (s *Script) thinkPlaces() (places []thinkPlace, ends map[int]int) {
	ends = make(map[int]int) // block opener → its closer
	var open []int
	lastSQL := -1
	for i, c := range s.Commands {
		if c.Kind == SQLCommand {
			lastSQL = i
			continue
		}
		switch c.Meta {
		case MetaIf, MetaWhile:
			open = append(open, i)
		case MetaEndif, MetaEndwhile:
			if n := len(open); n > 0 {
				ends[open[n-1]] = i
				open = open[:n-1]
			}
		case MetaThink:
			places = append(places, thinkPlace{at: i, sqlBefore: lastSQL, sqlAfter: -1, blocks: append([]int(nil), open...)})
		}
	}
	for _, o := range open {
		ends[o] = len(s.Commands) - 1
	}
	next := -1
	k := len(places) - 1
	for i := len(s.Commands) - 1; i >= 0 && k >= 0; i-- {
		if s.Commands[i].Kind == SQLCommand {
			next = i
		}
		if i == places[k].at {
			places[k].sqlAfter = next
			k--
		}
	}
	return places, ends
}

// thinkBounds computes TxBounds (see there).
func (s *Script) thinkBounds() (start, end int) {
	places, ends := s.thinkPlaces()
	start, end = 0, len(s.Commands)
	for _, p := range places {
		if p.sqlBefore < 0 {
			// Leading: the transaction starts after it, outside its blocks.
			st := p.at + 1
			if len(p.blocks) > 0 {
				st = ends[p.blocks[0]] + 1
			}
			start = max(start, st)
			continue
		}
		if p.sqlAfter < 0 {
			// Trailing: the transaction ends before it, or before the
			// outermost \while holding it (which jumps back).
			en := p.at
			for _, b := range p.blocks {
				if s.Commands[b].Meta == MetaWhile {
					en = b
					break
				}
			}
			end = min(end, en)
		}
	}
	return start, max(end, start)
}

// checkThinks refuses the \think commands that would fall inside the
// transaction.
func (s *Script) checkThinks() error {
	if !s.hasThink {
		return nil
	}
	places, ends := s.thinkPlaces()
	for _, p := range places {
		c := s.Commands[p.at]
		fail := func(msg string) error {
			return &ConditionError{Script: s.Name, Command: p.at + 1, Msg: msg, Line: c.Line, Column: c.Column, what: "placement"}
		}
		if p.sqlBefore >= 0 && p.sqlAfter >= 0 {
			return fail(fmt.Sprintf(`\think between SQL commands (lines %d and %d): a think time goes before the script's first SQL command or after its last, outside the transaction`,
				s.Commands[p.sqlBefore].Line, s.Commands[p.sqlAfter].Line))
		}
		for _, b := range p.blocks {
			bc := s.Commands[b]
			if bc.Meta == MetaWhile && s.hasSQL(b, ends[b]) {
				return fail(fmt.Sprintf(`\think inside the \while of line %d, which runs SQL: the think time would fall inside the transaction`, bc.Line))
			}
			if s.hasSQL(p.at, ends[b]) {
				return fail(fmt.Sprintf(`\think inside the \if of line %d, which runs SQL after it: the think time would fall inside the transaction`, bc.Line))
			}
		}
	}
	return nil
}

// hasSQL reports whether commands (from, to) hold a SQL command.
func (s *Script) hasSQL(from, to int) bool {
	for i := from + 1; i < to && i < len(s.Commands); i++ {
		if s.Commands[i].Kind == SQLCommand {
			return true
		}
	}
	return false
}
