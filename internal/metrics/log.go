package metrics

import (
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
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
	out    io.Writer
	baseMs int64 // BaseTime, ms since the epoch (a whole second)
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
	return &LogWriter{out: w, baseMs: baseMs}, nil
}

// Write appends iv as 3 × (scripts + 1) lines, tags "SCRIPT/response",
// "SCRIPT/service", "SCRIPT/lag" per script (names from ScriptTags) and then
// "total/…". Empty (or nil) histograms are written too, as lines with a zero
// count, so that every tag's intervals are contiguous. Times are iv.Start and
// iv.End at millisecond precision.
//
// The lines are hdrhistogram-go's HistogramLogWriter's, byte for byte
// ("Tag=T,start,length,max,payload" with "%f"); the histograms are encoded
// in parallel (up to GOMAXPROCS at once), and a total equal to the only
// script's is encoded once: the encoding (~0.7 ms a histogram) is most of
// the cost of writing an interval.
func (l *LogWriter) Write(iv *Interval, scriptNames []string) error {
	tags := ScriptTags(scriptNames, len(iv.Scripts))
	type line struct {
		tag     string
		h       *hdrhistogram.Histogram
		same    int // the index of an earlier line with equal counts, or -1
		payload []byte
		max     int64
		err     error
	}
	var lines []line
	add := func(prefix string, h *Hists) {
		for _, k := range [...]struct {
			name string
			h    *hdrhistogram.Histogram
		}{{KindResp, h.Response}, {KindService, h.Service}, {KindLag, h.Lag}} {
			hh := k.h
			if hh == nil {
				hh = NewHistogram()
			}
			lines = append(lines, line{tag: prefix + "/" + k.name, h: hh, same: -1})
		}
	}
	for i := range iv.Scripts {
		add(tags[i], &iv.Scripts[i])
	}
	add(TagTotal, &iv.Total)
	if len(iv.Scripts) == 1 {
		for k := 3; k < 6; k++ {
			if lines[k].h.Equals(lines[k-3].h) {
				lines[k].same = k - 3
			}
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range lines {
		if lines[i].same >= 0 {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			lines[i].payload, lines[i].max, lines[i].err = encodeV2(lines[i].h)
		})
	}
	wg.Wait()
	start := (float64(iv.Start.UnixMilli()) - float64(l.baseMs)) / 1000.0
	end := (float64(iv.End.UnixMilli()) - float64(l.baseMs)) / 1000.0
	var buf []byte
	for i := range lines {
		ln := &lines[i]
		payload, maxV, err := ln.payload, ln.max, ln.err
		if ln.same >= 0 {
			payload, maxV, err = lines[ln.same].payload, lines[ln.same].max, lines[ln.same].err
		}
		if err == nil && badTag(ln.tag) {
			err = fmt.Errorf("tag string cannot contain commas, spaces, or line breaks. used tag: %s", ln.tag)
		}
		if err == nil {
			// hdrhistogram-go's "%s%f,%f,%f,%s\n" (Tag=…, start, length,
			// max / MsToNsRatio, payload).
			buf = fmt.Appendf(buf[:0], "Tag=%s,%f,%f,%f,%s\n", ln.tag, start, end-start,
				float64(maxV)/hdrhistogram.MsToNsRatio, payload)
			_, err = l.out.Write(buf)
		}
		if err != nil {
			return fmt.Errorf("write interval log line %s: %w", ln.tag, err)
		}
	}
	return nil
}

// badTag is hdrhistogram-go's refusal of a tag: a comma, space or line
// break with a character other than a newline on either side (its regexp
// ".[, \r\n].").
func badTag(tag string) bool {
	for k := 1; k+1 < len(tag); k++ {
		switch tag[k] {
		case ',', ' ', '\r', '\n':
			if tag[k-1] != '\n' && tag[k+1] != '\n' {
				return true
			}
		}
	}
	return false
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
