package engine

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgtrial/pgtrial/internal/script"
)

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

// prepare prepares SQL command i on this connection if it is not yet
// (pgbench's prepareCommand: an error is logged and the run goes on; with
// Config.PrepareFailsCommand the error is the command's, as the server's
// error of an executed statement would be, and the command stays
// unprepared).
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
		var pe *pgconn.PgError
		if c.e.cfg.PrepareFailsCommand && !c.pipeline && errors.As(err, &pe) {
			return c.sqlError(i, 0, pe)
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
	if c.es == esSerialization || c.es == esDeadlock || (c.es.sqlFailure() && e.cfg.ContinueOnError) {
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
