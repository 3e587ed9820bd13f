package engine

import (
	"errors"

	"github.com/pgtrial/pgtrial/internal/script"
)

// pgtrial's \think (script/think.go): the commands of a script before its
// transaction (up to the last leading \think) run before START_TX, so the
// transaction's start — intended and actual, in the closed model — is when
// they end; those after it (from the first trailing \think) run after its
// end is recorded. Neither is in any latency.

// ErrThinkOpen refuses \think in the open model.
var ErrThinkOpen = errors.New(`\think is for the closed model (TPC-C spec mode); in the open model the rate sets the arrivals: remove the rate, or use a script without \think`)

// CheckThink refuses scripts with \think in the open model (rate > 0):
// there a schedule sets when transactions start, and a think time would
// only delay the client behind it.
func CheckThink(scripts []*script.Script, rate float64) error {
	if rate <= 0 {
		return nil
	}
	for _, s := range scripts {
		if s.HasThink() {
			return ErrThinkOpen
		}
	}
	return nil
}

// think waits for a \think command's time; stepFinish when the run stops
// meanwhile.
func (c *client) think(i int) step {
	usec, err := c.sc.ThinkMicros(i)
	if err != nil {
		return c.execFailed(i, err)
	}
	if usec > 0 && !c.sleepUntil(c.e.now()+int64(usec)) {
		return stepFinish
	}
	return stepOK
}

// beforeTx runs the current script's commands before its transaction,
// [0, to); false when the client must finish (the run stopped, or it
// aborted: counted).
func (c *client) beforeTx(to int) bool {
	c.sc.Begin(c.script)
	return c.outsideTx(0, to)
}

// afterTx runs the commands after the transaction, from from to the end.
func (c *client) afterTx(from int) bool {
	return c.outsideTx(from, c.e.ncmds[c.script])
}

func (c *client) outsideTx(from, to int) bool {
	st, _ := c.runCommands(from, to)
	switch st {
	case stepOK:
		return !c.done()
	case stepAbort:
		c.e.noteAbort(c.g.id)
	}
	return false
}

// tallyNow reports whether a \tally counts now: from Config.TallyAfter
// after the bench start until the measured window's end (the end of the
// run without CutAtEnd). It goes by when the \tally runs, not by whether
// its transaction ends in the window, and a retried transaction's \tally
// counts at every try.
func (c *client) tallyNow() bool {
	now := c.e.now()
	return now >= c.e.tallyFrom && !c.afterWindow(now)
}

// tallies merges the clients' \tally counts, after they have returned.
func (e *engine) tallies() []script.Tally {
	scs := make([]*script.Client, len(e.clients))
	for i, c := range e.clients {
		scs[i] = c.sc
	}
	return script.MergeTallies(e.cfg.Program, scs, e.cfg.TallyTop)
}
