package loader

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ProgressMode says how much init prints while it generates data.
type ProgressMode int

const (
	// ProgressLines prints pgbench's line every 100,000 rows (every step boundary
	// crossed since the last check; at most one line per check).
	ProgressLines ProgressMode = iota
	// ProgressQuiet prints a line at most every 5 s (pgbench's -q).
	ProgressQuiet
	// ProgressNone prints only the step messages and the summary.
	ProgressNone
)

// progress prints step messages and the generation progress of one table at a time, to
// a terminal (one line rewritten with \r) or to a pipe (whole lines).
type progress struct {
	out   io.Writer
	tty   bool
	mode  ProgressMode
	mu    sync.Mutex
	width int // length of the \r line on screen, to blank it out
}

func newProgress(out io.Writer, tty bool, mode ProgressMode) *progress {
	if out == nil {
		out = io.Discard
	}
	return &progress{out: out, tty: tty, mode: mode}
}

// Line prints a message on its own line.
func (p *progress) Line(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintf(p.out, format+"\n", args...)
}

func (p *progress) clearLocked() {
	if p.width > 0 {
		fmt.Fprintf(p.out, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}

// rowLine is pgbench's progress text plus the rate.
func rowLine(table string, done, total int64, elapsed time.Duration) string {
	el := elapsed.Seconds()
	remaining, rate := 0.0, 0.0
	if done > 0 && el > 0 {
		rate = float64(done) / el // rows/s
		remaining = float64(total-done) / rate
	}
	pct := 100 * done / max(total, 1)
	return fmt.Sprintf("%d of %d tuples (%d%%) of %s done (elapsed %.2f s, remaining %.2f s, %.0f rows/s)",
		done, total, pct, table, el, remaining, rate)
}

func (p *progress) show(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		pad := ""
		if n := p.width - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprintf(p.out, "\r%s%s", line, pad)
		p.width = len(line)
		return
	}
	fmt.Fprintln(p.out, line)
}

// Rows reports the progress of one table: the caller adds to the returned counter as
// rows are sent (from any goroutine) and calls the returned stop function when done.
func (p *progress) Rows(table string, total int64) (*atomic.Int64, func()) {
	counter := new(atomic.Int64)
	if p.mode == ProgressNone || total == 0 {
		return counter, func() {}
	}
	start := time.Now()
	done := make(chan struct{})
	finished := make(chan struct{})
	// A terminal is refreshed 10 times a second; a pipe gets pgbench's lines, one per
	// 100,000 rows crossed (checked 10 times a second), or one per 5 s with -q.
	const step = 100000
	tick := 100 * time.Millisecond
	go func() {
		defer close(finished)
		t := time.NewTicker(tick)
		defer t.Stop()
		var lastStep int64
		lastPrint := start
		for {
			select {
			case <-done:
				n := counter.Load()
				if p.tty || n/step != lastStep || p.mode == ProgressQuiet {
					p.show(rowLine(table, n, total, time.Since(start)))
				}
				p.mu.Lock()
				if p.tty {
					fmt.Fprintln(p.out)
					p.width = 0
				}
				p.mu.Unlock()
				return
			case now := <-t.C:
				n := counter.Load()
				switch {
				case p.mode == ProgressQuiet:
					if now.Sub(lastPrint) >= 5*time.Second {
						lastPrint = now
						p.show(rowLine(table, n, total, now.Sub(start)))
					}
				case p.tty:
					p.show(rowLine(table, n, total, now.Sub(start)))
				case n/step != lastStep:
					lastStep = n / step
					p.show(rowLine(table, lastStep*step, total, now.Sub(start)))
				}
			}
		}
	}()
	return counter, func() { close(done); <-finished }
}
