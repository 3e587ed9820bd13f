package k8s

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (slash paths → contents) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree reads every file under dir, checking the modes.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			if fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: mode %v, want 0700", p, fi.Mode().Perm())
			}
			return nil
		}
		if fi.Mode().Perm() != 0o600 || !fi.Mode().IsRegular() {
			t.Errorf("%s: mode %v, want a regular 0600 file", p, fi.Mode())
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func runFiles(seg int) map[string]string {
	rnd := rand.New(rand.NewPCG(uint64(seg), 1))
	noise := make([]byte, 20000) // incompressible: several data lines
	for i := range noise {
		noise[i] = byte(rnd.Uint32())
	}
	return map[string]string{
		"run.json":            fmt.Sprintf(`{"segment":{"index":%d}}`, seg),
		"timeline.csv":        "elapsed_s,tps\n1,100\n",
		"latency.hlog":        string(noise),
		"txlog/pgtrial_log.1": "0 1 2\n",
		"empty":               "",
	}
}

// noisyLog is a kubectl logs --prefix output of pods: the streams of segs'
// directories, their lines interleaved with each other's and with the
// run's own messages.
func noisyLog(t *testing.T, count int, dirs map[int]string) string {
	t.Helper()
	var streams [][]string
	for seg, dir := range dirs {
		var b bytes.Buffer
		if err := StreamDir(&b, seg, count, dir); err != nil {
			t.Fatal(err)
		}
		streams = append(streams, strings.SplitAfter(b.String(), "\n"))
	}
	var out strings.Builder
	for k := 0; ; k++ {
		more := false
		for s, lines := range streams {
			if k < len(lines) && lines[k] != "" {
				more = true
				fmt.Fprintf(&out, "[pod/pgtrial-a-%d-x7k2p/pgtrial] pgtrial: 10:00:%02d  tps 1000  p99 3.1 ms\n", s, k%60)
				fmt.Fprintf(&out, "[pod/pgtrial-a-%d-x7k2p/pgtrial] %s", s, lines[k])
			}
		}
		if !more {
			return out.String()
		}
	}
}

// TestStreamRoundTrip: run directories → the pods' streams in one noisy
// log → Reader → Extract → the same files, 0600 and 0700.
func TestStreamRoundTrip(t *testing.T) {
	base := t.TempDir()
	dirs := map[int]string{}
	for seg := range 3 {
		dirs[seg] = filepath.Join(base, fmt.Sprintf("src-%d", seg))
		writeTree(t, dirs[seg], runFiles(seg))
	}
	log := noisyLog(t, 3, dirs)
	if !strings.Contains(log, "pgtrial-results data 0/3 2 ") {
		t.Fatalf("the stream has one data line; the test wants several:\n%.500s", log)
	}
	r := NewReader()
	// Two log files: segment 2 alone in the second.
	var first, second strings.Builder
	for _, l := range strings.SplitAfter(log, "\n") {
		if strings.Contains(l, " 2/3 ") {
			second.WriteString(l)
		} else {
			first.WriteString(l)
		}
	}
	if err := r.Read("a.log", strings.NewReader(first.String())); err != nil {
		t.Fatal(err)
	}
	if err := r.Read("b.log", strings.NewReader(second.String())); err != nil {
		t.Fatal(err)
	}
	segs, err := r.Segments()
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 3 {
		t.Fatalf("%d segments", len(segs))
	}
	for k, s := range segs {
		if s.Index != k || s.Count != 3 {
			t.Errorf("segment %d is %d/%d", k, s.Index, s.Count)
		}
		out := filepath.Join(base, "out", fmt.Sprintf("%03d", k))
		if err := Extract(s, out); err != nil {
			t.Fatal(err)
		}
		got, want := readTree(t, out), runFiles(k)
		if len(got) != len(want) {
			t.Errorf("segment %d: %d files, want %d: %v", k, len(got), len(want), got)
		}
		for n, body := range want {
			if got[n] != body {
				t.Errorf("segment %d: %s differs (%d bytes, want %d)", k, n, len(got[n]), len(body))
			}
		}
		if err := Extract(s, out); err == nil || !strings.Contains(err.Error(), "exists already") {
			t.Errorf("extract into an existing directory: %v", err)
		}
	}
}

func TestStreamRefusals(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	writeTree(t, src, runFiles(0))
	var b bytes.Buffer
	if err := StreamDir(&b, 0, 2, src); err != nil {
		t.Fatal(err)
	}
	stream := b.String()
	var one bytes.Buffer
	if err := StreamDir(&one, 1, 2, src); err != nil {
		t.Fatal(err)
	}
	read := func(logs ...string) error {
		r := NewReader()
		for k, l := range logs {
			if err := r.Read(fmt.Sprintf("log%d", k), strings.NewReader(l)); err != nil {
				return err
			}
		}
		_, err := r.Segments()
		return err
	}
	if err := read(stream, one.String()); err != nil {
		t.Fatalf("the untouched streams: %v", err)
	}
	// A character of the payload changed: valid base64, another checksum.
	i := strings.Index(stream, "data 0/2 1 ") + len("data 0/2 1 ") + 100
	c := byte('A')
	if stream[i] == 'A' {
		c = 'B'
	}
	altered := stream[:i] + string(c) + stream[i+1:]
	lines := strings.Split(stream, "\n")
	for _, tc := range []struct {
		name string
		logs []string
		want string
	}{
		{"checksum", []string{altered, one.String()}, "checksum mismatch"},
		{"missing segment", []string{stream}, "segments 1 of 2 are missing"},
		{"twice", []string{stream, stream}, "begins a second time"},
		{"cut short", []string{strings.Join(lines[:len(lines)-2], "\n"), one.String()}, "no end line"},
		{"no begin", []string{strings.Join(lines[1:], "\n"), one.String()}, "before its begin line"},
		{"lost line", []string{strings.Join(append([]string{lines[0]}, lines[2:]...), "\n"), one.String()}, "data lines"},
		{"nothing", []string{"just noise\n"}, "no \"pgtrial-results\" stream"},
	} {
		if err := read(tc.logs...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// segmentOf makes a Segment of a hand-made tar (a stream's payload).
func segmentOf(t *testing.T, entries []tar.Header) Segment {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		body := ""
		if h.Typeflag == tar.TypeReg {
			body = "x"
			h.Size = 1
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if body != "" {
			if _, err := tw.Write([]byte(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return Segment{Index: 0, Count: 1, Source: "test", Payload: b.Bytes()}
}

// TestExtractTraversal: names that leave the directory, links and devices
// are refused, and nothing is written outside it.
func TestExtractTraversal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []tar.Header
	}{
		{"dotdot", []tar.Header{{Typeflag: tar.TypeReg, Name: "../escaped", Mode: 0o600}}},
		{"dotdot inside", []tar.Header{{Typeflag: tar.TypeReg, Name: "a/../../escaped", Mode: 0o600}}},
		{"absolute", []tar.Header{{Typeflag: tar.TypeReg, Name: "/tmp/escaped", Mode: 0o600}}},
		{"symlink", []tar.Header{{Typeflag: tar.TypeSymlink, Name: "link", Linkname: ".."}, {Typeflag: tar.TypeReg, Name: "link/escaped"}}},
		{"hard link", []tar.Header{{Typeflag: tar.TypeLink, Name: "escaped", Linkname: "/etc/passwd"}}},
		{"device", []tar.Header{{Typeflag: tar.TypeChar, Name: "null"}}},
		{"twice", []tar.Header{{Typeflag: tar.TypeReg, Name: "run.json"}, {Typeflag: tar.TypeReg, Name: "run.json"}}},
	} {
		base := t.TempDir()
		out := filepath.Join(base, "a", "b")
		err := Extract(segmentOf(t, tc.entries), out)
		if err == nil {
			t.Errorf("%s: extracted", tc.name)
		}
		for _, p := range []string{filepath.Join(base, "escaped"), filepath.Join(base, "a", "escaped"), "/tmp/escaped"} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s: %s was written", tc.name, p)
			}
		}
	}
}

// TestStreamFormat pins the begin and end lines and the checksum: the
// sha256 of the base64-decoded payload.
func TestStreamFormat(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]string{"run.json": "{}"})
	var b bytes.Buffer
	if err := StreamDir(&b, 2, 5, src); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "pgtrial-results begin 2/5 tar.gz+base64" || len(lines) != 3 {
		t.Fatalf("stream:\n%s", b.String())
	}
	data, err := base64.StdEncoding.DecodeString(strings.Fields(lines[1])[4])
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if want := fmt.Sprintf("pgtrial-results end 2/5 lines=1 bytes=%d sha256=%s", len(data), hex.EncodeToString(sum[:])); lines[2] != want {
		t.Errorf("end line %q, want %q", lines[2], want)
	}
}

// FuzzReader: any log is read without a panic; what is accepted extracts
// or fails with an error.
func FuzzReader(f *testing.F) {
	src := f.TempDir()
	if err := os.WriteFile(filepath.Join(src, "run.json"), []byte("{}"), 0o600); err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := StreamDir(&b, 0, 1, src); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	f.Add("pgtrial-results begin 0/1 tar.gz+base64\npgtrial-results data 0/1 1 AAAA\npgtrial-results end 0/1 lines=1 bytes=3 sha256=" + strings.Repeat("0", 64) + "\n")
	f.Add("x pgtrial-results data 5/2 1\npgtrial-results end 0/1 lines=-1")
	f.Fuzz(func(t *testing.T, log string) {
		r := NewReader()
		if r.Read("fuzz", strings.NewReader(log)) != nil {
			return
		}
		segs, err := r.Segments()
		if err != nil {
			return
		}
		for _, s := range segs {
			_ = Extract(s, filepath.Join(t.TempDir(), "out"))
		}
	})
}
