package results

import (
	"strconv"
	"time"
)

// slow.csv: the slowest transactions of each interval (by response time),
// at most SlowPerInterval of them, so its size is bounded by the run's
// length, not its rate (internal/trial writes it from the engine's
// records; internal/explain joins it to activity.csv to say why the tail
// was slow).
//
//	time, elapsed_s     the end of the interval the transaction ended in
//	script              the script's name
//	outcome             committed, or a failure class, or unfinished (cut at the window's end)
//	client              the client's number (0-based)
//	pid                 the backend pid of the client's connection; 0 unknown
//	intended_s          the intended start (the schedule's; the actual start in the closed model),
//	start_s, end_s      the actual start and the end, all three s from the clock zero, µs precision
//	response_ms         end − intended start
//	service_ms          end − actual start
//	lag_ms              actual − intended start
//	tries               1 unless retried
const SlowFile = "slow.csv"

// SlowPerInterval is how many of each interval's slowest transactions
// slow.csv keeps by default.
const SlowPerInterval = 50

// SlowHeader is slow.csv's header.
func SlowHeader() []string {
	return []string{"time", "elapsed_s", "script", "outcome", "client", "pid",
		"intended_s", "start_s", "end_s", "response_ms", "service_ms", "lag_ms", "tries"}
}

// SlowRow is one row of slow.csv: one slow transaction.
type SlowRow struct {
	Time    time.Time // end of the interval it ended in
	Elapsed float64   // seconds from the run's clock zero to Time
	Script  string
	Outcome string
	Client  int
	PID     uint32
	// Seconds from the run's clock zero (µs precision).
	IntendedS, StartS, EndS float64
	ResponseMs, ServiceMs   float64
	LagMs                   float64
	Tries                   int
}

// Record is r as a slow.csv row, in SlowHeader's order.
func (r SlowRow) Record() []string {
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	return []string{FormatTime(r.Time), f(r.Elapsed, 3), r.Script, r.Outcome,
		strconv.Itoa(r.Client), strconv.FormatUint(uint64(r.PID), 10),
		f(r.IntendedS, 6), f(r.StartS, 6), f(r.EndS, 6),
		f(r.ResponseMs, 3), f(r.ServiceMs, 3), f(r.LagMs, 3), strconv.Itoa(r.Tries)}
}

// CreateSlow creates slow.csv in the run directory dir with its header.
func CreateSlow(dir string) (*CSVWriter, error) { return CreateCSV(dir, SlowFile, SlowHeader()) }

// ReadSlow reads slow.csv of the run directory dir (a last line cut short
// by a crash is left out).
func ReadSlow(dir string) ([]SlowRow, error) {
	return readRows(dir, SlowFile, func(tab *Table, row []string) SlowRow {
		return SlowRow{
			Time:       tab.Time(row),
			Elapsed:    tab.Float(row, "elapsed_s"),
			Script:     tab.Str(row, "script"),
			Outcome:    tab.Str(row, "outcome"),
			Client:     int(tab.Int(row, "client")),
			PID:        uint32(min(max(tab.Int(row, "pid"), 0), 1<<32-1)),
			IntendedS:  tab.Float(row, "intended_s"),
			StartS:     tab.Float(row, "start_s"),
			EndS:       tab.Float(row, "end_s"),
			ResponseMs: tab.Float(row, "response_ms"),
			ServiceMs:  tab.Float(row, "service_ms"),
			LagMs:      tab.Float(row, "lag_ms"),
			Tries:      int(tab.Int(row, "tries")),
		}
	})
}
