package results

import (
	"strconv"
	"time"
)

// waits.csv: the wait events of the server's sessions, one row per
// interval, class and (wait_event_type, wait_event) (internal/collect
// writes it).
//
//	time, elapsed_s    the end of the interval (see csv.go)
//	source             "activity" (pg_stat_activity samples) or "pg_wait_sampling"
//	class              "client", "background" or "all" (a profile kept without pids)
//	wait_event_type    the server's name, "CPU" (active without a wait), or "" (no session)
//	wait_event         the server's name, "CPU", or ""
//	samples            sessions seen in that state, summed over the interval's samples
//	ticks              samples taken in the interval (pg_wait_sampling: its probes, estimated)
//	avg_sessions       samples / ticks, 3 decimals

// WaitsHeader is waits.csv's header.
func WaitsHeader() []string {
	return []string{"time", "elapsed_s", "source", "class", "wait_event_type", "wait_event", "samples", "ticks", "avg_sessions"}
}

// WaitRow is one row of waits.csv.
type WaitRow struct {
	Time    time.Time // end of the interval
	Elapsed float64   // seconds from the run's clock zero
	Source  string    // "activity" or "pg_wait_sampling"
	Class   string    // "client", "background" or "all"
	Type    string    // wait_event_type, "CPU", or "" (no session in the interval)
	Event   string    // wait_event, "CPU", or ""
	Samples int64
	Ticks   int64 // samples taken in the interval (pg_wait_sampling: its probes, estimated)
}

// AvgSessions is the average number of sessions in this state over the
// interval: samples / ticks.
func (r WaitRow) AvgSessions() float64 {
	if r.Ticks <= 0 {
		return 0
	}
	return float64(r.Samples) / float64(r.Ticks)
}

// Record is r as a waits.csv row, in WaitsHeader's order.
func (r WaitRow) Record() []string {
	return []string{FormatTime(r.Time), strconv.FormatFloat(r.Elapsed, 'f', 3, 64), r.Source, r.Class, r.Type, r.Event,
		strconv.FormatInt(r.Samples, 10), strconv.FormatInt(r.Ticks, 10), strconv.FormatFloat(r.AvgSessions(), 'f', 3, 64)}
}

// CreateWaits creates waits.csv in the run directory dir with its header.
func CreateWaits(dir string) (*CSVWriter, error) { return CreateCSV(dir, WaitsFile, WaitsHeader()) }

// ReadWaits reads waits.csv of the run directory dir (a last line cut short
// by a crash is left out).
func ReadWaits(dir string) ([]WaitRow, error) {
	return readRows(dir, WaitsFile, func(tab *Table, row []string) WaitRow {
		return WaitRow{
			Time:    tab.Time(row),
			Elapsed: tab.Float(row, "elapsed_s"),
			Source:  tab.Str(row, "source"),
			Class:   tab.Str(row, "class"),
			Type:    tab.Str(row, "wait_event_type"),
			Event:   tab.Str(row, "wait_event"),
			Samples: tab.Int(row, "samples"),
			Ticks:   tab.Int(row, "ticks"),
		}
	})
}
