package engine

import (
	"iter"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// groupLoops: on Linux each group of clients runs as one goroutine polling
// its sockets (runGroup); elsewhere each client is a goroutine on Go's poller.
const groupLoops = true

// Cadences of the group loop (engine µs); see runGroup.
const (
	// yieldEvery keeps the loop's goroutine from being seen running for
	// sysmon's 10 ms preemption limit. sysmon checks at most every 10 ms and
	// preempts a P whose schedule tick did not change between two checks, so
	// any period under 10 ms avoids the preemption signal; the margin is for
	// a loop that notices the time only after a ppoll returns. Each yield
	// costs a wakep (another thread woken to spin for the P the loop left):
	// the scheduler's share of the client's CPU was 3.05 % at 5 ms, 2.10 %
	// at 8 ms, and a 1 ms period cost +5 % CPU per transaction (36
	// interleaved rounds, select-only -M prepared -c 4 -j 2).
	yieldEvery = 9000
	// stopCheckEvery bounds a timed wait so that a stop (an interrupt,
	// --exit-on-abort) reaches sleeping clients within it. Clients waiting
	// for the server need no bound: the stop cancels their queries, and
	// the replies wake the poll. (A stop pipe in every poll did the same
	// at the cost of a third descriptor in each ppoll: 2.9 % ± 1.7 % of the
	// client's CPU per transaction, select-only with 2 clients a group, 14
	// interleaved pairs.)
	stopCheckEvery = 100_000
	tidCheckEvery  = 1000
	// clockEvery: without timed waits (closed model, no \sleep) the loop
	// reads the clock only every clockEvery polls, for the yield. Under
	// load a poll lasts at least a server round trip (tens of µs), so the
	// yield comes at most a few hundred µs late; when polls are slow (a
	// server that takes long to reply) a late yield only lets sysmon
	// preempt the loop, which costs what a yield costs plus a signal.
	// The clock (vDSO clock_gettime) cost 1.7 % of the client's CPU at
	// ~3.4 reads per transaction; this drops ~1.3 of them.
	clockEvery = 8
)

// wait is what a suspended client waits for: a socket to become readable
// or writable (fd ≥ 0), or a time (until > 0, engine µs).
type wait struct {
	fd     int32
	events int16
	until  int64
}

// runGroup runs a group's clients as coroutines on the calling goroutine's
// OS thread, pgbench's threadRun: resume every client that can go on; each
// runs until it must wait for its socket or for a time, and yields that
// wait; then one ppoll(2) over the group's sockets, with the nearest wake-up
// time as its timeout (ns resolution; the thread's timer slack is 1 µs),
// tells which clients to resume.
//
// The loop goroutine is not locked to its thread. The ppoll is a raw
// system call (see rawPpoll), so the scheduler sees a goroutine that runs
// for long; a locked goroutine is handed back to its thread through two
// futex wake-ups and P handoffs whenever it is preempted, which on a busy
// machine delayed intended starts by milliseconds (open-model lag p99
// 6 ms), while an unlocked one simply goes on, usually on the same thread.
// The loop yields (runtime.Gosched) every yieldEvery so that sysmon never
// sees it running for its 10 ms limit: that preemption is a signal, which
// interrupts ppoll (EINTR), wakes another thread and moves the loop to it.
// The timer slack is per thread, so it is set again when the loop finds
// itself on another thread (checked at most every tidCheckEvery, and only
// before timed waits).
func (e *engine) runGroup(clients []*client) {
	tid, tidChecked := 0, int64(-tidCheckEvery)
	yielded := e.now()
	polls := 0

	type co struct {
		c    *client
		next func() (wait, bool)
		stop func()
		w    wait
		live bool
	}
	cos := make([]*co, len(clients))
	for i, c := range clients {
		next, stop := iter.Pull(func(yield func(wait) bool) {
			c.yield = yield
			c.run()
		})
		cos[i] = &co{c: c, next: next, stop: stop, live: true}
	}
	defer func() {
		for _, k := range cos {
			k.stop()
		}
	}()

	ready := make([]*co, 0, len(cos))
	ready = append(ready, cos...)
	live := len(cos)
	pfds := make([]unix.PollFd, 0, len(cos)+1)
	owners := make([]*co, 0, len(cos))
	stopSeen := false
	for live > 0 {
		for _, k := range ready {
			w, ok := k.next()
			if !ok {
				k.live = false
				live--
				continue
			}
			k.w = w
		}
		ready = ready[:0]
		if live == 0 {
			break
		}

		// One poll for the group: every socket waited on, and the nearest
		// wake-up time, at most stopCheckEvery away while a client sleeps
		// (so that a stop wakes sleepers within that).
		pfds, owners = pfds[:0], owners[:0]
		var now int64
		timed := false // some client waits for a time: the clock is needed
		timeout := int64(-1)
		for _, k := range cos {
			if !k.live {
				continue
			}
			if k.w.fd >= 0 {
				pfds = append(pfds, unix.PollFd{Fd: k.w.fd, Events: k.w.events})
				owners = append(owners, k)
			}
			if k.w.until > 0 {
				if !timed {
					now, timed = e.now(), true
				}
				d := k.w.until - now
				if d < 0 {
					d = 0
				}
				if timeout < 0 || d < timeout {
					timeout = d
				}
			}
		}
		if timeout > stopCheckEvery && !stopSeen {
			timeout = stopCheckEvery
		}
		var ts *unix.Timespec
		if timeout >= 0 {
			t := unix.NsecToTimespec(timeout * 1000)
			ts = &t
		}
		if ts != nil && now-tidChecked >= tidCheckEvery {
			// The slack matters only for timed waits; gettid is a real
			// system call, so it is not made on every poll.
			if t := gettid(); t != tid {
				setTimerSlack()
				tid = t
			}
			tidChecked = now
		}
		for rawPpoll(pfds, ts) == syscall.EINTR {
		}
		polls++
		if timed || polls%clockEvery == 0 {
			now = e.now()
			if now-yielded >= yieldEvery {
				runtime.Gosched()
				yielded = e.now()
				tidChecked = yielded - tidCheckEvery // maybe on another thread now
			}
		}
		if !stopSeen && e.stopped.Load() {
			// Stopped: sleepers wake up to notice it; sockets keep being
			// polled for the cancelled queries' replies.
			stopSeen = true
			now, timed = e.now(), true
			for _, k := range cos {
				if k.live && k.w.fd < 0 {
					k.w.until = now
				}
			}
		}
		for i, p := range pfds {
			if p.Revents != 0 {
				ready = append(ready, owners[i])
			}
		}
		if timed {
			for _, k := range cos {
				if k.live && k.w.fd < 0 && k.w.until > 0 && k.w.until <= now {
					ready = append(ready, k)
				}
			}
		}
	}
}

// waitFD suspends the client until fd is ready (fdWaiter).
func (c *client) waitFD(fd int, write bool) bool {
	ev := int16(unix.POLLIN)
	if write {
		ev = unix.POLLOUT
	}
	if c.yield == nil || c.abandoned || !c.yield(wait{fd: int32(fd), events: ev}) {
		c.abandoned = true
		return false
	}
	return true
}

// suspendUntil yields until engine time t; false if the client is being
// abandoned.
func (c *client) suspendUntil(t int64) bool {
	if c.abandoned || !c.yield(wait{fd: -1, until: t}) {
		c.abandoned = true
		return false
	}
	return true
}

// rawPpoll is ppoll(2) without telling the Go scheduler. The loop's thread
// keeps its P while it waits (GOMAXPROCS has one per group plus two, so
// other goroutines run elsewhere): with an ordinary system call, sysmon
// retook the P of a thread "in a syscall" every 10 ms and then polled every
// 20 µs for a millisecond, which showed in the client's CPU per
// transaction. A preemption signal (every 10 ms for a goroutine that looks
// long-running, and for GC) interrupts the wait with EINTR; the caller
// polls again.
func rawPpoll(fds []unix.PollFd, ts *unix.Timespec) syscall.Errno {
	var p unsafe.Pointer
	if len(fds) > 0 {
		p = unsafe.Pointer(&fds[0])
	}
	_, _, e := syscall.RawSyscall6(unix.SYS_PPOLL, uintptr(p), uintptr(len(fds)), uintptr(unsafe.Pointer(ts)), 0, 0, 0)
	return e
}

// gettid is the calling thread's id.
func gettid() int {
	t, _, _ := syscall.RawSyscall(syscall.SYS_GETTID, 0, 0, 0)
	return int(t)
}
