package results

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Merge is run.json's record of a run that `pgtrial merge` made from the
// run directories of the segments of one load (run --segment i/n): which
// they were and how their clocks were aligned. Every time of the merged
// directory is on segment 0's clock, corrected to the server's: a time t of
// segment i became t + ShiftMs (its offset against the server's clock less
// segment 0's), so that all segments' intervals, events and slow
// transactions lie on one clock, the server's as segment 0 saw it.
type Merge struct {
	Segments []MergedSegment `json:"segments"`
	// StartSpreadMs is how far apart the segments' bench starts were on
	// the server's clock (each bench start + its offset): the latest less
	// the earliest, ms. Segments started with one --start-at are within a
	// few ms.
	StartSpreadMs float64 `json:"start_spread_ms"`
	// IntervalS is the length of the intervals, s (every segment's).
	IntervalS float64 `json:"interval_s"`
	// Notes say how the merge was made and what it could not merge.
	Notes []string `json:"notes,omitempty"`
}

// MergedSegment is one segment of a merged run.
type MergedSegment struct {
	Dir   string `json:"dir"`    // the run directory as given to merge
	Index int    `json:"index"`  // segment Index of Count
	RunID string `json:"run_id"` // the run directory's name
	// StartedAt and BenchStart are the segment's, on its own clock.
	StartedAt  time.Time     `json:"started_at"`
	BenchStart time.Time     `json:"bench_start,omitzero"`
	Clock      []ClockOffset `json:"clock,omitempty"` // its readings of the server's clock
	// OffsetMs is the offset used: the mean of Clock's readings (0 without
	// any); ShiftMs = OffsetMs − segment 0's OffsetMs, added to every time
	// of the segment.
	OffsetMs float64 `json:"offset_ms"`
	ShiftMs  float64 `json:"shift_ms"`
	// Committed and Started (committed + failed) in its measured window.
	Committed   int64 `json:"committed"`
	Started     int64 `json:"started"`
	Interrupted bool  `json:"interrupted,omitempty"`
	// OSFile is where its os.csv was kept (relative to the merged
	// directory), when it had one and is not segment 0.
	OSFile string `json:"os_file,omitempty"`
}

// CopyFile copies the regular file from to the path to (which must not
// exist: O_EXCL), mode FileMode, and fsyncs it: a merged run keeps a
// segment's collector files and transaction logs as they were written. A
// symbolic link or anything but a regular file is refused.
func CopyFile(from, to string) error {
	fi, err := os.Lstat(from)
	if err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("copy %s: not a regular file (%v)", from, fi.Mode().Type())
	}
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("copy %s: %s exists already", from, to)
		}
		return fmt.Errorf("copy %s: %w", from, err)
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(to)
		return fmt.Errorf("copy %s to %s: %w", from, to, err)
	}
	return nil
}
