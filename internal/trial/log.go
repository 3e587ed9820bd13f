package trial

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pgtrial/pgtrial/internal/engine"
)

// runLog is the engine's Logger for a run: messages go to Config.Out with
// pgtrial's prefix; the same message repeated within logRepeatWindow (every
// client losing its connection when the server restarts, a reconnect
// failing every 100 ms) is printed once and counted.
type runLog struct {
	mu   sync.Mutex
	out  func(string)
	rec  *Recorder
	seen map[string]*logSeen
}

type logSeen struct {
	printed    time.Time
	suppressed int
}

const logRepeatWindow = 5 * time.Second

func newRunLog(out func(string), rec *Recorder) *runLog {
	return &runLog{out: out, rec: rec, seen: map[string]*logSeen{}}
}

func (l *runLog) write(prefix, msg string) {
	msg = strings.TrimSuffix(msg, "\n")
	now := time.Now()
	l.mu.Lock()
	s := l.seen[msg]
	if s != nil && now.Sub(s.printed) < logRepeatWindow {
		s.suppressed++
		l.mu.Unlock()
		return
	}
	line := prefix + msg
	if s != nil && s.suppressed > 0 {
		line += fmt.Sprintf(" (and %d more times in the last %v)", s.suppressed, now.Sub(s.printed).Round(time.Second))
	}
	if s == nil {
		if len(l.seen) >= 1000 {
			clear(l.seen)
		}
		s = &logSeen{}
		l.seen[msg] = s
	}
	s.printed, s.suppressed = now, 0
	l.mu.Unlock()
	l.out(line)
}

func (l *runLog) Error(msg string) {
	l.rec.NoteError(msg)
	l.write("pgtrial: error: ", msg)
}
func (l *runLog) Info(msg string)  { l.write("pgtrial: ", msg) }
func (l *runLog) Debug(msg string) { l.write("pgtrial: debug: ", msg) }

// flush prints the counts of messages suppressed since they were last shown.
func (l *runLog) flush() {
	l.mu.Lock()
	var lines []string
	for msg, s := range l.seen {
		if s.suppressed > 0 {
			lines = append(lines, fmt.Sprintf("pgtrial: the message %q was repeated %d more times", msg, s.suppressed))
			s.suppressed = 0
		}
	}
	l.mu.Unlock()
	for _, line := range lines {
		l.out(line)
	}
}

// notingLog is a Logger of the caller's (pgbench's messages) whose errors
// also go to the recorder's first-error events.
type notingLog struct {
	engine.Logger
	rec *Recorder
}

func (l notingLog) Error(msg string) {
	l.rec.NoteError(msg)
	l.Logger.Error(msg)
}
