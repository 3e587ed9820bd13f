package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The CSV files of a run directory (timeline.csv and the collectors'
// waits.csv, statements.csv, server.csv, os.csv) share one shape: a header
// row, then one row per line; "time" is the end of the row's interval
// (FormatTime) and "elapsed_s" its seconds from the run's clock zero
// (Run.ClockZero, 3 decimals). Readers find columns by name, so a file with
// more (later) or fewer (older) columns stays readable, and leave out a
// last line cut short by a crash.

// FormatTime is a row's "time": RFC 3339 with milliseconds, in UTC.
func FormatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// FormatElapsed is a row's "elapsed_s": seconds from zero to t, 3 decimals.
func FormatElapsed(zero, t time.Time) string {
	return strconv.FormatFloat(t.Sub(zero).Seconds(), 'f', 3, 64)
}

// CSVWriter writes one CSV file of a run directory row by row; Flush hands
// the buffered rows to the operating system (an interrupted run keeps every
// flushed row), Close also fsyncs.
type CSVWriter struct {
	f      *os.File
	w      *csv.Writer
	fields int // columns of the header
}

// CreateCSV creates dir/name (FileMode) with the header row, flushed. It refuses an
// existing file (a run directory is written once).
func CreateCSV(dir, name string, header []string) (*CSVWriter, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	c := &CSVWriter{f: f, w: csv.NewWriter(f), fields: len(header)}
	if err := c.Write(header); err != nil {
		f.Close()
		return nil, err
	}
	if err := c.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

// Write appends a row; it must have as many fields as the header.
func (c *CSVWriter) Write(row []string) error {
	if len(row) != c.fields {
		return fmt.Errorf("write %s: a row of %d fields under a header of %d (a writer out of step with the format)", c.f.Name(), len(row), c.fields)
	}
	if err := c.w.Write(row); err != nil {
		return fmt.Errorf("write %s: %w", c.f.Name(), err)
	}
	return nil
}

// Flush hands the buffered rows to the operating system.
func (c *CSVWriter) Flush() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return fmt.Errorf("write %s: %w", c.f.Name(), err)
	}
	return nil
}

// Close flushes, fsyncs and closes the file.
func (c *CSVWriter) Close() error {
	errs := []error{c.Flush()}
	if err := c.f.Sync(); err != nil {
		errs = append(errs, fmt.Errorf("sync %s: %w", c.f.Name(), err))
	}
	if err := c.f.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close %s: %w", c.f.Name(), err))
	}
	return errors.Join(errs...)
}

// Table is a CSV file of a run directory read back: its columns by name and
// its complete rows.
type Table struct {
	Cols map[string]int // header name → index
	Rows [][]string     // rows with as many fields as the header
}

// ReadTable reads dir/name. A last line cut short by a crash (no final
// newline, or fewer fields than the header) is left out; an empty file is
// a table without columns.
func ReadTable(dir, name string) (*Table, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	t := &Table{Cols: map[string]int{}}
	if len(recs) == 0 {
		return t, nil
	}
	for i, h := range recs[0] {
		t.Cols[h] = i
	}
	for _, rec := range recs[1:] {
		if len(rec) == len(recs[0]) {
			t.Rows = append(t.Rows, rec)
		}
	}
	return t, nil
}

// readRows reads the CSV file name of the run directory dir (as ReadTable)
// and converts each of its rows with row.
func readRows[T any](dir, name string, row func(t *Table, r []string) T) ([]T, error) {
	t, err := ReadTable(dir, name)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(t.Rows))
	for _, r := range t.Rows {
		out = append(out, row(t, r))
	}
	return out, nil
}

// Str is row's value of column name ("" when the file has no such column:
// files written by an older pgtrial stay readable).
func (t *Table) Str(row []string, name string) string {
	i, ok := t.Cols[name]
	if !ok {
		return ""
	}
	return row[i]
}

// Int is row's integer in column name (0 when absent or empty).
func (t *Table) Int(row []string, name string) int64 {
	v, _ := strconv.ParseInt(t.Str(row, name), 10, 64)
	return v
}

// Float is row's number in column name (0 when absent or empty).
func (t *Table) Float(row []string, name string) float64 {
	v, _ := strconv.ParseFloat(t.Str(row, name), 64)
	return v
}

// Time is row's "time" column (zero when absent or not a time).
func (t *Table) Time(row []string) time.Time {
	v, _ := time.Parse(time.RFC3339Nano, t.Str(row, "time"))
	return v
}
