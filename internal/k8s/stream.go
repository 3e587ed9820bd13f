package k8s

// stream.go: a run directory in a pod's log. Every line of the stream
// carries the marker, the segment and its own number, so that it is found
// among the other lines of a log (the run's messages on stderr, which
// kubectl logs mixes in; kubectl's --prefix and --timestamps before it) and
// the segments of several pods can interleave:
//
//	pgtrial-results begin 3/4 tar.gz+base64
//	pgtrial-results data 3/4 1 H4sIAAAAAAAA/+y9B3gcR…
//	pgtrial-results data 3/4 2 …
//	pgtrial-results end 3/4 lines=2 bytes=123456 sha256=9f86d0…
//
// The payload is a gzip-compressed tar of the run directory (regular files
// and directories, names relative to it), base64 in lines of LineBytes
// encoded characters; bytes and sha256 are the compressed tar's.

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Marker starts every line of the stream (after whatever kubectl puts
// before it).
const Marker = "pgtrial-results "

// Format names the payload's encoding on the begin line.
const Format = "tar.gz+base64"

// LineBytes is the payload's base64 characters per line (3 KiB of tar):
// well below the 16 KiB at which a container runtime splits a log line.
const LineBytes = 4096

// StreamDir writes the run directory dir as segment index of count to w in
// the stream format. Only regular files and directories are written; a
// symbolic link or another special file in dir is refused.
func StreamDir(w io.Writer, index, count int, dir string) error {
	seg := fmt.Sprintf("%d/%d", index, count)
	lw := &lineWriter{w: bufio.NewWriter(w), prefix: Marker + "data " + seg + " "}
	sum := sha256.New()
	// The compressed tar, counted and summed, in base64 into lines.
	b64 := base64.NewEncoder(base64.StdEncoding, lw)
	counted := &countWriter{w: io.MultiWriter(b64, sum)}
	if _, err := fmt.Fprintf(lw.w, "%sbegin %s %s\n", Marker, seg, Format); err != nil {
		return err
	}
	gz := gzip.NewWriter(counted)
	if err := writeTar(gz, dir); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	if err := b64.Close(); err != nil {
		return err
	}
	if err := lw.flushLine(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(lw.w, "%send %s lines=%d bytes=%d sha256=%s\n", Marker, seg, lw.lines, counted.n, hex.EncodeToString(sum.Sum(nil))); err != nil {
		return err
	}
	return lw.w.Flush()
}

// writeTar writes dir's tree to w as a tar, in name order.
func writeTar(w io.Writer, dir string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		name := filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o700, ModTime: info.ModTime()})
		case !info.Mode().IsRegular():
			return fmt.Errorf("stream the run directory %s: %s is not a regular file (%s)", dir, rel, info.Mode().Type())
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o600, Size: info.Size(), ModTime: info.ModTime()}); err != nil {
			return err
		}
		if _, err := io.CopyN(tw, f, info.Size()); err != nil {
			return fmt.Errorf("stream %s: %w (did it change during the stream?)", path, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// lineWriter cuts base64 text into numbered lines of LineBytes.
type lineWriter struct {
	w      *bufio.Writer
	prefix string
	cur    []byte
	lines  int
}

func (l *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(LineBytes-len(l.cur), len(p))
		l.cur = append(l.cur, p[:k]...)
		p = p[k:]
		if len(l.cur) == LineBytes {
			if err := l.flushLine(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (l *lineWriter) flushLine() error {
	if len(l.cur) == 0 {
		return nil
	}
	l.lines++
	_, err := fmt.Fprintf(l.w, "%s%d %s\n", l.prefix, l.lines, l.cur)
	l.cur = l.cur[:0]
	return err
}

// Segment is one segment's stream as read from logs.
type Segment struct {
	Index, Count int
	Source       string // the log file it was read from
	Payload      []byte // the compressed tar, checked against the end line
}

// Limits of what a reader accepts: a log is read line by line (a line of
// at most MaxLine bytes), a segment's payload and its extracted files are
// bounded, so that a wrong file cannot exhaust memory or disk.
const (
	MaxLine      = 1 << 20
	MaxPayload   = 4 << 30  // compressed bytes of one segment held in memory
	MaxExtracted = 64 << 30 // bytes of files extracted from one segment
	MaxEntries   = 1 << 20  // files and directories of one segment
)

// partial is a segment while its lines are read.
type partial struct {
	index, count int
	source       string
	chunks       map[int]string
	ended        bool
	lines        int
	bytes        int64
	sum          string
	size         int64
}

// Reader gathers the segments' streams from any number of logs.
type Reader struct {
	segs map[int]*partial
}

// NewReader returns an empty Reader.
func NewReader() *Reader { return &Reader{segs: map[int]*partial{}} }

// Read reads the stream lines of one log named source; other lines are
// skipped. A segment begun twice (two pods of one index, or the same log
// given twice) is refused.
func (r *Reader) Read(source string, log io.Reader) error {
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		i := strings.Index(line, Marker)
		if i < 0 {
			continue
		}
		if err := r.line(source, strings.TrimRight(line[i+len(Marker):], "\r")); err != nil {
			return fmt.Errorf("%s:%d: %w", source, lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", source, err)
	}
	return nil
}

func (r *Reader) line(source, s string) error {
	f := strings.Fields(s)
	if len(f) < 2 {
		return fmt.Errorf("a %q line without its segment", strings.TrimSpace(Marker))
	}
	index, count, err := parseSeg(f[1])
	if err != nil {
		return err
	}
	p := r.segs[index]
	switch f[0] {
	case "begin":
		if p != nil {
			return fmt.Errorf("segment %d/%d begins a second time (first in %s): two pods of one index, or one log given twice; give each pod's log once", index, count, p.source)
		}
		if len(f) < 3 || f[2] != Format {
			return fmt.Errorf("segment %d/%d: unknown stream format %q (this pgtrial reads %s; use the pgtrial of the image)", index, count, strings.Join(f[2:], " "), Format)
		}
		r.segs[index] = &partial{index: index, count: count, source: source, chunks: map[int]string{}}
		return nil
	case "data", "end":
	default:
		return fmt.Errorf("unknown stream line %q", f[0])
	}
	if p == nil {
		return fmt.Errorf("segment %d/%d: a %s line before its begin line (is the log cut at its start? kubectl logs -l needs --tail=-1)", index, count, f[0])
	}
	if p.count != count {
		return fmt.Errorf("segment %d: of %d segments here, of %d in its begin line", index, count, p.count)
	}
	if p.ended {
		return fmt.Errorf("segment %d/%d: a line after its end line", index, count)
	}
	if f[0] == "data" {
		if len(f) != 4 {
			return fmt.Errorf("segment %d/%d: a malformed data line", index, count)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 1 || n > MaxPayload/LineBytes*4/3+1 {
			return fmt.Errorf("segment %d/%d: a data line with the number %q", index, count, f[2])
		}
		if _, dup := p.chunks[n]; dup {
			return fmt.Errorf("segment %d/%d: data line %d twice", index, count, n)
		}
		p.size += int64(len(f[3]))
		if p.size > MaxPayload/3*4 {
			return fmt.Errorf("segment %d/%d: the stream is larger than %d bytes", index, count, int64(MaxPayload))
		}
		p.chunks[n] = f[3]
		return nil
	}
	kv := map[string]string{}
	for _, w := range f[2:] {
		k, v, _ := strings.Cut(w, "=")
		kv[k] = v
	}
	lines, err1 := strconv.Atoi(kv["lines"])
	bytes, err2 := strconv.ParseInt(kv["bytes"], 10, 64)
	if err1 != nil || err2 != nil || len(kv["sha256"]) != 64 {
		return fmt.Errorf("segment %d/%d: a malformed end line", index, count)
	}
	p.ended, p.lines, p.bytes, p.sum = true, lines, bytes, kv["sha256"]
	return nil
}

func parseSeg(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > 1000 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("a stream line with the segment %q (want i/n)", s)
	}
	return i, n, nil
}

// Segments checks that every segment of one load was read completely with
// its checksum and returns them in index order. A missing segment, a
// stream cut short and a checksum mismatch are errors that say which.
func (r *Reader) Segments() ([]Segment, error) {
	if len(r.segs) == 0 {
		return nil, fmt.Errorf("no %q stream found: give the saved output of kubectl logs of the Job's pods (docs/kubernetes.md)", strings.TrimSpace(Marker))
	}
	idx := make([]int, 0, len(r.segs))
	count := 0
	for i, p := range r.segs {
		idx = append(idx, i)
		if count != 0 && p.count != count {
			return nil, fmt.Errorf("segment %d is one of %d, another one of %d: these logs are of different Jobs", i, p.count, count)
		}
		count = p.count
	}
	sort.Ints(idx)
	var missing []string
	for i := range count {
		if r.segs[i] == nil {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("segments %s of %d are missing from the logs: their pods failed or their logs were not saved (kubectl get pods -l job-name=NAME; kubectl logs of each pod)", strings.Join(missing, ", "), count)
	}
	out := make([]Segment, 0, count)
	for _, i := range idx {
		p := r.segs[i]
		payload, err := p.payload()
		if err != nil {
			return nil, fmt.Errorf("segment %d/%d (in %s): %w", p.index, p.count, p.source, err)
		}
		out = append(out, Segment{Index: p.index, Count: p.count, Source: p.source, Payload: payload})
	}
	return out, nil
}

func (p *partial) payload() ([]byte, error) {
	if !p.ended {
		return nil, errors.New("the stream has no end line: the pod's log is cut short (the pod was killed while streaming, or the log was rotated)")
	}
	if len(p.chunks) != p.lines {
		return nil, fmt.Errorf("%d of its %d data lines are in the log: some are lost", len(p.chunks), p.lines)
	}
	var b strings.Builder
	b.Grow(int(p.size))
	for n := 1; n <= p.lines; n++ {
		c, ok := p.chunks[n]
		if !ok {
			return nil, fmt.Errorf("data line %d is missing", n)
		}
		b.WriteString(c)
	}
	data, err := base64.StdEncoding.DecodeString(b.String())
	if err != nil {
		return nil, fmt.Errorf("the stream is not valid base64: %w", err)
	}
	sum := sha256.Sum256(data)
	if int64(len(data)) != p.bytes || hex.EncodeToString(sum[:]) != p.sum {
		return nil, fmt.Errorf("checksum mismatch: the stream has %d bytes with sha256 %s, its end line says %d bytes with %s; the log was altered or mixed up",
			len(data), hex.EncodeToString(sum[:]), p.bytes, p.sum)
	}
	return data, nil
}
