package metrics

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Merged is the merge of one tag's intervals of an interval log (MergeLog).
type Merged struct {
	Hist      *hdrhistogram.Histogram // NewHistogram's geometry, µs
	Intervals int                     // lines merged
	From, To  time.Time               // earliest start and latest end of those lines (ms precision)
	Dropped   int64                   // values that did not fit (a line of another geometry, or a total past MaxInt64)
}

// MergeLog reads an HdrHistogram interval log as ReadLog does (the same
// lines, tags and times, hdrhistogram-go's reader's rules) and merges, per
// tag, the intervals for which want(tag, start, end) is true: the result is
// exactly what merging ReadLog's entries of those intervals into one
// NewHistogram per tag gives (same counts, hence the same percentiles and
// TotalCount), without a Histogram per line.
//
// A line whose histogram has NewHistogram's geometry (lowest 1, highest
// HistHighest, HistSigFigs digits: every line pgtrial writes) is decoded
// straight into the tag's counts (base64 → the V2 compressed header → zlib
// → ZigZag LEB128 counts, a negative one a run of zeros), with reused
// buffers; a line of another geometry is decoded by hdrhistogram.Decode and
// merged as Histogram.Merge does (values it cannot hold count in Dropped).
// A line want rejects is not decoded, so its corruption goes unnoticed.
//
// An error (a line that does not decode, a timestamp that does not parse,
// a read error) ends the reading, as it ends ReadLog's: the merges of the
// lines before it are returned with it.
func MergeLog(r io.Reader, want func(tag string, start, end time.Time) bool) (map[string]*Merged, error) {
	m := newLogMerger(want)
	err := m.run(r)
	out := make(map[string]*Merged, len(m.accs))
	for tag, a := range m.accs {
		out[tag] = a.finish(m)
	}
	if err != nil {
		return out, fmt.Errorf("read interval log, after %d intervals: %w", m.lines, err)
	}
	return out, nil
}

// logMerger is MergeLog's state: hdrhistogram-go's reader's (start and base
// time), the accumulators by tag and the buffers every line reuses.
type logMerger struct {
	want func(tag string, start, end time.Time) bool

	// The accumulators' geometry (NewHistogram's).
	lowest, highest int64
	sigFigs         int32
	countsLen       int

	accs  map[string]*mergeAcc
	names map[string]string // interned tags
	lines int               // lines read and decoded (or skipped by want)

	// hdrhistogram-go's HistogramLogReader state.
	startTimeSec, baseTimeSec           float64
	observedStartTime, observedBaseTime bool
	reStartTime, reBaseTime, reLine     *regexp.Regexp

	// Reused buffers.
	line    []byte
	decoded []byte
	payload []byte
	pairs   []bucketCount
	src     bytes.Reader
	z       io.ReadCloser
}

// bucketCount is one decoded count of a line, kept until the whole line has
// decoded (a line that fails adds nothing).
type bucketCount struct {
	idx   int
	count int64
}

// mergeAcc is one tag's accumulator: counts by index of the geometry, and
// the lines of another geometry merged into spill.
type mergeAcc struct {
	counts []int64
	total  int64
	spill  *hdrhistogram.Histogram
	m      Merged
}

func newLogMerger(want func(tag string, start, end time.Time) bool) *logMerger {
	h := NewHistogram()
	return &logMerger{
		want:      want,
		lowest:    h.LowestTrackableValue(),
		highest:   h.HighestTrackableValue(),
		sigFigs:   int32(h.SignificantFigures()),
		countsLen: len(h.Export().Counts),
		accs:      map[string]*mergeAcc{},
		names:     map[string]string{},
		// The library's expressions (log_reader.go), for the lines the fast
		// path does not take.
		reStartTime: regexp.MustCompile(`#\[StartTime: ([\d\.]*)`),
		reBaseTime:  regexp.MustCompile(`#\[BaseTime: ([\d\.]*)`),
		reLine:      regexp.MustCompile(`([\d\.]*),([\d\.]*),([\d\.]*),(.*)`),
	}
}

// run reads every line of r.
func (m *logMerger) run(r io.Reader) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var tag []byte // a "Tag=" prefix stays until a histogram line takes it, as in the library
	hasTag := false
	for {
		line, err := m.readLine(br)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			if len(line) == 0 {
				return nil
			}
		}
		done, perr := m.processLine(line, &tag, &hasTag)
		if perr != nil || done {
			return perr
		}
		if err != nil {
			return nil // the last line, without a newline
		}
	}
}

// readLine is bufio.Reader.ReadString('\n') without the string: the line
// with its '\n' (none at the end of the input), valid until the next call.
func (m *logMerger) readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	m.line = append(m.line[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = br.ReadSlice('\n')
		m.line = append(m.line, line...)
	}
	return m.line, err
}

// processLine is one pass of the library's decodeNextIntervalHistogram
// loop; done is true when the library would stop reading with no error.
func (m *logMerger) processLine(line []byte, tag *[]byte, hasTag *bool) (done bool, err error) {
	if line[0] == '#' {
		s := string(line)
		if res := m.reStartTime.FindStringSubmatch(s); len(res) > 0 {
			if m.startTimeSec, err = strconv.ParseFloat(res[1], 64); err != nil {
				return false, err
			}
			m.observedStartTime = true
			return false, nil
		}
		if res := m.reBaseTime.FindStringSubmatch(s); len(res) > 0 {
			if m.baseTimeSec, err = strconv.ParseFloat(res[1], 64); err != nil {
				return false, err
			}
			m.observedBaseTime = true
		}
		return false, nil
	}
	if bytes.HasPrefix(line, []byte("Tag=")) {
		comma := bytes.IndexByte(line, ',')
		if comma < 0 {
			return false, nil
		}
		// Copied: the line's buffer is reused by the next read.
		*tag, *hasTag = append((*tag)[:0], line[4:comma]...), true
		line = line[comma+1:]
	}
	f, ok := splitFields(line)
	if !ok {
		loc := m.reLine.FindSubmatchIndex(line)
		if loc == nil {
			return false, nil
		}
		for i := range f {
			f[i] = line[loc[2*i+2]:loc[2*i+3]]
		}
	}
	stamp, err := strconv.ParseFloat(string(f[0]), 64)
	if err != nil {
		return false, err
	}
	length, err := strconv.ParseFloat(string(f[1]), 64)
	if err != nil {
		return false, err
	}
	if !m.observedStartTime {
		m.startTimeSec, m.observedStartTime = stamp, true
	}
	if !m.observedBaseTime {
		// The library's rule: timestamps more than a year before StartTime
		// are relative to it.
		if stamp < m.startTimeSec-365*24*3600.0 {
			m.baseTimeSec = m.startTimeSec
		} else {
			m.baseTimeSec = 0
		}
		m.observedBaseTime = true
	}
	absStart := stamp + m.baseTimeSec
	absEnd := absStart + length
	if absStart < 0 {
		return false, nil
	}
	if absStart > math.MaxFloat64 {
		return true, nil
	}
	name := ""
	if *hasTag && len(*tag) > 0 {
		name = m.intern(*tag)
	}
	*tag, *hasTag = (*tag)[:0], false
	start := time.UnixMilli(int64(absStart * 1000.0))
	end := time.UnixMilli(int64(absEnd * 1000.0))
	if !m.want(name, start, end) {
		m.lines++
		return false, nil
	}
	a := m.accs[name]
	if a == nil {
		a = &mergeAcc{}
		m.accs[name] = a
	}
	if err := m.add(a, f[3]); err != nil {
		if a.m.Intervals == 0 {
			delete(m.accs, name) // as ReadLog, which has no entry for the line
		}
		return false, err
	}
	m.lines++
	a.m.Intervals++
	if a.m.From.IsZero() || start.Before(a.m.From) {
		a.m.From = start
	}
	if end.After(a.m.To) {
		a.m.To = end
	}
	return false, nil
}

// splitFields splits a line "S,L,M,PAYLOAD\n" whose first three fields are
// of digits and dots: then the library's expression matches at the line's
// start with these groups (PAYLOAD ends before the first '\n'). ok is false
// for any other line.
func splitFields(line []byte) (f [4][]byte, ok bool) {
	pos := 0
	for i := range 3 {
		j := pos
		for j < len(line) && (line[j] == '.' || line[j] >= '0' && line[j] <= '9') {
			j++
		}
		if j == len(line) || line[j] != ',' {
			return f, false
		}
		f[i] = line[pos:j]
		pos = j + 1
	}
	rest := line[pos:]
	if k := bytes.IndexByte(rest, '\n'); k >= 0 {
		rest = rest[:k]
	}
	f[3] = rest
	return f, true
}

func (m *logMerger) intern(b []byte) string {
	if s, ok := m.names[string(b)]; ok {
		return s
	}
	s := string(b)
	m.names[s] = s
	return s
}

// add decodes a line's payload (base64 of the V2 compressed encoding) into
// a's counts, with hdrhistogram.Decode's checks: a payload Decode rejects
// is an error here too, and adds nothing.
func (m *logMerger) add(a *mergeAcc, payload []byte) error {
	if n := base64.StdEncoding.DecodedLen(len(payload)); cap(m.decoded) < n {
		m.decoded = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(m.decoded[:cap(m.decoded)], payload)
	if err != nil {
		return err
	}
	decoded := m.decoded[:n]
	if len(decoded) < 8 {
		return fmt.Errorf("encoded histogram too short: got %d bytes, need at least 8", len(decoded))
	}
	if cookie := int32(binary.BigEndian.Uint32(decoded[0:4])) &^ 0xf0; cookie != hdrhistogram.V2CompressedEncodingCookieBase {
		return fmt.Errorf("encoding not supported, only V2 is supported: cookie %d", cookie)
	}
	clen := int32(binary.BigEndian.Uint32(decoded[4:8]))
	if clen < 0 || int64(clen) > int64(len(decoded)-8) {
		return fmt.Errorf("compressed length %d out of the buffer's %d bytes", clen, len(decoded)-8)
	}
	m.src.Reset(decoded[8 : 8+clen])
	if m.z == nil {
		if m.z, err = zlib.NewReader(&m.src); err != nil {
			return err
		}
	} else if err = m.z.(zlib.Resetter).Reset(&m.src, nil); err != nil {
		return err
	}
	var header [hdrhistogram.ENCODING_HEADER_SIZE]byte
	if _, err := io.ReadFull(m.z, header[:]); err != nil {
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
		return errors.New("decompressed histogram truncated")
	}
	if cookie := int32(binary.BigEndian.Uint32(header[0:4])) &^ 0xf0; cookie != hdrhistogram.V2EncodingCookieBase {
		return fmt.Errorf("encoding not supported, only V2 is supported: cookie %d", cookie)
	}
	plen := int32(binary.BigEndian.Uint32(header[4:8]))
	if plen < 0 {
		return fmt.Errorf("negative PayloadLength: %d", plen)
	}
	sig := int32(binary.BigEndian.Uint32(header[12:16]))
	lowest := int64(binary.BigEndian.Uint64(header[16:24]))
	highest := int64(binary.BigEndian.Uint64(header[24:32]))
	if sig != m.sigFigs || lowest != m.lowest || highest != m.highest {
		return m.addOther(a, payload)
	}
	if int64(plen) > int64(m.countsLen)*9 {
		return fmt.Errorf("PayloadLength %d exceeds the maximum %d for countsLen %d", plen, m.countsLen*9, m.countsLen)
	}
	// Read one byte past PayloadLength, as Decode does: trailing data is
	// detected, and reaching the end verifies the zlib checksum.
	if cap(m.payload) < int(plen)+1 {
		m.payload = make([]byte, int(plen)+1)
	}
	got, err := io.ReadFull(m.z, m.payload[:int(plen)+1])
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if got != int(plen) {
		return fmt.Errorf("PayloadLength should have the same size of the actual payload: got %d want %d", got, plen)
	}
	if err := m.z.Close(); err != nil {
		return err
	}
	if err := m.decodeCounts(m.payload[:plen]); err != nil {
		return err
	}
	if a.counts == nil {
		a.counts = make([]int64, m.countsLen)
	}
	// Histogram.Merge records bucket by bucket; a record that would take
	// the total past MaxInt64 is dropped.
	for _, p := range m.pairs {
		if p.count > math.MaxInt64-a.total {
			a.m.Dropped = addSat(a.m.Dropped, p.count)
			continue
		}
		a.counts[p.idx] += p.count
		a.total += p.count
	}
	return nil
}

// decodeCounts decodes a payload of ZigZag LEB128 counts into m.pairs (the
// non-zero ones), with fillCountsArrayFromSourceBuffer's checks.
func (m *logMerger) decodeCounts(payload []byte) error {
	m.pairs = m.pairs[:0]
	idx, total := 0, int64(0)
	for pos := 0; pos < len(payload); {
		v, n, err := zigZagDecode(payload[pos:])
		if err != nil {
			return err
		}
		pos += n
		if v < 0 {
			zeros := -v // ≤ 0 only for MinInt64
			if zeros <= 0 || zeros > int64(m.countsLen-idx) {
				return fmt.Errorf("corrupt histogram payload: zero-run of %d at index %d overflows counts array of length %d", zeros, idx, m.countsLen)
			}
			idx += int(zeros)
			continue
		}
		if idx >= m.countsLen {
			return fmt.Errorf("corrupt histogram payload: index %d overflows counts array of length %d", idx, m.countsLen)
		}
		if v > math.MaxInt64-total {
			return fmt.Errorf("corrupt histogram payload: bucket counts sum past MaxInt64 at index %d", idx)
		}
		total += v
		if v > 0 {
			m.pairs = append(m.pairs, bucketCount{idx: idx, count: v})
		}
		idx++
	}
	return nil
}

// zigZagDecode reads one ZigZag LEB128 int64 of at most 9 bytes (the 9th
// byte's 8 bits all count), as the V2 encoding writes it; n is the bytes
// read.
func zigZagDecode(buf []byte) (v int64, n int, err error) {
	var u uint64
	for i := range 9 {
		if i >= len(buf) {
			return 0, 0, fmt.Errorf("truncated compressed histogram: need at least %d bytes, got %d", i+1, len(buf))
		}
		b := buf[i]
		if i == 8 {
			u |= uint64(b) << 56
			n = 9
			break
		}
		u |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			n = i + 1
			break
		}
	}
	return int64((u >> 1) ^ -(u & 1)), n, nil
}

// addOther merges a line of another geometry as the old way did: Decode,
// then Histogram.Merge (into spill, merged into the result at the end).
func (m *logMerger) addOther(a *mergeAcc, payload []byte) error {
	h, err := hdrhistogram.Decode(payload)
	if err != nil {
		return err
	}
	if a.spill == nil {
		a.spill = NewHistogram()
	}
	a.m.Dropped = addSat(a.m.Dropped, a.spill.Merge(h))
	return nil
}

// finish is a's merge: its counts as a NewHistogram's, plus the lines of
// another geometry.
func (a *mergeAcc) finish(m *logMerger) *Merged {
	out := a.m
	if a.counts != nil {
		out.Hist = hdrhistogram.Import(&hdrhistogram.Snapshot{
			LowestTrackableValue:  m.lowest,
			HighestTrackableValue: m.highest,
			SignificantFigures:    int64(m.sigFigs),
			Counts:                a.counts,
		})
	} else {
		out.Hist = NewHistogram()
	}
	if a.spill != nil {
		out.Dropped = addSat(out.Dropped, out.Hist.Merge(a.spill))
	}
	return &out
}

// addSat is a + b for counts ≥ 0, saturating at MaxInt64.
func addSat(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}
