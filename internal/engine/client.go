package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/script"
)

// estatus is pgbench's EStatus: why a transaction did not complete.
type estatus uint8

const (
	esNone          estatus = iota
	esMeta                  // meta-command or \gset error: the client aborts
	esSerialization         // 40001: retried or failed
	esDeadlock              // 40P01: retried or failed
	esOther                 // another SQL error: aborts, or fails under --continue-on-error
	esConn                  // the connection broke
	esTimeout               // 57014 query_canceled (statement_timeout): as esOther, counted as a timeout
)

func classify(err error) estatus {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "40001":
			return esSerialization
		case "40P01":
			return esDeadlock
		case "57014":
			return esTimeout
		}
		return esOther
	}
	return esConn
}

// sqlFailure reports whether es is an SQL error that fails the transaction
// under --continue-on-error and aborts the client otherwise (pgbench's
// OTHER_SQL, of which a timeout is a part).
func (es estatus) sqlFailure() bool { return es == esOther || es == esTimeout }

// connectionLost reports whether a server error means the session is over:
// FATAL or PANIC, SQLSTATE class 08 (connection exception), or 57P01–57P03
// (administrator shutdown, crash shutdown, cannot connect now).
func connectionLost(pe *pgconn.PgError) bool {
	switch pe.Severity {
	case "FATAL", "PANIC":
		return true
	}
	if strings.HasPrefix(pe.Code, "08") {
		return true
	}
	switch pe.Code {
	case "57P01", "57P02", "57P03":
		return true
	}
	return false
}

// step is what a command or a transaction attempt came to.
type step uint8

const (
	stepOK     step = iota
	stepError       // a retryable (or continue-on-error) SQL error: pgbench's CSTATE_ERROR
	stepAbort       // the client aborts (message already logged)
	stepFinish      // stop without counting (timer expired or interrupted during an error)
)

type client struct {
	e    *engine
	id   int
	g    *group
	sc   *script.Client
	conn *wireConn
	rec  *metrics.Recorder

	cnt int64 // transactions counted, pgbench's st->cnt
	tx  metrics.Tx

	// per transaction
	script    int
	tries     uint32
	es        estatus
	scheduled int64  // µs
	begin     int64  // µs
	pid       uint32 // backend pid of the transaction's connection; 0 none
	errCmd    int    // command of the last error
	pipeline  bool
	numSyncs  int

	sqlBuf []byte
	params [][]byte
	rows   [2]rowStore // the last row of the pending and current results (\gset, \aset)
	timer  *time.Timer

	inflight sync.Mutex  // guards conn for cancelInFlight
	busy     atomic.Bool // a query is in flight (set without the lock: it is per query)
	// active: the client is counted busy in the run's session counts
	// (metrics.Sessions): from sending a statement to the ReadyForQuery
	// that leaves its session idle. Owned by the client's goroutine.
	active bool

	// In a group loop (runGroup): yield suspends the client's coroutine
	// until what it waits for is ready; abandoned is set when the loop
	// gives up on it.
	yield     func(wait) bool
	abandoned bool

	// reconnect is the backoff between failed reconnects (Config.Reconnect).
	reconnect backoff
}

// waiter is the fdWaiter for the client's sockets: the client itself in a
// group loop, nil (Go's poller) otherwise.
func (c *client) waiter() fdWaiter {
	if c.e.grouped {
		return c
	}
	return nil
}

func newClient(e *engine, id int, g *group) (*client, error) {
	cfg := e.cfg
	c := &client{e: e, id: id, g: g, rec: cfg.Metrics.Recorder(id), reconnect: newBackoff(cfg.Streams.RandomSeed, id)}
	c.sc = cfg.Program.NewClient(id, cfg.Streams.Clients[id], cfg.Stderr)
	if cfg.Setup != nil {
		if err := cfg.Setup(c.sc); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *client) debugf(format string, args ...any) {
	if c.e.cfg.Debug {
		c.e.cfg.Log.Debug(fmt.Sprintf(format, args...))
	}
}

// errorf logs an error, unless the sockets are being shut down at the end
// of the run: the errors are then the shutdown's.
func (c *client) errorf(format string, args ...any) {
	if c.e.forced.Load() {
		return
	}
	c.e.cfg.Log.Error(fmt.Sprintf(format, args...))
}

// cancelRequest is the cancel request for the client's query when it is
// waiting for the server (false otherwise), for the end of the run
// (engine.cancelInFlight).
func (c *client) cancelRequest() (cancelRequest, bool) {
	c.inflight.Lock()
	defer c.inflight.Unlock()
	if !c.busy.Load() {
		return cancelRequest{}, false
	}
	// Read under the lock: the client closes its connection under it.
	return c.conn.cancelRequest()
}

// shutdown shuts down the client's socket, if it has one (from another
// goroutine, at the end of the run): its reads and writes fail at once.
func (c *client) shutdown() bool {
	c.inflight.Lock()
	defer c.inflight.Unlock()
	return c.conn.shutdown()
}

// setBusy marks whether a query is in flight, for cancelInFlight. An atomic
// store, not the lock: it happens twice per query, and a cancel that sees a
// stale value either cancels nothing (the backend is idle) or misses a
// query that was about to be sent, as it could with the lock.
//
// It also keeps the session counts (metrics.Sessions): the first statement
// sent makes the client busy, and the end of a query that leaves the
// session idle (ReadyForQuery 'I', outside a pipeline) makes it idle
// again; one atomic add per change, none while a transaction block stays
// open.
func (c *client) setBusy(b bool) {
	c.busy.Store(b)
	if b {
		if !c.active {
			c.active = true
			c.e.sessions.Busy(c.g.id)
		}
		return
	}
	c.maybeIdle()
}

// maybeIdle counts a busy client idle when its session is idle.
func (c *client) maybeIdle() {
	if c.active && !c.pipeline && c.conn != nil && c.conn.tx == 'I' {
		c.active = false
		c.e.sessions.Idle(c.g.id)
	}
}

// done reports whether the client must not start another transaction.
func (c *client) done() bool {
	e := c.e
	return e.timerHit.Load() || e.stopped.Load()
}

// afterWindow reports whether engine time t is after the end of the
// measured window (under CutAtEnd; never without).
func (c *client) afterWindow(t int64) bool {
	w := c.e.windowEnd.Load()
	return w > 0 && t > w
}

// cutUnstarted records the client's slot (open model) as unstarted if it
// was due by the window's end; nothing without a cut or in the closed model.
func (c *client) cutUnstarted() {
	w := c.e.windowEnd.Load()
	if w == 0 || c.g.sched == nil || c.scheduled > w {
		return
	}
	c.recordCut(metrics.Unstarted, w)
}

// cutUnfinished records the transaction in flight as unfinished at the
// window's end; nothing without a cut.
func (c *client) cutUnfinished() {
	w := c.e.windowEnd.Load()
	if w == 0 || c.begin > w {
		return
	}
	c.recordCut(metrics.Unfinished, w)
}

// recordCut accounts the current slot or transaction as cut at w, the end
// of the window (metrics.Unstarted, metrics.Unfinished), with the lower
// bounds of its times; it is not a transaction of the client's count (-t)
// nor of the transaction logs (OnTx).
func (c *client) recordCut(o metrics.Outcome, w int64) {
	tx := &c.tx
	*tx = metrics.Tx{Script: c.script, Outcome: o, Response: w - c.scheduled, End: w}
	if o == metrics.Unfinished {
		tx.Tries = c.tries
		tx.Service = w - c.begin
		tx.Lag = c.begin - c.scheduled
		tx.PID = c.pid
	} else {
		tx.Lag = tx.Response
	}
	c.rec.Record(tx)
}

// run is the client's loop: pgbench's advanceConnectionState from
// CHOOSE_SCRIPT to FINISHED or ABORTED, one transaction per iteration.
func (c *client) run() {
	e := c.e
	cfg := e.cfg
	defer func() {
		// A client that ends with the window freezes the session counts
		// first (the end timer may fire after the first clients noticed
		// the end themselves): the last interval shows the sessions as
		// they were at the window's end, not as they are closing.
		if e.endTime > 0 && e.now() >= e.endTime {
			e.sessions.Freeze()
		}
		c.closeConn()
	}()
	if cfg.Transactions > 0 && c.cnt >= cfg.Transactions {
		return
	}
	for {
		// CHOOSE_SCRIPT
		c.script = e.chooseScript(c.g)
		c.es = esNone
		c.tries = 1
		if cfg.Debug {
			c.debugf("client %d executing script \"%s\"", c.id, cfg.ScriptNames[c.script])
		}
		if c.done() {
			return
		}
		if c.g.sched != nil {
			// PREPARE_THROTTLE
			ok := c.throttle()
			if !ok {
				return
			}
		}
		// The leading \think commands (think.go), before START_TX.
		txFrom, txTo := e.txFrom[c.script], e.txTo[c.script]
		if txFrom > 0 && !c.beforeTx(txFrom) {
			return
		}
		// START_TX
		now := e.now()
		if c.afterWindow(now) {
			c.cutUnstarted()
			return
		}
		if c.conn == nil || c.conn.broken {
			// A client that lost its connection backs off between
			// attempts (connect.go). In the open model a slot that comes
			// before the next attempt is due counts as a failed
			// connection without a dial, as every slot of an outage
			// counted when each one dialled; in the closed model the
			// client waits for the attempt: one failed connection per
			// attempt. A client stopped meanwhile finishes, it has not
			// aborted; after the window's end (CutAtEnd) its slot is
			// unstarted.
			backingOff := cfg.Reconnect && now < c.reconnect.retryAt
			if backingOff || !c.connect() {
				if e.forced.Load() || c.afterWindow(e.now()) {
					c.cutUnstarted()
					return
				}
				if cfg.Reconnect && c.done() {
					return
				}
				if cfg.Reconnect {
					// The slot failed at once (backing off) or after the
					// dial: from now (and its intended start) to then,
					// without a connection.
					c.begin, c.pid = now, 0
					if c.g.sched == nil {
						c.scheduled = now
					}
					c.record(metrics.FailedConnection, e.now())
					if cfg.Transactions > 0 && c.cnt >= cfg.Transactions {
						return
					}
					if c.g.sched == nil {
						c.sleepUntil(c.reconnect.retryAt) // do not spin while the server is down
					}
					continue
				}
				c.errorf("client %d aborted while establishing connection", c.id)
				e.noteAbort(c.g.id)
				return
			}
			now = e.now()
			if c.afterWindow(now) {
				c.cutUnstarted()
				return
			}
		}
		saved := c.sc.Rand
		c.begin, c.pid = now, c.conn.pid
		if c.g.sched == nil {
			c.scheduled = now
		}
		var st step
		next := txTo
		for {
			st, next = c.attempt(txFrom, txTo)
			if st != stepError {
				break
			}
			// CSTATE_ERROR
			st = c.afterError()
			if st != stepOK {
				break
			}
			if c.retryable() {
				// CSTATE_RETRY
				if cfg.VerboseErrors {
					c.verboseRetry(true)
				}
				c.tries++
				if cfg.PerCommand {
					c.rec.CommandError(c.script, c.errCmd, true)
				}
				c.sc.Rand = saved
				c.es = esNone
				continue
			}
			// CSTATE_FAILURE
			if cfg.PerCommand {
				c.rec.CommandError(c.script, c.errCmd, false)
			}
			if cfg.VerboseErrors {
				c.verboseRetry(false)
			}
			break
		}
		end := e.now()
		if c.afterWindow(end) || (st != stepOK && e.forced.Load()) {
			// In flight at the window's end (whatever became of it), or
			// cut by the sockets' shutdown: unfinished under CutAtEnd,
			// not counted otherwise.
			c.cutUnfinished()
			return
		}
		switch st {
		case stepAbort:
			if (c.es == esConn || c.conn == nil || c.conn.broken) && cfg.Reconnect && !c.done() {
				c.record(metrics.FailedConnection, end)
				c.closeConn()
				if cfg.Transactions > 0 && c.cnt >= cfg.Transactions {
					return
				}
				continue
			}
			e.noteAbort(c.g.id)
			return
		case stepFinish:
			return
		}
		// END_TX
		switch c.es {
		case esNone:
			c.record(metrics.Committed, end)
		case esSerialization:
			c.record(metrics.FailedSerialization, end)
		case esDeadlock:
			c.record(metrics.FailedDeadlock, end)
		case esTimeout:
			c.record(metrics.FailedTimeout, end)
		default:
			c.record(metrics.FailedOther, end)
		}
		switch c.conn.tx {
		case 'I':
		case 'T', 'E':
			c.errorf("client %d aborted: end of script reached without completing the last transaction", c.id)
			e.noteAbort(c.g.id)
			return
		default:
			if cfg.Reconnect && !c.done() {
				c.closeConn()
				break
			}
			c.errorf("perhaps the backend died while processing")
			c.errorf("client %d aborted while receiving the transaction status", c.id)
			e.noteAbort(c.g.id)
			return
		}
		if cfg.ConnectPerTx {
			t0 := time.Now()
			c.closeConn()
			e.addConnTime(time.Since(t0))
		}
		if (cfg.Transactions > 0 && c.cnt >= cfg.Transactions && cfg.Duration == 0) || c.done() {
			return
		}
		// The trailing \think commands (think.go), after the end was
		// recorded; after a failure from the first of them.
		if c.es != esNone {
			next = txTo
		}
		if next < e.ncmds[c.script] && !c.afterTx(next) {
			return
		}
	}
}

// connect makes the client's connection (under -C, or after a loss).
// Under Config.Reconnect a failure sets the time of the next attempt
// (c.reconnect) and is logged at the first failure of a series, then at
// most every reconnectLogEvery; a success ends the series.
func (c *client) connect() bool {
	e := c.e
	t0 := time.Now()
	conn, err := e.dial(e.dialCtx, c.waiter())
	if e.cfg.ConnectPerTx {
		e.addConnTime(time.Since(t0))
	}
	if err != nil {
		show := true
		if e.cfg.Reconnect {
			show = c.reconnect.failed(e.now()) && !c.done()
		}
		if show {
			msg := err.Error()
			if e.cfg.ConnectError != nil {
				msg = e.cfg.ConnectError(err)
			}
			c.errorf("%s", strings.TrimSuffix(msg, "\n"))
		}
		return false
	}
	c.reconnect.succeeded()
	c.setConn(conn)
	return true
}

// setConn and closeConn change the client's connection under c.inflight,
// which cancelInFlight (another goroutine) reads it under.
func (c *client) setConn(conn *wireConn) {
	c.inflight.Lock()
	c.conn = conn
	conn.mu = &c.inflight
	c.inflight.Unlock()
	c.e.sessions.Connect()
}

func (c *client) closeConn() {
	c.inflight.Lock()
	defer c.inflight.Unlock()
	if c.conn != nil {
		c.e.sessions.Disconnect()
	}
	if c.active {
		c.active = false
		c.e.sessions.Idle(c.g.id)
	}
	c.conn.close()
	c.conn = nil
}

// throttle is pgbench's PREPARE_THROTTLE and THROTTLE: take the next slot
// of the group's schedule, skip it if it is already later than the latency
// limit (or drop it when no client was free for it), then wait for it.
// It returns false when the client must finish.
func (c *client) throttle() bool {
	e := c.e
	cfg := e.cfg
	for {
		c.scheduled = c.g.sched.next()
		if e.limit > 0 || c.g.overload == Drop {
			now := e.now()
			late := (e.limit > 0 && c.scheduled < now-e.limit) || (c.g.overload == Drop && c.scheduled < now)
			if late {
				if c.g.overload == Drop {
					c.record(metrics.Dropped, 0)
				} else {
					c.record(metrics.Skipped, 0)
				}
				if c.done() || (cfg.Transactions > 0 && c.cnt >= cfg.Transactions) {
					return false
				}
				continue
			}
		}
		if e.endTime > 0 && c.scheduled > e.endTime {
			return false
		}
		if !c.sleepUntil(c.scheduled) || c.done() {
			c.cutUnstarted()
			return false
		}
		return true
	}
}

// sleepUntil waits until engine time t (µs); false if the run was stopped.
// In a group loop the client yields until then; otherwise it waits on a Go
// timer.
func (c *client) sleepUntil(t int64) bool {
	e := c.e
	if c.yield != nil {
		for {
			if e.stopped.Load() {
				return false
			}
			if e.now() >= t {
				return true
			}
			if !c.suspendUntil(t) {
				return false
			}
		}
	}
	for {
		d := time.Duration(t-e.now()) * time.Microsecond
		if d <= 0 {
			return !e.stopped.Load()
		}
		if c.timer == nil {
			c.timer = time.NewTimer(d)
		} else {
			c.timer.Reset(d)
		}
		select {
		case <-c.timer.C:
		case <-e.stopCh:
			c.timer.Stop()
			return false
		}
	}
}

// record accounts one transaction of the current script that ended at
// engine time end (committed or failed; unused for a skipped or dropped
// slot, which never started and has no times, pid or tries).
func (c *client) record(o metrics.Outcome, end int64) {
	e := c.e
	// c.tx, not a local: OnTx is a func value, so a local would escape
	// and cost an allocation per transaction.
	tx := &c.tx
	*tx = metrics.Tx{Script: c.script, Outcome: o, Tries: c.tries}
	switch o {
	case metrics.Skipped, metrics.Dropped:
		tx.Tries = 0
	default:
		tx.End = end
		tx.Response = end - c.scheduled
		tx.Service = end - c.begin
		tx.Lag = c.begin - c.scheduled
		tx.PID = c.pid
	}
	c.rec.Record(tx)
	c.maybeIdle() // a pipeline's end left it busy
	c.cnt++
	if e.cfg.OnTx != nil {
		e.cfg.OnTx(c.id, c.g.id, c.cnt, tx, time.Now())
	}
}

// retryable is pgbench's doRetry.
func (c *client) retryable() bool {
	e := c.e
	if c.es != esSerialization && c.es != esDeadlock {
		return false
	}
	if e.cfg.MaxTries != 0 && c.tries >= e.cfg.MaxTries {
		return false
	}
	if e.limit > 0 && e.now()-c.scheduled > e.limit {
		return false
	}
	return !c.done()
}

func (c *client) verboseRetry(retry bool) {
	e := c.e
	var b strings.Builder
	fmt.Fprintf(&b, "client %d ", c.id)
	if retry {
		b.WriteString("repeats the transaction after the error")
	} else {
		b.WriteString("ends the failed transaction")
	}
	fmt.Fprintf(&b, " (try %d", c.tries)
	if e.cfg.MaxTries != 0 {
		fmt.Fprintf(&b, "/%d", e.cfg.MaxTries)
	}
	if e.limit > 0 {
		fmt.Fprintf(&b, ", %.3f%% of the maximum time of tries was used", 100.0*float64(e.now()-c.scheduled)/float64(e.limit))
	}
	b.WriteString(")")
	e.cfg.Log.Info(b.String())
}

// afterError is pgbench's CSTATE_ERROR: clear the conditional stack, leave
// a pipeline, roll back an open transaction block. stepOK means the error
// may now be retried or counted as a failure.
func (c *client) afterError() step {
	e := c.e
	c.sc.Begin(c.script) // clears the conditional stack
	if c.pipeline {
		if err := c.discardPipeline(); err != nil {
			c.errorf("client %d aborted: failed to exit pipeline mode for rolling back the failed transaction", c.id)
			return stepAbort
		}
	}
	switch c.conn.tx {
	case 'T', 'E':
		c.setBusy(true)
		err := c.conn.simpleExec("ROLLBACK")
		c.setBusy(false)
		if err != nil {
			if c.conn.broken {
				c.errorf("client %d aborted while rolling back the transaction after an error; perhaps the backend died while processing", c.id)
				c.es = esConn
			} else {
				c.errorf("client %d aborted while rolling back the transaction after an error; %s", c.id, trimNL(e.pqError(err)))
			}
			return stepAbort
		}
	case 'I':
	default:
		c.errorf("perhaps the backend died while processing")
		c.errorf("client %d aborted while receiving the transaction status", c.id)
		c.es = esConn
		return stepAbort
	}
	if c.done() {
		return stepFinish
	}
	return stepOK
}

func trimNL(s string) string { return strings.TrimSuffix(s, "\n") }

// pqError formats a server error as libpq's PQerrorMessage would.
func (e *engine) pqError(err error) string {
	if e.cfg.ConnectError != nil {
		return e.cfg.ConnectError(err)
	}
	return err.Error()
}

// attempt runs the script's transaction once (one try): its commands
// [from, to) (script.TxBounds: all of them without \think). It returns
// where the script goes on after the transaction.
func (c *client) attempt(from, to int) (step, int) {
	c.sc.Begin(c.script)
	st, i := c.runCommands(from, to)
	if st != stepOK {
		return st, i
	}
	if c.pipeline {
		c.errorf("client %d aborted: end of script reached with pipeline open", c.id)
		c.es = esMeta
		return stepAbort, i
	}
	return stepOK, i
}

// runCommands runs the current script's commands from from until one
// returns something else than stepOK or the next is at or after to; it
// returns that step and the next command.
func (c *client) runCommands(from, to int) (step, int) {
	e := c.e
	cfg := e.cfg
	sc := c.sc
	cmds := cfg.Program.Scripts[c.script].Commands
	i := from
	for i < to {
		cmd := cmds[i]
		var t0 int64
		if cfg.PerCommand {
			t0 = e.now()
		}
		var st step
		if cmd.Kind == script.SQLCommand {
			st = c.sqlCommand(i, cmd)
		} else {
			st = c.metaCommand(i, cmd)
		}
		if st != stepOK {
			c.errCmd = i
			return st, i
		}
		if cfg.PerCommand {
			c.rec.CommandDone(c.script, i, e.now()-t0)
		}
		i = sc.Next(i)
	}
	return stepOK, i
}
