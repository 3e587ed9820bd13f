package localpg

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// run executes program as the cluster's OS user with a minimal environment, in dir,
// and returns its combined output. The environment drops every PG* variable of the
// caller (PGPORT, PGDATA, PGHOST … would change what pg_ctl and the server do) and sets
// LC_ALL=C so that messages are stable.
func run(ctx context.Context, u OSUser, dir, program string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = dir
	cmd.Env = childEnv(u)
	cmd.SysProcAttr = u.SysProcAttr()
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	// A server started by pg_ctl must not keep our pipes open; if something does,
	// stop waiting for it after a while instead of hanging.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	text := strings.TrimSpace(out.String())
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return text, err
	}
	return text, nil
}

func childEnv(u OSUser) []string {
	env := []string{"LC_ALL=C", "PATH=/usr/local/bin:/usr/bin:/bin"}
	if p := os.Getenv("PATH"); p != "" && !u.Switch {
		env[1] = "PATH=" + p
	}
	if u.Home != "" {
		env = append(env, "HOME="+u.Home)
	}
	if u.Name != "" {
		env = append(env, "USER="+u.Name, "LOGNAME="+u.Name)
	}
	if tz, ok := os.LookupEnv("TZ"); ok {
		env = append(env, "TZ="+tz)
	}
	return env
}

// tailLines returns the last n lines of text.
func tailLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// readFrom returns the contents of path after byte offset (at most the last 64 KiB).
func readFrom(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	const max = 64 << 10
	if fi.Size()-offset > max {
		offset = fi.Size() - max
	}
	if offset < 0 || offset > fi.Size() {
		offset = 0
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// indent prefixes every line of text with two spaces, for multi-line error details.
func indent(text string) string {
	if text == "" {
		return "  (empty)"
	}
	return "  " + strings.ReplaceAll(text, "\n", "\n  ")
}
