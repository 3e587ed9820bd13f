package engine

import (
	"errors"
	"io"
	"net"
	"syscall"
	"time"
	"unsafe"
)

// fdConn is a client's socket outside Go's network poller: non-blocking
// reads and writes on the descriptor, and when one would block, the client
// (a coroutine of its group's loop, see runGroup) hands the wait to the
// loop, which polls all its clients' sockets in one ppoll(2) — pgbench's
// design: one thread per group of clients, one wake-up for whichever
// replies arrived.
//
// Why not Go's poller: every reply then costs a read that fails with
// EAGAIN, a park, an epoll wake-up on another thread and a futex to resume
// the goroutine. Measured on the 2-core machine (select-only, -M prepared,
// 4 clients, 80,000 transactions): ~17 µs of client CPU per transaction
// through the poller versus ~10–13 µs for pgbench; blocking reads on one
// thread per client cut it to ~11 µs but doubled the context switches of
// multi-statement transactions (tpcb-like ran at 0.87× pgbench's tps).
type fdConn struct {
	fd     int
	local  net.Addr
	remote net.Addr
	w      fdWaiter
	// sent: bytes were written since the last read. The reply to what was
	// just sent cannot be there yet (a round trip to the server takes tens
	// of µs), so the next read waits for the socket first instead of
	// trying a recvfrom that fails with EAGAIN (pgbench makes ~0.7 of
	// those per transaction): when the reply is already there, the group's
	// ppoll — made anyway for the other clients — reports it at once.
	sent bool
}

// fdWaiter suspends the caller until fd is readable (or writable); false
// means the client must give up (the run is being torn down).
type fdWaiter interface {
	waitFD(fd int, write bool) bool
}

var errAbandoned = errors.New("client abandoned")

// newFdConn takes over nc's socket: the descriptor is duplicated and nc
// closed (which removes it from Go's poller). It fails for connections
// that are not plain sockets (TLS), which then stay on the poller.
func newFdConn(nc net.Conn, w fdWaiter) (*fdConn, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, errors.New("not a socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	if err := raw.Control(func(f uintptr) { fd, derr = syscall.Dup(int(f)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	c := &fdConn{fd: fd, local: nc.LocalAddr(), remote: nc.RemoteAddr(), w: w}
	nc.Close()
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return c, nil
}

func (c *fdConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.remote.Network(), Addr: c.remote, Err: err}
}

// rawRead and rawWrite are recvfrom(2) and sendto(2) (as libpq uses: they
// skip the VFS layer of read/write) without telling the Go scheduler: on a
// non-blocking socket they never block, so the entersyscall/exitsyscall
// bookkeeping would be pure cost. MSG_NOSIGNAL: a closed peer is an EPIPE
// error, not a SIGPIPE.
func rawRead(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawWrite(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), syscall.MSG_NOSIGNAL, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func (c *fdConn) Read(p []byte) (int, error) {
	if c.sent {
		c.sent = false
		if !c.w.waitFD(c.fd, false) {
			return 0, c.opError("read", errAbandoned)
		}
	}
	for {
		n, err := rawRead(c.fd, p)
		switch err {
		case nil:
			if n == 0 && len(p) > 0 {
				return 0, io.EOF
			}
			return n, nil
		case syscall.EINTR:
		case syscall.EAGAIN:
			if !c.w.waitFD(c.fd, false) {
				return 0, c.opError("read", errAbandoned)
			}
		default:
			return 0, c.opError("read", err)
		}
	}
}

func (c *fdConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := rawWrite(c.fd, p[written:])
		switch err {
		case nil:
			written += n
		case syscall.EINTR:
		case syscall.EAGAIN:
			if !c.w.waitFD(c.fd, true) {
				return written, c.opError("write", errAbandoned)
			}
		default:
			return written, c.opError("write", err)
		}
	}
	c.sent = written > 0
	return written, nil
}

// Close closes the socket.
func (c *fdConn) Close() error {
	if c.fd < 0 {
		return nil
	}
	err := syscall.Close(c.fd)
	c.fd = -1
	return err
}

// shutdown shuts the socket down for reading and writing: a ppoll waiting
// on it returns (a close would not wake it), and reads and writes fail.
func (c *fdConn) shutdown() {
	if c.fd >= 0 {
		syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
}

func (c *fdConn) LocalAddr() net.Addr  { return c.local }
func (c *fdConn) RemoteAddr() net.Addr { return c.remote }

// Deadlines are not supported; the engine does not use them.
func (c *fdConn) SetDeadline(t time.Time) error      { return nil }
func (c *fdConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *fdConn) SetWriteDeadline(t time.Time) error { return nil }
