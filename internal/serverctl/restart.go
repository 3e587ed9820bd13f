package serverctl

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Restarter restarts the server (a local cluster: localpg.Cluster.Restart; a remote
// one: CommandRestarter). Restart returns once the server accepts connections again.
type Restarter interface {
	Restart(ctx context.Context) error
}

// DefaultRestartTimeout bounds a CommandRestarter's command plus its wait for the
// server when Timeout is 0.
const DefaultRestartTimeout = 2 * time.Minute

// readyPoll is how often CommandRestarter tries to connect after the command.
const readyPoll = 200 * time.Millisecond

// outputTail is how much of a restart command's combined output an error keeps: its
// last 2 KB, where the reason for a failure usually is.
const outputTail = 2048

// commandWaitDelay is how long a finished (or, where process groups are not
// available, killed) command's children may keep its output pipe open before it is
// closed (a daemon left behind by sh -c would otherwise keep Run waiting).
const commandWaitDelay = 5 * time.Second

// CommandRestarter restarts a server with a shell command (sh -c Command, e.g.
// "ssh db1 sudo systemctl restart postgresql@17-main"), then waits until the server at
// ConnString accepts connections again and has really restarted: its
// pg_postmaster_start_time() is later than before the command (when the server could
// be reached before it). Connections are tried every 200 ms. Timeout bounds the command
// and the wait together (0: DefaultRestartTimeout). Errors carry the last 2 KB of the
// command's combined stdout and stderr.
type CommandRestarter struct {
	Command    string
	ConnString string
	Timeout    time.Duration
}

// Restart runs the command and waits for the server.
func (c CommandRestarter) Restart(ctx context.Context) error {
	if strings.TrimSpace(c.Command) == "" {
		return errors.New("restart command: no command given (restart_command is empty)")
	}
	cfg, err := parseConfig(c.ConnString)
	if err != nil {
		return fmt.Errorf("restart command: server to wait for: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultRestartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// The start time before, to tell a restarted server from one the command left
	// alone; zero when the server cannot be reached (then any running server will do).
	beforeCtx, beforeCancel := context.WithTimeout(ctx, 5*time.Second)
	before, _ := postmasterStart(beforeCtx, cfg)
	beforeCancel()

	out := &tailBuffer{max: outputTail}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", c.Command)
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.WaitDelay = commandWaitDelay
	ownProcessGroup(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (stopped: %w, timeout %v)", err, context.Cause(ctx), timeout)
		}
		return fmt.Errorf("restart command %s failed: %w%s", quoteCommand(c.Command), err, out.describe())
	}

	// Wait for the server: poll every readyPoll until it answers with a newer start time.
	var lastErr error
	for {
		start, err := postmasterStart(ctx, cfg)
		switch {
		case err != nil:
			lastErr = err
		case before.IsZero() || start.After(before):
			return nil
		default:
			lastErr = fmt.Errorf("the server accepts connections but has not restarted: pg_postmaster_start_time() is still %s "+
				"(does the command restart the server at %s?)", start.Format(time.RFC3339), serverName(cfg))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("restart command %s finished, but the server was not back within %v: %w; last attempt: %v%s",
				quoteCommand(c.Command), timeout, context.Cause(ctx), lastErr, out.describe())
		case <-time.After(readyPoll):
		}
	}
}

// postmasterStart connects and reads pg_postmaster_start_time(); one attempt, bounded
// by the connect timeout.
func postmasterStart(ctx context.Context, cfg *pgx.ConnConfig) (time.Time, error) {
	conn, err := connect(ctx, cfg)
	if err != nil {
		return time.Time{}, err
	}
	defer closeConn(conn)
	var t time.Time
	if err := conn.QueryRow(ctx, "SELECT pg_postmaster_start_time()").Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("read pg_postmaster_start_time(): %w", err)
	}
	return t, nil
}

// quoteCommand quotes a command for a message, shortened like a statement.
func quoteCommand(cmd string) string {
	return fmt.Sprintf("%q", shortSQL(cmd))
}

// tailBuffer keeps the last max bytes written to it (a command's output).
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64 // bytes written in all
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// describe is the output for an error message: "" when there was none, else a
// newline and the output's last max bytes (saying so when some were cut).
func (t *tailBuffer) describe() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The cut may have split a UTF-8 sequence; drop the broken bytes.
	s := strings.TrimRight(strings.ToValidUTF8(string(t.buf), ""), "\n")
	if strings.TrimSpace(s) == "" {
		return "; the command printed nothing"
	}
	if t.total > int64(len(t.buf)) {
		return fmt.Sprintf("; output (last %d of %d bytes):\n%s", len(t.buf), t.total, s)
	}
	return "; output:\n" + s
}
