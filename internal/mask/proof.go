package mask

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// MinProofLen is the shortest original the proof searches for, in bytes: a shorter one
// ("NY", "123") can be in a dump by chance (in another column, in the masked hex), so
// finding it proves nothing. The prefix filter below needs 8 bytes too.
const MinProofLen = 8

// prove dumps the masked tables with pg_dump into a private temporary directory,
// searches the dump for every sampled original (as it is, and as COPY writes it with
// its backslash escapes), counts the ones found per column, and removes the dump.
func prove(ctx context.Context, connString, pgDump string, cols []column, samples [][]string, res *Result) error {
	dir, err := os.MkdirTemp("", "pgtrial-mask-")
	if err != nil {
		return fmt.Errorf("mask: proof: temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "dump.sql")
	if err := runPgDump(ctx, pgDump, connString, cols, file); err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("mask: proof: open the dump: %w", err)
	}
	defer f.Close()

	var fd finder
	for i, s := range samples {
		for _, v := range s {
			if len(v) < MinProofLen {
				res.Columns[i].Short++
				continue
			}
			fd.add(v, i)
			if e := copyEscape(v); e != v {
				fd.add(e, i)
			}
		}
	}
	found, n, err := fd.scan(f)
	if err != nil {
		return fmt.Errorf("mask: proof: read the dump: %w", err)
	}
	res.DumpBytes = n
	for _, col := range found {
		res.Columns[col].Found++
	}
	return nil
}

// copyEscape is v as COPY's text format writes it (copyto.c, CopyAttributeOutText):
// backslash and the control characters \b \f \n \r \t \v as backslash sequences.
func copyEscape(v string) string {
	if !strings.ContainsAny(v, "\\\b\f\n\r\t\v") {
		return v
	}
	r := strings.NewReplacer(`\`, `\\`, "\b", `\b`, "\f", `\f`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "\v", `\v`)
	return r.Replace(v)
}

// finder finds which of many strings (each ≥ 8 bytes) occur in a stream, in one pass:
// at every offset the next 8 bytes, as a uint64, are tested against a bit set of the
// patterns' first 8 bytes (hashed to filterBits bits), and only on a hit against the
// patterns that start so. Cost ≈ 1 multiply and 1 bit test per byte of the stream.
type finder struct {
	byPrefix map[uint64][]pattern
	filter   []uint64 // 1 << filterBits bits
	maxLen   int
}

type pattern struct {
	s   string
	col int // the column whose sample it is
}

const filterBits = 20

func filterSlot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> (64 - filterBits) }

func (f *finder) add(s string, col int) {
	if f.byPrefix == nil {
		f.byPrefix = map[uint64][]pattern{}
		f.filter = make([]uint64, 1<<filterBits/64)
	}
	k := binary.LittleEndian.Uint64([]byte(s[:8]))
	f.byPrefix[k] = append(f.byPrefix[k], pattern{s, col})
	slot := filterSlot(k)
	f.filter[slot/64] |= 1 << (slot % 64)
	f.maxLen = max(f.maxLen, len(s))
}

// scan reads r to its end and returns, for every pattern found, its column (one entry
// per distinct pattern string and column), and the bytes read.
func (f *finder) scan(r io.Reader) (found []int, n int64, err error) {
	if len(f.byPrefix) == 0 {
		n, err = io.Copy(io.Discard, r)
		return nil, n, err
	}
	seen := map[pattern]bool{}
	const chunk = 1 << 20
	buf := make([]byte, 0, chunk+f.maxLen)
	for {
		// buf holds the last maxLen-1 bytes of the previous chunk, then the new bytes.
		m, rerr := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		n += int64(m)
		eof := rerr == io.EOF || rerr == io.ErrUnexpectedEOF
		if rerr != nil && !eof {
			return nil, n, rerr
		}
		// Offsets whose match could still extend past buf wait for the next chunk, unless eof.
		end := len(buf) - 7
		if !eof {
			end = len(buf) - f.maxLen + 1
		}
		for i := 0; i < end; i++ {
			k := binary.LittleEndian.Uint64(buf[i:])
			slot := filterSlot(k)
			if f.filter[slot/64]&(1<<(slot%64)) == 0 {
				continue
			}
			for _, p := range f.byPrefix[k] {
				if !seen[p] && bytes.HasPrefix(buf[i:], []byte(p.s)) {
					seen[p] = true
					found = append(found, p.col)
				}
			}
		}
		if eof {
			return found, n, nil
		}
		keep := copy(buf, buf[max(end, 0):])
		buf = buf[:keep]
	}
}

// runPgDump writes a plain-format dump of the masked tables into file. The password
// goes to pg_dump in PGPASSWORD, not on its command line (which other local users can
// read in /proc).
func runPgDump(ctx context.Context, pgDump, connString string, cols []column, file string) error {
	cs, password, err := withoutPassword(connString)
	if err != nil {
		return err
	}
	args := []string{"--no-password", "--format=plain", "--file=" + file, "--dbname=" + cs}
	done := map[string]bool{}
	for _, c := range cols {
		for _, t := range c.dump {
			if !done[t] {
				done[t] = true
				args = append(args, "--table="+t)
			}
		}
	}
	cmd := exec.CommandContext(ctx, pgDump, args...)
	cmd.Env = os.Environ()
	if password != "" {
		cmd.Env = append(cmd.Env, "PGPASSWORD="+password)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + " …"
		}
		return fmt.Errorf("mask: proof: %s failed (%v): %s; the columns are masked, but not proven: run again with --prove 0 to skip the proof, or fix pg_dump and dump the tables yourself", pgDump, err, msg)
	}
	return nil
}

// quotePattern quotes a name for pg_dump's -t pattern: in double quotes every
// character is literal (pattern characters too), a double quote doubled.
func quotePattern(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
