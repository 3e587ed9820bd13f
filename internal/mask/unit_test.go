package mask

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// The finder finds every pattern wherever it is in the stream, across the reads'
// 1 MiB chunks too, and nothing that is not there.
func TestFinderFindsPatternsAcrossChunks(t *testing.T) {
	const size = 3<<20 + 123
	stream := bytes.Repeat([]byte("0123456789abcdef\t"), size/17+1)[:size]
	place := func(at int, s string) { copy(stream[at:], s) }
	present := map[string]int{
		"alice@example.com":       0,
		"bob.the.builder@corp.io": 1,
		"carol@straddles.example": 1,
		"dave@at-the-very-end.io": 0,
	}
	place(10, "alice@example.com")
	place(1<<20+5000, "bob.the.builder@corp.io")
	place(1<<20-7, "carol@straddles.example") // across the first chunk's end
	place(size-len("dave@at-the-very-end.io"), "dave@at-the-very-end.io")
	var f finder
	for s, col := range present {
		f.add(s, col)
	}
	f.add("erin@absent.example", 2)
	f.add("0123456789abcdef!", 2) // its prefix is everywhere, the pattern nowhere
	for _, r := range []io.Reader{bytes.NewReader(stream), iotest.HalfReader(bytes.NewReader(stream))} {
		found, n, err := f.scan(r)
		if err != nil || n != size {
			t.Fatalf("scan: %d bytes, %v", n, err)
		}
		slices.Sort(found)
		if want := []int{0, 0, 1, 1}; !slices.Equal(found, want) {
			t.Errorf("found columns %v, want %v", found, want)
		}
	}
}

func TestCopyEscape(t *testing.T) {
	if got := copyEscape("a\\b\tc\nd"); got != `a\\b\tc\nd` {
		t.Errorf("copyEscape = %q", got)
	}
	if got := copyEscape("plain@example.com"); got != "plain@example.com" {
		t.Errorf("copyEscape changed a plain value: %q", got)
	}
}

// pg_dump gets the connection string without its password (the password goes into
// its environment): a URL's and a keyword/value string's.
func TestWithoutPassword(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://bob:s3cret-pw@db1:5433/app?sslmode=require", "postgres://bob@db1:5433/app?sslmode=require"},
		{"postgres://bob@db1/app?password=s3cret-pw&sslmode=disable", "postgres://bob@db1/app?sslmode=disable"},
		{"host=db1 password='s3cret-pw' dbname=app sslmode=disable", "host=db1 dbname=app sslmode=disable"},
		{"host=db1 password = s3cret-pw user='o\\'neil'", "host=db1 user='o\\'neil'"},
	} {
		got, pw, err := withoutPassword(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got != tc.want || pw != "s3cret-pw" {
			t.Errorf("withoutPassword(%q) = %q, %q; want %q and the password", tc.in, got, pw, tc.want)
		}
	}
}

func TestReadKey(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "key")
	os.WriteFile(file, []byte("0123456789abcdef\n"), 0o600)
	if k, err := ReadKey(file, "", nil); err != nil || string(k) != "0123456789abcdef" {
		t.Errorf("ReadKey(file) = %q, %v; want the 16 bytes without the newline", k, err)
	}
	os.WriteFile(file, []byte("short-key-15-by\n"), 0o600)
	if _, err := ReadKey(file, "", nil); err == nil || !strings.Contains(err.Error(), "15 bytes") || strings.Contains(err.Error(), "short-key") {
		t.Errorf("a 15-byte key: err = %v; want a refusal that counts its bytes and does not show it", err)
	}
	env := func(string) (string, bool) { return "an-environment-key-of-32-bytes!!", true }
	if k, err := ReadKey("", "MASK_KEY", env); err != nil || len(k) != 32 {
		t.Errorf("ReadKey(env) = %d bytes, %v", len(k), err)
	}
	unset := func(string) (string, bool) { return "", false }
	if _, err := ReadKey("", "MASK_KEY", unset); err == nil || !strings.Contains(err.Error(), "MASK_KEY") {
		t.Errorf("unset variable: err = %v", err)
	}
	if _, err := ReadKey("", "", nil); err == nil {
		t.Error("no key: no error")
	}
}

// FindPgDump takes the first pg_dump at least as new as the server, and says what
// it tried when none is.
func TestFindPgDump(t *testing.T) {
	dir := t.TempDir()
	fake := func(name, version string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("#!/bin/sh\necho 'pg_dump (PostgreSQL) "+version+"'\n"), 0o755)
		return p
	}
	old, recent := fake("pg_dump14", "14.9"), fake("pg_dump17", "17.2 (Debian 17.2-1)")
	if p, err := FindPgDump(15, recent, os.Getenv); err != nil || p != recent {
		t.Errorf("explicit 17 for a 15 server: %q, %v", p, err)
	}
	_, err := FindPgDump(15, old, os.Getenv)
	if err == nil || !strings.Contains(err.Error(), "version 14, older than the server's 15") {
		t.Errorf("explicit 14 for a 15 server: err = %v", err)
	}
	if m, err := pgDumpMajor(fake("pg_dump96", "9.6.24")); err != nil || m != 906 {
		t.Errorf("9.6.24: major %d, %v; want 906", m, err)
	}
}
