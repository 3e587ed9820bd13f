//go:build unix

package engine

import (
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// blockingConn is a socket read and written with blocking system calls on
// the client's own OS thread, bypassing Go's network poller.
//
// Why: with the poller, every reply costs a read that fails with EAGAIN, a
// park of the goroutine, an epoll wake-up, and scheduler work on another
// thread to resume it (futex, nanosleep of spinning threads). pgbench pays
// one ppoll per reply instead. Measured on the 2-core machine (select-only,
// -M prepared, 4 clients, 80,000 transactions): ~17 µs of client CPU per
// transaction through the poller versus ~13 µs for pgbench. A blocking
// read on a locked thread that owns a P returns straight to the goroutine.
// The engine locks each client goroutine to its thread and raises
// GOMAXPROCS so that a thread blocked in read keeps its P (see Run).
type blockingConn struct {
	fd     int
	local  net.Addr
	remote net.Addr
}

// newBlockingConn takes over nc's socket: the descriptor is duplicated, nc
// is closed (which removes it from the poller), and the duplicate is put in
// blocking mode. It fails for connections that are not plain sockets (TLS),
// which then stay on the poller.
func newBlockingConn(nc net.Conn) (*blockingConn, error) {
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
	bc := &blockingConn{fd: fd, local: nc.LocalAddr(), remote: nc.RemoteAddr()}
	nc.Close()
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	syscall.CloseOnExec(fd)
	return bc, nil
}

func (c *blockingConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(c.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, &net.OpError{Op: "read", Net: c.remote.Network(), Addr: c.remote, Err: err}
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := syscall.Write(c.fd, p[written:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return written, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: err}
		}
		written += n
	}
	return written, nil
}

// Close closes the socket. A goroutine blocked in Read on another thread
// is woken by shutdown(2) first.
func (c *blockingConn) Close() error {
	if c.fd < 0 {
		return nil
	}
	syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	err := syscall.Close(c.fd)
	c.fd = -1
	return err
}

func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }

// Deadlines are not supported on a blocking socket; the engine does not
// use them on the hot path.
func (c *blockingConn) SetDeadline(t time.Time) error      { return nil }
func (c *blockingConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *blockingConn) SetWriteDeadline(t time.Time) error { return nil }

// preciseSleep waits d with nanosleep(2) on the calling (locked) thread:
// no timer goroutine, no poller round trip, so the wake-up is as precise as
// the thread's timer slack (see setTimerSlack).
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		err := syscall.Nanosleep(&ts, &rem)
		if err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
