package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// wireConn is one client's connection, spoken at the message level.
//
// pgconn makes the connection (authentication, TLS, parameters) and is then
// hijacked: the engine sends and reads protocol messages itself, because
// pgbench's behaviour is defined in terms of libpq's message stream —
// results counted one by one, the last result of a multi-statement query,
// COPY responses refused, pipelines with several syncs, the transaction
// status of every ReadyForQuery — which pgconn's higher-level readers hide
// or do not handle (a COPY FROM STDIN in a script would hang in pgconn).
// Reusing the message structs keeps the per-transaction path free of
// allocations.
type wireConn struct {
	nc     net.Conn
	fe     *msgWriter // sends
	mr     *msgReader // receives
	pid    uint32
	key    []byte
	params map[string]string

	// tx is the transaction status of the last ReadyForQuery: 'I' idle,
	// 'T' in a transaction block, 'E' in a failed block; 0 after a
	// connection failure (libpq's PQTRANS_UNKNOWN with CONNECTION_BAD).
	tx     byte
	broken bool

	query rawQuery
	parse pgproto3.Parse
	bind  pgproto3.Bind
	desc  pgproto3.Describe
	exec  pgproto3.Execute
	sync  pgproto3.Sync

	// prepared[script][command] is set once P_n was prepared on this
	// connection (pgbench's CState.prepared, reset on reconnection).
	prepared [][]bool

	onNotice func(*pgconn.Notice)

	// mu, when set (the client's lock, client.setConn), is held while the
	// socket is closed after an error, so that a shutdown from another
	// goroutine (the end of the run) never reaches a descriptor that was
	// closed and reused.
	mu *sync.Mutex
}

// rawQuery is a simple-protocol Query message whose text is a byte slice,
// so that the substituted SQL of simple mode is sent without a conversion
// to string.
type rawQuery struct{ sql []byte }

func (q *rawQuery) Frontend()                {}
func (q *rawQuery) Decode(data []byte) error { return errors.New("rawQuery: decode not supported") }
func (q *rawQuery) Encode(dst []byte) ([]byte, error) {
	// 'Q', int32 length (including itself), the text, a NUL.
	n := 4 + len(q.sql) + 1
	dst = append(dst, 'Q')
	dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	dst = append(dst, q.sql...)
	return append(dst, 0), nil
}

// dial opens a connection with pgconn and takes it over.
//
// With a waiter, the socket leaves Go's network poller (fdConn): reads and
// writes that would block suspend the client in its group's loop.
func dial(ctx context.Context, cfg *pgconn.Config, nscripts []int, onNotice func(*pgconn.Notice), w fdWaiter) (*wireConn, error) {
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	hc, err := pc.Hijack()
	if err != nil {
		pc.Close(ctx)
		return nil, fmt.Errorf("take over connection: %w", err)
	}
	nc := hc.Conn
	if w != nil {
		if fc, err := newFdConn(hc.Conn, w); err == nil {
			nc = fc
		}
	}
	// The messages are read with msgReader from the socket itself, not
	// through the hijacked Frontend: pgconn is idle after the startup's
	// ReadyForQuery, and the server sends nothing unasked after it, so no
	// bytes wait in the Frontend's buffer.
	c := &wireConn{
		nc:       nc,
		fe:       &msgWriter{w: nc},
		mr:       newMsgReader(nc),
		pid:      hc.PID,
		key:      hc.SecretKey,
		params:   hc.ParameterStatuses,
		tx:       hc.TxStatus,
		onNotice: onNotice,
	}
	c.desc.ObjectType = 'P'
	c.prepared = make([][]bool, len(nscripts))
	for i, n := range nscripts {
		c.prepared[i] = make([]bool, n)
	}
	return c, nil
}

// close sends Terminate and closes the socket.
func (c *wireConn) close() {
	if c == nil || c.nc == nil {
		return
	}
	if !c.broken {
		c.fe.Send(&pgproto3.Terminate{})
		c.nc.SetWriteDeadline(time.Now().Add(time.Second))
		c.fe.Flush()
	}
	c.nc.Close()
	c.nc = nil
	c.broken = true
	c.tx = 0
}

// fail marks the connection broken after an I/O error.
func (c *wireConn) fail(err error) error {
	c.broken = true
	c.tx = 0
	if c.nc != nil {
		if c.mu != nil {
			c.mu.Lock()
			defer c.mu.Unlock()
		}
		c.nc.Close()
	}
	return err
}

// shutdown makes the socket's pending and later reads and writes fail at
// once (shutdown(2) of a socket outside Go's poller, a deadline in the past
// otherwise), from any goroutine; the caller holds mu. It reports whether
// there was a socket.
func (c *wireConn) shutdown() bool {
	if c == nil || c.nc == nil {
		return false
	}
	if fc, ok := c.nc.(*fdConn); ok {
		fc.shutdown()
	} else {
		c.nc.SetDeadline(time.Unix(1, 0))
	}
	return true
}

// flush writes the buffered messages.
func (c *wireConn) flush() error {
	if err := c.fe.Flush(); err != nil {
		return c.fail(err)
	}
	return nil
}

// receive reads the next message, handling the asynchronous ones (notices,
// parameter changes, notifications) on the way. With rows false,
// RowDescription and DataRow come undecoded (msgReader.next): for callers
// that only count them.
func (c *wireConn) receive(rows bool) (pgproto3.BackendMessage, error) {
	for {
		msg, err := c.mr.next(rows)
		if err != nil {
			return nil, c.fail(err)
		}
		switch m := msg.(type) {
		case *pgproto3.NoticeResponse:
			if c.onNotice != nil {
				c.onNotice((*pgconn.Notice)(pgconn.ErrorResponseToPgError((*pgproto3.ErrorResponse)(m))))
			}
			continue
		case *pgproto3.ParameterStatus:
			c.params[m.Name] = m.Value
			continue
		case *pgproto3.NotificationResponse:
			continue
		case *pgproto3.ReadyForQuery:
			c.tx = m.TxStatus
		}
		return msg, nil
	}
}

// sendSimple queues a simple-protocol query.
func (c *wireConn) sendSimple(sql []byte) {
	c.query.sql = sql
	c.fe.Send(&c.query)
}

// sendExtended queues Parse (unnamed), Bind, Describe portal, Execute —
// libpq's PQsendQueryParams without its Sync.
func (c *wireConn) sendExtended(sql string, params [][]byte) {
	c.parse.Name = ""
	c.parse.Query = sql
	c.parse.ParameterOIDs = nil
	c.fe.Send(&c.parse)
	c.sendBind("", params)
}

// sendPrepared queues Bind of a prepared statement, Describe portal,
// Execute — libpq's PQsendQueryPrepared without its Sync.
func (c *wireConn) sendPrepared(name string, params [][]byte) {
	c.sendBind(name, params)
}

func (c *wireConn) sendBind(name string, params [][]byte) {
	c.bind.DestinationPortal = ""
	c.bind.PreparedStatement = name
	c.bind.ParameterFormatCodes = nil
	c.bind.Parameters = params
	c.bind.ResultFormatCodes = nil
	c.fe.Send(&c.bind)
	c.fe.Send(&c.desc)
	c.fe.Send(&c.exec)
}

// sendSync queues a Sync.
func (c *wireConn) sendSync() { c.fe.Send(&c.sync) }

// prepare runs Parse of a named statement synchronously, as PQprepare does:
// Parse, Sync, then reads up to ReadyForQuery. A server error is returned as
// *pgconn.PgError (the connection stays usable); an I/O error breaks it.
func (c *wireConn) prepare(name, sql string, nparams int) error {
	c.parse.Name = name
	c.parse.Query = sql
	c.parse.ParameterOIDs = nil
	c.fe.Send(&c.parse)
	c.sendSync()
	if err := c.flush(); err != nil {
		return err
	}
	var perr error
	for {
		msg, err := c.receive(false)
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			perr = pgconn.ErrorResponseToPgError(m)
		case *pgproto3.ReadyForQuery:
			return perr
		}
	}
}

// simpleExec runs a whole simple query and discards its results (used for
// ROLLBACK after an error). It returns the first server error.
func (c *wireConn) simpleExec(sql string) error {
	c.fe.Send(&pgproto3.Query{String: sql})
	if err := c.flush(); err != nil {
		return err
	}
	return c.drainToReady()
}

// drainToReady reads up to ReadyForQuery, refusing COPY, and returns the
// first server error seen.
func (c *wireConn) drainToReady() error {
	var first error
	for {
		msg, err := c.receive(false)
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			if first == nil {
				first = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.CopyInResponse, *pgproto3.CopyBothResponse:
			c.refuseCopy(false)
		case *pgproto3.ReadyForQuery:
			return first
		}
	}
}

// cancelRequest is what a CancelRequest for a connection's backend needs
// (libpq's PGcancel): taken while the connection is known to be open,
// sent without holding anything.
type cancelRequest struct {
	addr net.Addr
	pid  uint32
	key  []byte
}

// cancelRequest returns the connection's cancel request; false when the
// connection is closed.
func (c *wireConn) cancelRequest() (cancelRequest, bool) {
	if c == nil || c.nc == nil {
		return cancelRequest{}, false
	}
	return cancelRequest{addr: c.nc.RemoteAddr(), pid: c.pid, key: c.key}, true
}

// send sends the CancelRequest on a new connection to the backend's
// address (libpq's PQcancel) and waits for the server to close it.
func (r cancelRequest) send(timeout time.Duration) error {
	d := net.Dialer{Timeout: timeout}
	cc, err := d.Dial(r.addr.Network(), r.addr.String())
	if err != nil {
		return err
	}
	defer cc.Close()
	cc.SetDeadline(time.Now().Add(timeout))
	buf, err := (&pgproto3.CancelRequest{ProcessID: r.pid, SecretKey: r.key}).Encode(nil)
	if err != nil {
		return err
	}
	if _, err := cc.Write(buf); err != nil {
		return err
	}
	// The server closes the connection when done; wait for that.
	var b [1]byte
	cc.Read(b[:])
	return nil
}

// refuseCopy answers a CopyInResponse with CopyFail; extended says the
// query came by the extended protocol, whose Sync the server ignored while
// in copy-in mode, so another Sync is needed to get ReadyForQuery.
func (c *wireConn) refuseCopy(extended bool) {
	c.fe.Send(&pgproto3.CopyFail{Message: "COPY is not supported in pgbench"})
	if extended {
		c.sendSync()
	}
	c.flush()
}

// msgWriter buffers frontend messages and writes them at Flush: the
// sending half of pgproto3.Frontend, without its reader, whose 8 KiB
// buffer every Frontend takes at its creation and which the engine never
// reads from (msgReader reads): 16 MB of a 2,000-client run's heap.
type msgWriter struct {
	w   io.Writer
	buf []byte
	err error // the first failed Encode since the last Flush
}

// msgWriterKeep: a buffer grown beyond it by a long message is dropped
// after the write (pgproto3's rule, 1 KiB).
const msgWriterKeep = 1024

// Send appends msg to the buffer; an encoding error is returned by the
// next Flush, and nothing more is appended until then.
func (m *msgWriter) Send(msg pgproto3.FrontendMessage) {
	if m.err != nil {
		return
	}
	b, err := msg.Encode(m.buf)
	if err != nil {
		m.err = err
		return
	}
	m.buf = b
}

// Flush writes the buffered messages, in one write.
func (m *msgWriter) Flush() error {
	if err := m.err; err != nil {
		m.err, m.buf = nil, m.buf[:0]
		return fmt.Errorf("encode message: %w", err)
	}
	if len(m.buf) == 0 {
		return nil
	}
	_, err := m.w.Write(m.buf)
	if len(m.buf) > msgWriterKeep {
		m.buf = make([]byte, 0, msgWriterKeep)
	} else {
		m.buf = m.buf[:0]
	}
	return err
}
