package serverctl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
)

func TestCommandRestarterFailingCommand(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx := testCtx(t, time.Minute)
	r := CommandRestarter{Command: "echo starting; echo boom >&2; exit 3", ConnString: url, Timeout: 30 * time.Second}
	err := r.Restart(ctx)
	if err == nil {
		t.Fatal("Restart succeeded with a failing command")
	}
	for _, w := range []string{"restart command", "exit status 3", "starting", "boom"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

func TestCommandRestarterKeepsOutputTail(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx := testCtx(t, time.Minute)
	// 300 lines of 16 bytes ("line-NNN-xxxxxx\n") = 4800 bytes; the error keeps 2048.
	cmd := `i=100; while [ $i -lt 400 ]; do echo "line-$i-xxxxxx"; i=$((i+1)); done; exit 1`
	err := CommandRestarter{Command: cmd, ConnString: url, Timeout: 30 * time.Second}.Restart(ctx)
	if err == nil {
		t.Fatal("Restart succeeded with a failing command")
	}
	msg := err.Error()
	if !strings.Contains(msg, "line-399-xxxxxx") || strings.Contains(msg, "line-100-") {
		t.Errorf("error should hold the output's end, not its start: %q", msg)
	}
	if !strings.Contains(msg, "last 2048 of 4800 bytes") {
		t.Errorf("error %q does not say the output was cut to 2048 of 4800 bytes", msg)
	}
}

func TestCommandRestarterServerNotRestarted(t *testing.T) {
	url := pgtest.ConnString(t)
	ctx := testCtx(t, time.Minute)
	start := time.Now()
	err := CommandRestarter{Command: "true", ConnString: url, Timeout: time.Second}.Restart(ctx)
	if err == nil || !strings.Contains(err.Error(), "has not restarted") || !strings.Contains(err.Error(), "printed nothing") {
		t.Fatalf("error = %v, want one saying the server has not restarted and the command printed nothing", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Restart took %v with a 1 s timeout", d)
	}
}

func TestCommandRestarterTimeoutKillsCommand(t *testing.T) {
	url := pgtest.ConnString(t)
	start := time.Now()
	err := CommandRestarter{Command: "echo waiting; sleep 60", ConnString: url, Timeout: 500 * time.Millisecond}.Restart(context.Background())
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") || !strings.Contains(err.Error(), "waiting") {
		t.Fatalf("error = %v, want a timeout with the output", err)
	}
	// The shell and its sleep (one process group) are killed at 500 ms.
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Restart took %v with a 500 ms timeout", d)
	}
}

func TestCommandRestarterBadInput(t *testing.T) {
	ctx := testCtx(t, time.Minute)
	for _, tc := range []struct {
		r    CommandRestarter
		want string
	}{
		{CommandRestarter{ConnString: "postgres://x/y"}, "no command"},
		{CommandRestarter{Command: "true"}, "no connection string"},
		{CommandRestarter{Command: "true", ConnString: "postgres://u:secret@[::1"}, "parse the connection string"},
	} {
		err := tc.r.Restart(ctx)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error = %v, want one containing %q", tc.r, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("error %q shows the password", err)
		}
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 8}
	if got := b.describe(); got != "; the command printed nothing" {
		t.Errorf("empty: %q", got)
	}
	b.Write([]byte("abc\n"))
	if got := b.describe(); got != "; output:\nabc" {
		t.Errorf("short: %q", got)
	}
	b.Write([]byte("defghijkl"))
	if got := b.describe(); got != "; output (last 8 of 13 bytes):\nefghijkl" {
		t.Errorf("cut: %q", got)
	}
	// A cut through a UTF-8 sequence drops the broken bytes.
	b = &tailBuffer{max: 4}
	b.Write([]byte("xé€")) // x, é (2 bytes), € (3 bytes): the last 4 bytes split é
	if got := b.describe(); got != "; output (last 4 of 6 bytes):\n€" {
		t.Errorf("utf-8 cut: %q", got)
	}
}
