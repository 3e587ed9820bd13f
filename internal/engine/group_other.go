//go:build !linux

package engine

import (
	"errors"
	"net"
)

// groupLoops: only Linux runs groups as polling loops (ppoll); here
// each client is a goroutine on Go's network poller.
const groupLoops = false

type wait struct{}

type fdConn struct{ net.Conn }

type fdWaiter interface{ waitFD(fd int, write bool) bool }

func (c *fdConn) shutdown() {}

func newFdConn(nc net.Conn, w fdWaiter) (*fdConn, error) {
	return nil, errors.New("not supported on this system")
}

func (e *engine) runGroup(clients []*client) {}

func (c *client) waitFD(fd int, write bool) bool { return false }

func (c *client) suspendUntil(t int64) bool { return false }

// setTimerSlack is Linux-only.
func setTimerSlack() {}
