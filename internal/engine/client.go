package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

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
)

func classify(err error) estatus {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "40001":
			return esSerialization
		case "40P01":
			return esDeadlock
		}
		return esOther
	}
	return esConn
}

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
	scheduled int64 // µs
	begin     int64 // µs
	errCmd    int   // command of the last error
	pipeline  bool
	numSyncs  int

	sqlBuf []byte
	params [][]byte
	rows   [2]rowStore // the last row of the pending and current results (\gset, \aset)
	timer  *time.Timer

	inflight sync.Mutex  // guards conn for cancelInFlight
	busy     atomic.Bool // a query is in flight (set without the lock: it is per query)

	// In a group loop (runGroup): yield suspends the client's coroutine
	// until what it waits for is ready; abandoned is set when the loop
	// gives up on it.
	yield     func(wait) bool
	abandoned bool
}

// waiter is the fdWaiter for the client's sockets: the client itself in a
// group loop, nil (Go's poller) otherwise.
func (c *client) waiter() fdWaiter {
	if c.e.grouped {
		return c
	}
	return nil
}

// rowStore keeps one row of a result past the next message read: column names
// and values copied into one buffer.
type rowStore struct {
	names  [][]byte
	values [][]byte
	data   []byte
	nrows  int64
	tuples bool // the result had a RowDescription (PGRES_TUPLES_OK)
}

func (r *rowStore) reset() {
	r.names = r.names[:0]
	r.values = r.values[:0]
	r.data = r.data[:0]
	r.nrows = 0
	r.tuples = false
}

func (r *rowStore) setFields(fields []pgproto3.FieldDescription) {
	r.names = r.names[:0]
	r.data = r.data[:0]
	r.tuples = true
	for _, f := range fields {
		r.names = append(r.names, f.Name) // re-pointed into data below
	}
	// copy names into data so they survive the next message read
	for i, n := range r.names {
		start := len(r.data)
		r.data = append(r.data, n...)
		r.names[i] = r.data[start:len(r.data):len(r.data)]
	}
}

func (r *rowStore) setRow(values [][]byte) {
	// Names occupy the front of data; rebuild values after them.
	namesLen := 0
	for _, n := range r.names {
		namesLen += len(n)
	}
	r.data = r.data[:namesLen]
	need := namesLen
	for _, v := range values {
		need += len(v)
	}
	if cap(r.data) < need {
		nd := make([]byte, namesLen, need*2)
		copy(nd, r.data)
		r.data = nd
		off := 0
		for i, n := range r.names {
			r.names[i] = r.data[off : off+len(n) : off+len(n)]
			off += len(n)
		}
	}
	r.values = r.values[:0]
	for _, v := range values {
		start := len(r.data)
		r.data = append(r.data, v...)
		r.values = append(r.values, r.data[start:len(r.data):len(r.data)])
	}
	r.nrows++
}

func newClient(e *engine, id int, g *group) (*client, error) {
	cfg := e.cfg
	c := &client{e: e, id: id, g: g, rec: cfg.Metrics.Recorder(id)}
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

func (c *client) errorf(format string, args ...any) {
	c.e.cfg.Log.Error(fmt.Sprintf(format, args...))
}

// cancelInFlight sends a cancel request when the client is waiting for the
// server.
func (c *client) cancelInFlight() {
	c.inflight.Lock()
	var req cancelRequest
	ok := false
	if c.busy.Load() {
		// Read under the lock: the client closes its connection under it.
		req, ok = c.conn.cancelRequest()
	}
	c.inflight.Unlock()
	if ok {
		req.send(2 * time.Second)
	}
}

// setBusy marks whether a query is in flight, for cancelInFlight. An atomic
// store, not the lock: it happens twice per query, and a cancel that sees a
// stale value either cancels nothing (the backend is idle) or misses a
// query that was about to be sent, as it could with the lock.
func (c *client) setBusy(b bool) { c.busy.Store(b) }

// done reports whether the client must not start another transaction.
func (c *client) done() bool {
	e := c.e
	return e.timerHit.Load() || e.stopped.Load()
}

// run is the client's loop: pgbench's advanceConnectionState from
// CHOOSE_SCRIPT to FINISHED or ABORTED, one transaction per iteration.
func (c *client) run() {
	e := c.e
	cfg := e.cfg
	defer c.closeConn()
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
		// START_TX
		now := e.now()
		if c.conn == nil || c.conn.broken {
			if !c.connect() {
				if cfg.Reconnect && !c.done() {
					c.record(metrics.FailedConnection, 0)
					if cfg.Transactions > 0 && c.cnt >= cfg.Transactions {
						return
					}
					if c.g.sched == nil {
						c.sleepUntil(e.now() + 100_000) // do not spin while the server is down
					}
					continue
				}
				c.errorf("client %d aborted while establishing connection", c.id)
				e.noteAbort(c.g.id)
				return
			}
			now = e.now()
		}
		saved := c.sc.Rand
		c.begin = now
		if c.g.sched == nil {
			c.scheduled = now
		}
		var st step
		for {
			st = c.attempt()
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
		switch st {
		case stepAbort:
			if (c.es == esConn || c.conn == nil || c.conn.broken) && cfg.Reconnect && !c.done() {
				c.record(metrics.FailedConnection, 0)
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
		end := e.now()
		switch c.es {
		case esNone:
			c.record(metrics.Committed, end)
		case esSerialization:
			c.record(metrics.FailedSerialization, 0)
		case esDeadlock:
			c.record(metrics.FailedDeadlock, 0)
		default:
			c.record(metrics.FailedOther, 0)
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
	}
}

// connect makes the client's connection (under -C, or after a loss).
func (c *client) connect() bool {
	e := c.e
	t0 := time.Now()
	conn, err := dial(context.Background(), e.cfg.Conn, e.ncmds, e.cfg.OnNotice, c.waiter())
	if e.cfg.ConnectPerTx {
		e.addConnTime(time.Since(t0))
	}
	if err != nil {
		msg := err.Error()
		if e.cfg.ConnectError != nil {
			msg = e.cfg.ConnectError(err)
		}
		if !e.cfg.Reconnect || !c.done() {
			c.errorf("%s", strings.TrimSuffix(msg, "\n"))
		}
		return false
	}
	c.setConn(conn)
	return true
}

// setConn and closeConn change the client's connection under c.inflight,
// which cancelInFlight (another goroutine) reads it under.
func (c *client) setConn(conn *wireConn) {
	c.inflight.Lock()
	c.conn = conn
	c.inflight.Unlock()
}

func (c *client) closeConn() {
	c.inflight.Lock()
	defer c.inflight.Unlock()
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
		if e.limit > 0 || cfg.Overload == Drop {
			now := e.now()
			late := (e.limit > 0 && c.scheduled < now-e.limit) || (cfg.Overload == Drop && c.scheduled < now)
			if late {
				if cfg.Overload == Drop {
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
		if !c.sleepUntil(c.scheduled) {
			return false
		}
		return !c.done()
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

// record accounts one transaction of the current script. end is its end
// time for a committed transaction.
func (c *client) record(o metrics.Outcome, end int64) {
	e := c.e
	// c.tx, not a local: OnTx is a func value, so a local would escape
	// and cost an allocation per transaction.
	tx := &c.tx
	*tx = metrics.Tx{Script: c.script, Outcome: o, Tries: c.tries}
	switch o {
	case metrics.Committed:
		tx.Response = end - c.scheduled
		tx.Service = end - c.begin
		tx.Lag = c.begin - c.scheduled
	case metrics.Skipped, metrics.Dropped:
		tx.Tries = 0
	}
	c.rec.Record(tx)
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

// attempt runs the script's commands once (one try of the transaction).
func (c *client) attempt() step {
	e := c.e
	cfg := e.cfg
	sc := c.sc
	sc.Begin(c.script)
	cmds := cfg.Program.Scripts[c.script].Commands
	for i := 0; i < len(cmds); {
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
			return st
		}
		if cfg.PerCommand {
			c.rec.CommandDone(c.script, i, e.now()-t0)
		}
		i = sc.Next(i)
	}
	if c.pipeline {
		c.errorf("client %d aborted: end of script reached with pipeline open", c.id)
		c.es = esMeta
		return stepAbort
	}
	return stepOK
}

// commandFailed is pgbench's commandFailed.
func (c *client) commandFailed(i int, cmd, msg string) step {
	c.errorf("client %d aborted in command %d (%s) of script %d; %s", c.id, i, cmd, c.script, msg)
	c.es = esMeta
	return stepAbort
}

func (c *client) metaCommand(i int, cmd *script.Command) step {
	e := c.e
	cfg := e.cfg
	sc := c.sc
	if cfg.Debug {
		c.debugf("client %d executing \\%s", c.id, strings.Join(cmd.Args, " "))
	}
	switch cmd.Meta {
	case script.MetaSleep:
		usec, err := sc.SleepMicros(i)
		if err != nil {
			return c.execFailed(i, err)
		}
		if usec > 0 {
			c.sleepUntil(e.now() + int64(usec))
		}
	case script.MetaShell, script.MetaSetShell:
		return c.shell(i, cmd)
	case script.MetaStartPipeline:
		if cfg.Mode == script.Simple {
			return c.commandFailed(i, "startpipeline", "cannot use pipeline mode with the simple query protocol")
		}
		if cfg.Mode == script.Prepared {
			cmds := cfg.Program.Scripts[c.script].Commands
			for j := i + 1; j < len(cmds); j++ {
				if cmds[j].Kind == script.MetaCommand && cmds[j].Meta == script.MetaEndPipeline {
					break
				}
				if cmds[j].Kind == script.SQLCommand {
					if st := c.prepare(j, cmds[j]); st != stepOK {
						return st
					}
				}
			}
		}
		if c.pipeline {
			return c.commandFailed(i, "startpipeline", "already in pipeline mode")
		}
		c.pipeline = true
		c.numSyncs = 0
	case script.MetaSyncPipeline:
		if !c.pipeline {
			return c.commandFailed(i, "syncpipeline", "not in pipeline mode")
		}
		c.conn.sendSync()
		c.numSyncs++
		if err := c.conn.flush(); err != nil {
			return c.commandFailed(i, "syncpipeline", "failed to send a pipeline sync")
		}
	case script.MetaEndPipeline:
		if !c.pipeline {
			return c.commandFailed(i, "endpipeline", "not in pipeline mode")
		}
		c.conn.sendSync()
		c.numSyncs++
		if err := c.conn.flush(); err != nil {
			return c.commandFailed(i, "endpipeline", "failed to send a pipeline sync")
		}
		return c.readPipeline(i)
	default:
		if err := sc.Exec(i); err != nil {
			return c.execFailed(i, err)
		}
	}
	return stepOK
}

// execFailed reports a meta-command's run-time error and aborts.
func (c *client) execFailed(i int, err error) step {
	var ee *script.ExecError
	if errors.As(err, &ee) {
		if ee.Msg != "" {
			c.errorf("%s", ee.Msg)
		}
		c.errorf("%s", ee.AbortLine(c.id, i, c.script))
	} else {
		c.errorf("client %d aborted in command %d of script %d; %v", c.id, i, c.script, err)
	}
	c.es = esMeta
	return stepAbort
}

// shell runs \shell or \setshell with system()/popen() semantics: sh -c,
// \shell's output on our stdout, \setshell's first line stored.
func (c *client) shell(i int, cmd *script.Command) step {
	e := c.e
	line, err := c.sc.ShellCommand(i)
	if err != nil {
		return c.execFailed(i, err)
	}
	prog := cmd.Args[1]
	kind := "shell"
	if cmd.Meta == script.MetaSetShell {
		prog = cmd.Args[2]
		kind = "setshell"
	}
	sh := exec.Command("/bin/sh", "-c", line)
	sh.Stdin = os.Stdin
	sh.Stderr = os.Stderr
	if cmd.Meta == script.MetaShell {
		if e.cfg.Stdout != nil {
			sh.Stdout = e.cfg.Stdout
		} else {
			sh.Stdout = os.Stdout
		}
		if err := sh.Run(); err != nil {
			if !e.timerHit.Load() {
				c.errorf("%s: could not launch shell command", prog)
			}
			return c.commandFailed(i, kind, "execution of meta-command failed")
		}
		return stepOK
	}
	var out bytes.Buffer
	sh.Stdout = &out
	if err := sh.Start(); err != nil {
		c.errorf("%s: could not launch shell command", prog)
		return c.commandFailed(i, kind, "execution of meta-command failed")
	}
	sh.Wait() // pclose's status is not checked by pgbench beyond < 0
	if err := c.sc.StoreShellResult(i, out.Bytes()); err != nil {
		var ee *script.ExecError
		if errors.As(err, &ee) && ee.Msg != "" && !e.timerHit.Load() {
			c.errorf("%s", ee.Msg)
		}
		return c.commandFailed(i, kind, "execution of meta-command failed")
	}
	return stepOK
}

// prepare prepares SQL command i on this connection if it is not yet
// (pgbench's prepareCommand: an error is logged and the run goes on).
func (c *client) prepare(i int, cmd *script.Command) step {
	done := c.conn.prepared[c.script]
	if done[i] {
		return stepOK
	}
	c.debugf("client %d preparing %s", c.id, cmd.Query.Name)
	c.setBusy(true)
	err := c.conn.prepare(cmd.Query.Name, cmd.Query.SQL, len(cmd.Query.Params))
	c.setBusy(false)
	if err != nil {
		if c.conn.broken {
			c.es = esConn
			return c.commandFailed(i, "SQL", "SQL command send failed")
		}
		c.errorf("%s", trimNL(c.e.pqError(err)))
	}
	done[i] = true
	return stepOK
}

// sqlCommand sends SQL command i and, outside a pipeline, reads its results
// (pgbench's sendCommand and readCommandResponse).
func (c *client) sqlCommand(i int, cmd *script.Command) step {
	e := c.e
	cfg := e.cfg
	conn := c.conn
	if c.pipeline {
		if cmd.Meta == script.MetaGset {
			return c.commandFailed(i, "gset", "\\gset is not allowed in pipeline mode")
		}
		if cmd.Meta == script.MetaAset {
			return c.commandFailed(i, "aset", "\\aset is not allowed in pipeline mode")
		}
	}
	switch cfg.Mode {
	case script.Simple:
		c.sqlBuf = c.sc.AppendSQL(c.sqlBuf[:0], i)
		if cfg.Debug {
			c.debugf("client %d sending %s", c.id, c.sqlBuf)
		}
		conn.sendSimple(c.sqlBuf)
	case script.Extended:
		c.params = c.sc.AppendParams(c.params[:0], i)
		if cfg.Debug {
			c.debugf("client %d sending %s", c.id, cmd.Query.SQL)
		}
		conn.sendExtended(cmd.Query.SQL, c.params)
		if !c.pipeline {
			conn.sendSync()
		}
	case script.Prepared:
		if st := c.prepare(i, cmd); st != stepOK {
			return st
		}
		c.params = c.sc.AppendParams(c.params[:0], i)
		if cfg.Debug {
			c.debugf("client %d sending %s", c.id, cmd.Query.Name)
		}
		conn.sendPrepared(cmd.Query.Name, c.params)
		if !c.pipeline {
			conn.sendSync()
		}
	}
	if c.pipeline {
		return stepOK
	}
	c.setBusy(true)
	err := conn.flush()
	if err != nil {
		c.setBusy(false)
		c.es = esConn
		return c.commandFailed(i, "SQL", "SQL command send failed")
	}
	if cfg.Debug {
		c.debugf("client %d receiving", c.id)
	}
	st := c.readResults(i, cmd)
	c.setBusy(false)
	return st
}

// readResults reads the results of one query up to ReadyForQuery, as
// pgbench's readCommandResponse processes libpq's results: numbered from 0,
// the last one known only when the next is seen; \gset stores the last
// result's single row, \aset the last row of every result; an error result
// ends the processing (the rest is discarded).
func (c *client) readResults(i int, cmd *script.Command) step {
	e := c.e
	meta := cmd.Meta
	store := meta == script.MetaGset || meta == script.MetaAset
	qrynum := 0
	cur, pend := &c.rows[0], &c.rows[1]
	cur.reset()
	havePend := false
	failed := stepOK

	// finish processes the pending result; last tells whether it is the
	// last of the query.
	finish := func(last bool) step {
		r := pend
		defer func() { qrynum++ }()
		if !r.tuples {
			if last && meta == script.MetaGset {
				c.errorf("client %d script %d command %d query %d: expected one row, got %d", c.id, c.script, i, qrynum, 0)
				c.es = esMeta
				return stepAbort
			}
			return stepOK
		}
		if (last && meta == script.MetaGset) || meta == script.MetaAset {
			if meta == script.MetaGset && r.nrows != 1 {
				c.errorf("client %d script %d command %d query %d: expected one row, got %d", c.id, c.script, i, qrynum, r.nrows)
				c.es = esMeta
				return stepAbort
			}
			if meta == script.MetaAset && r.nrows <= 0 {
				return stepOK
			}
			ctxName := "gset"
			if meta == script.MetaAset {
				ctxName = "aset"
			}
			for f, name := range r.names {
				if err := c.sc.SetBytes(ctxName, cmd.VarPrefix, name, r.values[f]); err != nil {
					c.errorf("%s", err.Error())
					c.errorf("client %d script %d command %d query %d: error storing into variable %s%s", c.id, c.script, i, qrynum, cmd.VarPrefix, name)
					c.es = esMeta
					return stepAbort
				}
			}
		}
		return stepOK
	}
	// endResult: the current result is complete, so the pending one was
	// not the last; the current one becomes pending.
	endResult := func() {
		if havePend && failed == stepOK {
			failed = finish(false)
		}
		cur, pend = pend, cur
		cur.reset()
		havePend = true
	}
	for {
		msg, err := c.conn.receive(store)
		if err != nil {
			if failed != stepOK {
				return failed
			}
			c.es = esConn
			return c.commandFailed(i, "SQL", "perhaps the backend died while processing")
		}
		switch m := msg.(type) {
		case *pgproto3.ParseComplete, *pgproto3.BindComplete, *pgproto3.NoData, *pgproto3.ParameterDescription:
		case *pgproto3.RowDescription:
			if store {
				cur.setFields(m.Fields)
			} else {
				cur.tuples = true
			}
		case *pgproto3.DataRow:
			if store {
				cur.setRow(m.Values)
			} else {
				cur.nrows++
			}
		case *pgproto3.CommandComplete, *pgproto3.EmptyQueryResponse, *pgproto3.PortalSuspended:
			endResult()
		case *pgproto3.CopyInResponse, *pgproto3.CopyBothResponse, *pgproto3.CopyOutResponse:
			if failed == stepOK {
				if havePend {
					failed = finish(false)
				}
				if failed == stepOK {
					c.errorf("COPY is not supported in pgbench, aborting")
					c.es = esMeta
					failed = stepAbort
				}
			}
			havePend = false
			if _, out := m.(*pgproto3.CopyOutResponse); !out {
				// The server ignores Sync during copy-in; after CopyFail
				// an extended-protocol query needs another one.
				c.conn.refuseCopy(e.cfg.Mode != script.Simple)
			}
		case *pgproto3.CopyData, *pgproto3.CopyDone:
		case *pgproto3.ErrorResponse:
			if failed == stepOK {
				if havePend {
					failed = finish(false)
				}
				if failed == stepOK {
					failed = c.sqlError(i, qrynum, pgconn.ErrorResponseToPgError(m))
				}
			}
			havePend = false
			cur.reset()
		case *pgproto3.ReadyForQuery:
			if failed != stepOK {
				return failed
			}
			if havePend {
				return finish(true)
			}
			if qrynum == 0 {
				c.errorf("client %d command %d: no results", c.id, i)
				c.es = esMeta
				return stepAbort
			}
			return stepOK
		}
	}
}

// sqlError classifies an error result: retryable ones (and others under
// --continue-on-error) lead to pgbench's CSTATE_ERROR, the rest abort.
func (c *client) sqlError(i, qrynum int, pe *pgconn.PgError) step {
	e := c.e
	c.es = classify(pe)
	if e.cfg.Reconnect && connectionLost(pe) {
		// The server is going away (shutdown, restart, crash): a
		// connection failure, counted, and the client reconnects.
		c.es = esConn
		return stepAbort
	}
	if c.es == esSerialization || c.es == esDeadlock || (c.es == esOther && e.cfg.ContinueOnError) {
		if e.cfg.VerboseErrors {
			e.cfg.Log.Info(fmt.Sprintf("client %d got an error in command %d (SQL) of script %d; %s", c.id, i, c.script, trimNL(e.pqError(pe))))
		}
		return stepError
	}
	if e.stopped.Load() {
		// cancelled by the interruption: not the script's fault
		return stepFinish
	}
	c.errorf("client %d script %d aborted in command %d query %d: %s", c.id, c.script, i, qrynum, trimNL(e.pqError(pe)))
	return stepAbort
}

// readPipeline reads everything up to the last sync of a pipeline ended by
// \endpipeline (command i), then leaves pipeline mode. The first error of
// the pipeline decides the outcome; later queries of the same sync segment
// are not executed by the server.
func (c *client) readPipeline(i int) step {
	if c.e.cfg.Debug {
		c.debugf("client %d receiving", c.id)
	}
	c.setBusy(true)
	defer c.setBusy(false)
	failed := stepOK
	qrynum := 0
	for c.numSyncs > 0 {
		msg, err := c.conn.receive(false)
		if err != nil {
			c.pipeline = false
			c.es = esConn
			return c.commandFailed(i, "SQL", "perhaps the backend died while processing")
		}
		switch m := msg.(type) {
		case *pgproto3.CommandComplete, *pgproto3.EmptyQueryResponse:
			qrynum++
		case *pgproto3.ErrorResponse:
			if failed == stepOK {
				failed = c.sqlError(i, 0, pgconn.ErrorResponseToPgError(m))
			}
		case *pgproto3.CopyInResponse, *pgproto3.CopyBothResponse:
			c.conn.refuseCopy(true)
			c.numSyncs++
			if failed == stepOK {
				c.errorf("COPY is not supported in pgbench, aborting")
				c.es = esMeta
				failed = stepAbort
			}
		case *pgproto3.ReadyForQuery:
			c.numSyncs--
		}
	}
	c.pipeline = false
	return failed
}

// discardPipeline ends a pipeline after an error: one more sync (for
// queries sent after the last \syncpipeline), then everything is read up to
// the last ReadyForQuery.
func (c *client) discardPipeline() error {
	c.conn.sendSync()
	c.numSyncs++
	if err := c.conn.flush(); err != nil {
		return err
	}
	for c.numSyncs > 0 {
		msg, err := c.conn.receive(false)
		if err != nil {
			return err
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			c.numSyncs--
		}
	}
	c.pipeline = false
	return nil
}
