package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/schema"
)

// Dir is a run directory being written. Its methods are safe for concurrent
// use (the ticker writes intervals while collectors and clients add events).
type Dir struct {
	path  string
	start time.Time // the run's start (StartedAt)
	clock *Clock    // the run's clock: elapsed_s counts from its zero, the bench start

	mu       sync.Mutex
	closed   bool
	hlogFile *os.File
	hlogBuf  *bufio.Writer
	hlog     *metrics.LogWriter
	tlFile   *os.File
	timeline *timelineWriter
	events   *os.File

	schemas schema.Validator // run.json's schema, for its writes in tests (writeRun)
}

// Create makes the run directory dir (with parents; MakeDirs: DirMode, never
// through a symbolic link) and starts a run in it (files FileMode):
// run.json (written atomically), latency.hlog with its header, timeline.csv
// with its header row, and an empty events.jsonl. It refuses a directory that
// already holds a run.json, or any of the other files.
//
// Create sets run.Schema, and run.StartedAt to the current time when it is
// zero; StartedAt is the start of latency.hlog. The zero of elapsed_s is the
// run's Clock, started by the first phase event (Event).
func Create(dir string, run *Run) (*Dir, error) {
	if run == nil {
		return nil, errors.New("create run directory: no run")
	}
	if err := MakeDirs("run directory", dir); err != nil {
		return nil, err
	}
	runPath := filepath.Join(dir, RunFile)
	if _, err := os.Stat(runPath); err == nil {
		return nil, fmt.Errorf("create run directory %s: it already holds a run (%s); choose a new directory", dir, RunFile)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	run.Schema = Schema
	if run.StartedAt.IsZero() {
		run.StartedAt = time.Now()
	}

	d := &Dir{path: dir, start: run.StartedAt, clock: NewClock()}
	if !run.BenchStart.IsZero() {
		d.clock.Start(run.BenchStart)
	}
	var created []string
	fail := func(err error) (*Dir, error) {
		d.closeFiles()
		for _, p := range created {
			os.Remove(p)
		}
		return nil, fmt.Errorf("create run directory %s: %w", dir, err)
	}
	open := func(name string) (*os.File, error) {
		p := filepath.Join(dir, name)
		// O_EXCL: never append to or truncate a file of another run.
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, FileMode)
		if err != nil {
			return nil, err
		}
		created = append(created, p)
		return f, nil
	}
	var err error
	if d.hlogFile, err = open(LatencyFile); err != nil {
		return fail(err)
	}
	d.hlogBuf = bufio.NewWriterSize(d.hlogFile, 64<<10)
	if d.hlog, err = metrics.NewLogWriter(d.hlogBuf, run.StartedAt); err != nil {
		return fail(err)
	}
	if err := d.hlogBuf.Flush(); err != nil {
		return fail(err)
	}
	if d.tlFile, err = open(TimelineFile); err != nil {
		return fail(err)
	}
	if d.timeline, err = newTimelineWriter(d.tlFile); err != nil {
		return fail(err)
	}
	if d.events, err = open(EventsFile); err != nil {
		return fail(err)
	}
	// run.json last: it marks the directory as a run's.
	if err := writeRun(dir, run, &d.schemas); err != nil {
		return fail(err)
	}
	return d, nil
}

// Path is the directory.
func (d *Dir) Path() string { return d.path }

// Clock is the run's clock (the collectors wait for its zero).
func (d *Dir) Clock() *Clock { return d.clock }

// WriteInterval appends iv, an interval of phase, to latency.hlog and a row to
// timeline.csv, and flushes both to the operating system, so that an
// interrupted run keeps everything up to here.
func (d *Dir) WriteInterval(phase string, iv *metrics.Interval, scriptNames []string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("write interval to %s: %w", d.path, ErrClosed)
	}
	hlogErr := d.hlog.Write(iv, scriptNames)
	if hlogErr == nil {
		hlogErr = d.hlogBuf.Flush()
	}
	if hlogErr != nil {
		hlogErr = fmt.Errorf("write %s: %w", d.hlogFile.Name(), hlogErr)
	}
	zero, ok := d.clock.Zero()
	if !ok {
		// An interval before any phase event: the clock starts at the run's
		// start, and every file uses that zero.
		d.clock.Start(d.start)
		zero, _ = d.clock.Zero()
	}
	row := NewTimelineRow(zero, phase, iv)
	tlErr := d.timeline.write(&row)
	if tlErr != nil {
		tlErr = fmt.Errorf("write %s: %w", d.tlFile.Name(), tlErr)
	}
	return errors.Join(hlogErr, tlErr)
}

// Event kinds written by the engine and the run command (collectors add their
// own: "checkpoint", "autovacuum", …).
const (
	EventPhase     = "phase"     // a phase started; Phase is its name
	EventError     = "error"     // the first error of a class; Data["class"]
	EventInterrupt = "interrupt" // the run was interrupted; Message says why
	EventAbort     = "abort"     // the run was aborted
)

// Event is one line of events.jsonl.
type Event struct {
	Time    time.Time      `json:"time"`
	Kind    string         `json:"kind"`
	Phase   string         `json:"phase,omitempty"`
	Message string         `json:"message,omitempty"`
	Data    map[string]any `json:"data,omitempty"`
}

// Event appends e to events.jsonl as one JSON line and flushes it (a zero
// e.Time becomes the current time). The first EventPhase event starts the
// run's clock at its time (the bench start, where the first phase begins).
func (d *Dir) Event(e Event) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Kind == EventPhase {
		d.clock.Start(e.Time)
	}
	line, err := json.Marshal(&e)
	if err != nil {
		return fmt.Errorf("event %q: %w", e.Kind, err)
	}
	line = append(line, '\n')
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("event %q to %s: %w", e.Kind, d.path, ErrClosed)
	}
	if _, err := d.events.Write(line); err != nil {
		return fmt.Errorf("write %s: %w", d.events.Name(), err)
	}
	return nil
}

// Finish ends the run: it flushes, fsyncs and closes the files and then
// rewrites run.json atomically with run (its EndedAt, Summary, …), setting
// run.BenchStart to the clock's zero when it is unset. It may be called
// once; afterwards the Dir is closed. If it fails, what was written so far
// stays, including the run.json of Create when the rewrite failed.
func (d *Dir) Finish(run *Run) error {
	if run == nil {
		return fmt.Errorf("finish %s: no run", d.path)
	}
	if zero, ok := d.clock.Zero(); ok && run.BenchStart.IsZero() {
		run.BenchStart = zero
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("finish %s: %w", d.path, ErrClosed)
	}
	closeErr := d.closeFiles()
	if err := writeRun(d.path, run, &d.schemas); err != nil {
		return errors.Join(closeErr, fmt.Errorf("finish: %w", err))
	}
	if closeErr != nil {
		return fmt.Errorf("finish %s: %w", d.path, closeErr)
	}
	return nil
}

// Close closes the files without rewriting run.json (a run that could not be
// finished keeps the run.json of Create). It is idempotent and a no-op after
// Finish.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	if err := d.closeFiles(); err != nil {
		return fmt.Errorf("close %s: %w", d.path, err)
	}
	return nil
}

// closeFiles flushes, fsyncs and closes whatever is open, and marks d closed.
func (d *Dir) closeFiles() error {
	d.closed = true
	var errs []error
	if d.hlogBuf != nil {
		if err := d.hlogBuf.Flush(); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", d.hlogFile.Name(), err))
		}
	}
	if d.timeline != nil {
		if err := d.timeline.flush(); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", d.tlFile.Name(), err))
		}
	}
	for _, f := range []*os.File{d.hlogFile, d.tlFile, d.events} {
		if f == nil {
			continue
		}
		if err := f.Sync(); err != nil {
			errs = append(errs, fmt.Errorf("sync %s: %w", f.Name(), err))
		}
		if err := f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", f.Name(), err))
		}
	}
	d.hlogBuf, d.timeline = nil, nil
	d.hlogFile, d.tlFile, d.events = nil, nil, nil
	return errors.Join(errs...)
}
