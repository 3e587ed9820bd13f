package collect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
// or failed) leaves its figures out and puts its kind into Evidence.Missing
// with the reason (the collector's warning in events.jsonl); one that cannot
// be read adds a warning to the Evidence.
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
	why := collectorReasons(dir)
	missing := func(kind, file string) {
		reason, ok := why[kind]
		if !ok {
			reason = fmt.Sprintf("not collected (the %s collector did not run, %s is not in the run directory)", kind, file)
		}
		ev.SetMissing(kind, reason)
	}
	if has(results.ServerFile) {
		note("server evidence", serverEvidence(dir, from, to, interval, committed, ev))
	} else {
		missing(KindServer, results.ServerFile)
	}
	if has(results.WaitsFile) {
		w, byType, err := waitsEvidence(dir, from, to, interval, EvidenceTopWaits)
		note("wait evidence", err)
		ev.Waits, ev.WaitTypes = w, byType
	} else {
		missing(KindWaits, results.WaitsFile)
	}
	if has(results.StatementsFile) {
		se, err := statementsEvidence(dir, results.PhaseMeasure, EvidenceTopStatements)
		note("statement evidence", err)
		ev.Statements, ev.Calls, ev.Rows, ev.OtherSessions = se.list, se.calls, se.rows, se.others
		if err == nil && len(se.list) == 0 {
			reason := "no statements of the measured phase in " + results.StatementsFile + " (no snapshot at its end, or nothing ran)"
			if w, ok := why[KindStatements]; ok {
				reason += ": " + w
			}
			ev.SetMissing(KindStatements, reason)
		}
	} else {
		missing(KindStatements, results.StatementsFile)
	}
	if has(results.OSFile) {
		note("OS evidence", osEvidence(dir, from, to, interval, ev))
	} else {
		missing(KindOS, results.OSFile)
	}
	return ev
}

// collectorReasons reads the collectors' warnings from events.jsonl
// (results.EventCollector): kind → the first warning of that collector,
// without its prefix ("statements collector not started: " or
// "statements: "). A collector that could not start says why its file is
// missing. An events file that cannot be read gives no reasons.
func collectorReasons(dir string) map[string]string {
	out := map[string]string{}
	events, err := results.ReadEvents(dir)
	if err != nil {
		return out
	}
	notStarted := map[string]bool{}
	for _, e := range events {
		if e.Kind != results.EventCollector {
			continue
		}
		for _, k := range AllKinds {
			if rest, ok := strings.CutPrefix(e.Message, k+" collector not started: "); ok && !notStarted[k] {
				out[k], notStarted[k] = rest, true // why it did not start beats later warnings
			} else if rest, ok := strings.CutPrefix(e.Message, k+": "); ok && out[k] == "" {
				out[k] = rest
			}
		}
	}
	return out
}
