package results

import (
	"strconv"
	"time"
)

// activity.csv: the client backends seen by each pg_stat_activity sample of
// the wait collector (internal/collect writes it with the activity source
// of waits.csv, from the same query), one row per client backend that was
// active or idle in a transaction, per sample. internal/explain joins it to
// slow.csv by pid to say what the backend of a slow transaction was doing
// while it ran.
//
//	time, elapsed_s    the sample's instant (not an interval's end): the
//	                   midpoint of the query's round trip; elapsed_s in s
//	                   from the clock zero with µs precision
//	period_ms          the sampler's period (a sample is taken at a random
//	                   instant of each period)
//	pid                the backend's pid; 0 in the one row of a sample that
//	                   saw no client backend active (so every sample taken
//	                   has a row)
//	state              pg_stat_activity.state: active, idle in transaction, …
//	wait_event_type    the server's name, "CPU" when active without a wait
//	wait_event         the server's name, "CPU" when active without a wait
//	relation           for a heavyweight-lock wait (type Lock): the relation of
//	                   the pid's lock not granted (pg_locks), schema-qualified
//	                   when not in public, "" when the lock is not on one
//	                   (transactionid, virtualxid, …)
//	query_id           pg_stat_activity.query_id (PostgreSQL 14+, with
//	                   compute_query_id); "" when the server has none
//	blocked_by         for a Lock wait: the first pid pg_blocking_pids names; 0 none
const ActivityFile = "activity.csv"

// ActivityHeader is activity.csv's header.
func ActivityHeader() []string {
	return []string{"time", "elapsed_s", "period_ms", "pid", "state", "wait_event_type", "wait_event",
		"relation", "query_id", "blocked_by"}
}

// ActivityRow is one row of activity.csv: one client backend in one sample.
type ActivityRow struct {
	Time      time.Time // the sample's instant
	Elapsed   float64   // seconds from the run's clock zero to Time (µs precision)
	PeriodMs  float64   // the sampler's period
	PID       uint32    // 0: the sample saw no client backend
	State     string
	Type      string // wait_event_type, or "CPU"
	Event     string // wait_event, or "CPU"
	Relation  string // the relation a Lock wait waits for; ""
	QueryID   string // "" when the server has none
	BlockedBy uint32 // the first blocking pid of a Lock wait; 0 none
}

// Wait is the row's "type:event" ("Lock:relation", "CPU" for CPU:CPU).
func (r ActivityRow) Wait() string {
	if r.Type == "CPU" && r.Event == "CPU" {
		return "CPU"
	}
	if r.Type == "" && r.Event == "" {
		return ""
	}
	return r.Type + ":" + r.Event
}

// Record is r as an activity.csv row, in ActivityHeader's order.
func (r ActivityRow) Record() []string {
	pid := func(p uint32) string { return strconv.FormatUint(uint64(p), 10) }
	return []string{FormatTime(r.Time), strconv.FormatFloat(r.Elapsed, 'f', 6, 64),
		strconv.FormatFloat(r.PeriodMs, 'f', -1, 64), pid(r.PID), r.State, r.Type, r.Event,
		r.Relation, r.QueryID, pid(r.BlockedBy)}
}

// CreateActivity creates activity.csv in the run directory dir with its header.
func CreateActivity(dir string) (*CSVWriter, error) {
	return CreateCSV(dir, ActivityFile, ActivityHeader())
}

// ReadActivity reads activity.csv of the run directory dir (a last line cut
// short by a crash is left out).
func ReadActivity(dir string) ([]ActivityRow, error) {
	pid := func(v int64) uint32 { return uint32(min(max(v, 0), 1<<32-1)) }
	return readRows(dir, ActivityFile, func(tab *Table, row []string) ActivityRow {
		return ActivityRow{
			Time:      tab.Time(row),
			Elapsed:   tab.Float(row, "elapsed_s"),
			PeriodMs:  tab.Float(row, "period_ms"),
			PID:       pid(tab.Int(row, "pid")),
			State:     tab.Str(row, "state"),
			Type:      tab.Str(row, "wait_event_type"),
			Event:     tab.Str(row, "wait_event"),
			Relation:  tab.Str(row, "relation"),
			QueryID:   tab.Str(row, "query_id"),
			BlockedBy: pid(tab.Int(row, "blocked_by")),
		}
	})
}
