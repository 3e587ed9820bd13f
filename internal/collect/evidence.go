package collect

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/pgtrial/pgtrial/internal/results"
)

// Evidence sizes: how many wait events and statements the summary lists.
const (
	EvidenceTopWaits      = 5
	EvidenceTopStatements = 5
)

// Summarize reads the collectors' files of the run directory dir and
// summarises the window (from, to] (the measured phase): checkpoints, WAL per
// transaction (committed = the phase's committed transactions), hit ratio,
// top waits, top statements of the phase results.PhaseMeasure, autovacuum
// runs, CPU, the busiest disk and pgtrial's own CPU. interval is the
// collectors' sampling period. A file that is missing (its collector was off
// or failed) leaves its figures at zero; one that cannot be read adds a
// warning to the Evidence.
func Summarize(dir string, from, to time.Time, interval time.Duration, committed int64) *results.Evidence {
	if interval <= 0 {
		interval = time.Second
	}
	ev := &results.Evidence{From: from, To: to}
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil || !errors.Is(err, fs.ErrNotExist)
	}
	note := func(what string, err error) {
		if err != nil {
			ev.Warnings = append(ev.Warnings, what+": "+err.Error())
		}
	}
	if has(results.ServerFile) {
		note("server evidence", serverEvidence(dir, from, to, interval, committed, ev))
	}
	if has(results.WaitsFile) {
		w, byType, err := waitsEvidence(dir, from, to, interval, EvidenceTopWaits)
		note("wait evidence", err)
		ev.Waits, ev.WaitTypes = w, byType
	}
	if has(results.StatementsFile) {
		s, calls, rows, err := statementsEvidence(dir, results.PhaseMeasure, EvidenceTopStatements)
		note("statement evidence", err)
		ev.Statements, ev.Calls, ev.Rows = s, calls, rows
	}
	if has(results.OSFile) {
		note("OS evidence", osEvidence(dir, from, to, interval, ev))
	}
	return ev
}
