package metrics

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Tag parts of the interval log: "SCRIPT/KIND" with KIND one of these, and
// TagTotal as the SCRIPT of all scripts merged.
const (
	TagTotal    = "total"
	KindResp    = "response"
	KindService = "service"
	KindLag     = "lag"
)

// ScriptTags returns the tag prefix of each of n scripts: the script's name
// with every space, comma, '=' and control character replaced by '_' (the log
// format separates fields with commas and Java's reader also splits on
// spaces), "script1", "script2", … for a missing or empty name, and
// "_2", "_3", … (the script's 1-based index) appended when the name would
// collide with TagTotal or an earlier script's tag.
func ScriptTags(scriptNames []string, n int) []string {
	tags := make([]string, n)
	used := map[string]bool{TagTotal: true}
	for i := range tags {
		name := ""
		if i < len(scriptNames) {
			name = sanitizeTag(scriptNames[i])
		}
		if name == "" {
			name = "script" + strconv.Itoa(i+1)
		}
		for used[name] {
			name += "_" + strconv.Itoa(i+1)
		}
		used[name] = true
		tags[i] = name
	}
	return tags
}

func sanitizeTag(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ',' || r == '=' || unicode.IsSpace(r) || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, s)
}

// LogWriter writes Intervals to an HdrHistogram interval log (see the package
// comment for the format).
type LogWriter struct {
	w *hdrhistogram.HistogramLogWriter
}

// NewLogWriter writes the log header to w: format version, StartTime (start,
// to the millisecond), BaseTime (start truncated to the second; timestamps
// are relative to it), a comment giving the units, and the legend.
func NewLogWriter(w io.Writer, start time.Time) (*LogWriter, error) {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	// hdrhistogram-go writes BaseTime in whole seconds; a whole-second base
	// makes the written header and the relative timestamps agree exactly.
	baseMs := start.Unix() * 1000
	lw.SetBaseTime(baseMs)
	steps := []func() error{
		lw.OutputLogFormatVersion,
		// hdrhistogram-go's OutputStartTime drops the milliseconds; write
		// the line as Java's writer does, with 3 decimals (its reader and
		// Java's parse both).
		func() error {
			ms := start.UnixMilli()
			return lw.OutputComment(fmt.Sprintf("[StartTime: %d.%03d (seconds since epoch), %s]",
				ms/1000, ms%1000, time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")))
		},
		func() error { return lw.OutputBaseTime(baseMs) },
		func() error {
			return lw.OutputComment("[pgtrial: values in microseconds; Interval_Max = max µs / 1e6, i.e. in seconds]")
		},
		lw.OutputLegend,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("write interval log header: %w", err)
		}
	}
	return &LogWriter{w: lw}, nil
}

// Write appends iv as 3 × (scripts + 1) lines, tags "SCRIPT/response",
// "SCRIPT/service", "SCRIPT/lag" per script (names from ScriptTags) and then
// "total/…". Empty (or nil) histograms are written too, as lines with a zero
// count, so that every tag's intervals are contiguous. Times are iv.Start and
// iv.End at millisecond precision.
func (l *LogWriter) Write(iv *Interval, scriptNames []string) error {
	tags := ScriptTags(scriptNames, len(iv.Scripts))
	for i := range iv.Scripts {
		if err := l.writeHists(iv, tags[i], &iv.Scripts[i]); err != nil {
			return err
		}
	}
	return l.writeHists(iv, TagTotal, &iv.Total)
}

func (l *LogWriter) writeHists(iv *Interval, prefix string, h *Hists) error {
	kinds := [...]struct {
		name string
		h    *hdrhistogram.Histogram
	}{{KindResp, h.Response}, {KindService, h.Service}, {KindLag, h.Lag}}
	for _, k := range kinds {
		if err := l.writeHist(iv, prefix+"/"+k.name, k.h); err != nil {
			return err
		}
	}
	return nil
}

func (l *LogWriter) writeHist(iv *Interval, tag string, h *hdrhistogram.Histogram) error {
	if h == nil {
		h = NewHistogram()
	}
	// The library takes the tag and times from the histogram itself; set them
	// for the write and restore the caller's afterwards.
	oldTag, oldStart, oldEnd := h.Tag(), h.StartTimeMs(), h.EndTimeMs()
	h.SetTag(tag)
	h.SetStartTimeMs(iv.Start.UnixMilli())
	h.SetEndTimeMs(iv.End.UnixMilli())
	err := l.w.OutputIntervalHistogram(h)
	h.SetTag(oldTag)
	h.SetStartTimeMs(oldStart)
	h.SetEndTimeMs(oldEnd)
	if err != nil {
		return fmt.Errorf("write interval log line %s: %w", tag, err)
	}
	return nil
}

// LogEntry is one line of an interval log.
type LogEntry struct {
	Tag        string // "" for an untagged line
	Start, End time.Time
	Hist       *hdrhistogram.Histogram
}

// ReadLog reads every interval of an HdrHistogram interval log (any writer's:
// tagged or not, absolute or relative timestamps) with hdrhistogram-go's
// reader. Times are at millisecond precision. Lines the reader does not
// recognise are skipped, as the library does; a histogram that does not
// decode is an error.
func ReadLog(r io.Reader) ([]LogEntry, error) {
	lr := hdrhistogram.NewHistogramLogReader(r)
	var entries []LogEntry
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return entries, fmt.Errorf("read interval log, after %d intervals: %w", len(entries), err)
		}
		if h == nil {
			return entries, nil
		}
		entries = append(entries, LogEntry{
			Tag:   h.Tag(),
			Start: time.UnixMilli(h.StartTimeMs()),
			End:   time.UnixMilli(h.EndTimeMs()),
			Hist:  h,
		})
	}
}

// SplitTag splits a tag "SCRIPT/KIND" at its last '/' (a script name may
// contain '/'); ok is false for a tag without one.
func SplitTag(tag string) (script, kind string, ok bool) {
	i := strings.LastIndexByte(tag, '/')
	if i < 0 {
		return "", "", false
	}
	return tag[:i], tag[i+1:], true
}
