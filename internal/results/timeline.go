package results

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// TimelineRow is one row of timeline.csv: the client-side figures of one
// interval (all scripts together).
type TimelineRow struct {
	Time      time.Time // end of the interval
	Elapsed   float64   // seconds from the run's start to Time
	Phase     string
	Started   int64   // transactions clients took: committed + failed
	Committed int64   // committed transactions
	Failed    int64   // failed transactions, all classes
	Retried   int64   // transactions with more than one try (committed or failed)
	Skipped   int64   // slots skipped as already later than the latency limit
	Dropped   int64   // slots dropped with no free client (drop policy)
	TPS       float64 // committed / interval seconds
	// Cut at the end of the window (the last interval only): slots due
	// before it that never started, transactions in flight at it.
	Unstarted, Unfinished int64

	// Response time of committed transactions, and the lower bounds of the
	// unstarted and unfinished ones, ms (µs precision).
	ResponseP50, ResponseP95, ResponseP99, ResponseMax float64
	LagP99                                             float64 // schedule lag p99, ms

	// Client sessions (metrics.SessionCounts): open at the interval's end
	// and the most open at once during it; of those open at the end, busy
	// (waiting for the server or in a transaction block) and idle
	// (sleeping, thinking, waiting for a slot): Busy + Idle = Connected.
	// Zero in files written before these columns.
	Connected, ConnectedMax, Busy, Idle int64
}

// NewTimelineRow is the row for iv, an interval of phase, in a run that
// started at runStart.
func NewTimelineRow(runStart time.Time, phase string, iv *metrics.Interval) TimelineRow {
	st := &iv.Total.Stats
	row := TimelineRow{
		Time:        iv.End,
		Elapsed:     iv.End.Sub(runStart).Seconds(),
		Phase:       phase,
		Started:     st.Count + st.Failed(),
		Committed:   st.Count,
		Failed:      st.Failed(),
		Retried:     st.Retried,
		Skipped:     st.Skipped(),
		Dropped:     st.Dropped(),
		Unstarted:   st.Unstarted(),
		Unfinished:  st.Unfinished(),
		ResponseP50: ms(metrics.Quantile(iv.Total.Response, 0.50)),
		ResponseP95: ms(metrics.Quantile(iv.Total.Response, 0.95)),
		ResponseP99: ms(metrics.Quantile(iv.Total.Response, 0.99)),
		ResponseMax: ms(metrics.Quantile(iv.Total.Response, 1)),
		LagP99:      ms(metrics.Quantile(iv.Total.Lag, 0.99)),

		Connected:    iv.Sessions.Connected,
		ConnectedMax: iv.Sessions.ConnectedMax,
		Busy:         iv.Sessions.Busy,
		Idle:         iv.Sessions.Idle,
	}
	if sec := iv.Duration().Seconds(); sec > 0 {
		row.TPS = float64(st.Count) / sec
	}
	return row
}

// ms converts µs to ms.
func ms(us int64) float64 { return float64(us) / 1000 }

// timeFormat is RFC 3339 with milliseconds, in UTC.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// column is one column of timeline.csv: its header name, how a row's value
// is written and how it is read back. Adding a column is adding an entry to
// timelineColumns; readers find columns by name, so files with more (later)
// or fewer columns stay readable.
type column struct {
	name   string
	format func(r *TimelineRow) string
	parse  func(r *TimelineRow, s string) error
}

func intColumn(name string, f func(r *TimelineRow) *int64) column {
	return column{
		name:   name,
		format: func(r *TimelineRow) string { return strconv.FormatInt(*f(r), 10) },
		parse: func(r *TimelineRow, s string) (err error) {
			*f(r), err = strconv.ParseInt(s, 10, 64)
			return err
		},
	}
}

// floatColumn writes 3 decimals: µs for ms values, ms for seconds.
func floatColumn(name string, f func(r *TimelineRow) *float64) column {
	return column{
		name:   name,
		format: func(r *TimelineRow) string { return strconv.FormatFloat(*f(r), 'f', 3, 64) },
		parse: func(r *TimelineRow, s string) (err error) {
			*f(r), err = strconv.ParseFloat(s, 64)
			return err
		},
	}
}

// timelineColumns are timeline.csv's columns, in order.
func timelineColumns() []column {
	return []column{
		{
			name:   "time",
			format: func(r *TimelineRow) string { return r.Time.UTC().Format(timeFormat) },
			parse: func(r *TimelineRow, s string) (err error) {
				r.Time, err = time.Parse(time.RFC3339Nano, s)
				return err
			},
		},
		floatColumn("elapsed_s", func(r *TimelineRow) *float64 { return &r.Elapsed }),
		{
			name:   "phase",
			format: func(r *TimelineRow) string { return r.Phase },
			parse:  func(r *TimelineRow, s string) error { r.Phase = s; return nil },
		},
		intColumn("started", func(r *TimelineRow) *int64 { return &r.Started }),
		intColumn("committed", func(r *TimelineRow) *int64 { return &r.Committed }),
		intColumn("failed", func(r *TimelineRow) *int64 { return &r.Failed }),
		intColumn("retried", func(r *TimelineRow) *int64 { return &r.Retried }),
		intColumn("skipped", func(r *TimelineRow) *int64 { return &r.Skipped }),
		intColumn("dropped", func(r *TimelineRow) *int64 { return &r.Dropped }),
		floatColumn("tps", func(r *TimelineRow) *float64 { return &r.TPS }),
		floatColumn("response_p50_ms", func(r *TimelineRow) *float64 { return &r.ResponseP50 }),
		floatColumn("response_p95_ms", func(r *TimelineRow) *float64 { return &r.ResponseP95 }),
		floatColumn("response_p99_ms", func(r *TimelineRow) *float64 { return &r.ResponseP99 }),
		floatColumn("response_max_ms", func(r *TimelineRow) *float64 { return &r.ResponseMax }),
		floatColumn("lag_p99_ms", func(r *TimelineRow) *float64 { return &r.LagP99 }),
		intColumn("unstarted", func(r *TimelineRow) *int64 { return &r.Unstarted }),
		intColumn("unfinished", func(r *TimelineRow) *int64 { return &r.Unfinished }),
		intColumn("connected", func(r *TimelineRow) *int64 { return &r.Connected }),
		intColumn("connected_max", func(r *TimelineRow) *int64 { return &r.ConnectedMax }),
		intColumn("busy", func(r *TimelineRow) *int64 { return &r.Busy }),
		intColumn("idle", func(r *TimelineRow) *int64 { return &r.Idle }),
	}
}

// timelineWriter writes timeline.csv rows.
type timelineWriter struct {
	cols   []column
	w      *csv.Writer
	record []string // reused
}

// newTimelineWriter writes the header row and flushes it.
func newTimelineWriter(w io.Writer) (*timelineWriter, error) {
	t := &timelineWriter{cols: timelineColumns(), w: csv.NewWriter(w)}
	t.record = make([]string, len(t.cols))
	for i, c := range t.cols {
		t.record[i] = c.name
	}
	if err := t.w.Write(t.record); err != nil {
		return nil, err
	}
	return t, t.flush()
}

// write appends a row and flushes it.
func (t *timelineWriter) write(r *TimelineRow) error {
	for i, c := range t.cols {
		t.record[i] = c.format(r)
	}
	if err := t.w.Write(t.record); err != nil {
		return err
	}
	return t.flush()
}

func (t *timelineWriter) flush() error {
	t.w.Flush()
	return t.w.Error()
}

// ReadTimeline reads timeline.csv of the run directory dir. Columns are found
// by name: unknown (newer) columns are ignored, missing ones stay zero. A
// last row cut short by a crash is ignored.
func ReadTimeline(dir string) ([]TimelineRow, error) {
	path := filepath.Join(dir, TimelineFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read timeline: %w", err)
	}
	r := csv.NewReader(bytes.NewReader(completeLines(data)))
	r.ReuseRecord = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("read %s: no header row", path)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	byName := map[string]int{}
	for i, name := range header {
		byName[name] = i
	}
	type bound struct {
		col   column
		index int
	}
	var cols []bound
	for _, c := range timelineColumns() {
		if i, ok := byName[c.name]; ok {
			cols = append(cols, bound{c, i})
		}
	}
	if _, ok := byName["time"]; !ok {
		return nil, fmt.Errorf("read %s: no \"time\" column; not a pgtrial timeline", path)
	}
	var rows []TimelineRow
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, fmt.Errorf("read %s: %w", path, err)
		}
		var row TimelineRow
		for _, b := range cols {
			if err := b.col.parse(&row, rec[b.index]); err != nil {
				line, _ := r.FieldPos(b.index)
				return rows, fmt.Errorf("read %s:%d: column %s: %w", path, line, b.col.name, err)
			}
		}
		rows = append(rows, row)
	}
}

// completeLines drops a last line without its newline: the part of a line
// that a crash (or a full disk) cut short.
func completeLines(data []byte) []byte {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return data
	}
	return data[:bytes.LastIndexByte(data, '\n')+1]
}
