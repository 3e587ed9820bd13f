//go:build !unix

package engine

import (
	"errors"
	"net"
	"time"
)

// blockingConn is only available on Unix; elsewhere sockets stay on Go's
// network poller.
type blockingConn struct{ net.Conn }

func newBlockingConn(nc net.Conn) (*blockingConn, error) {
	return nil, errors.New("blocking sockets are not supported on this system")
}

// preciseSleep waits d on the calling thread.
func preciseSleep(d time.Duration) { time.Sleep(d) }

// setTimerSlack is a no-op here.
func setTimerSlack() {}
