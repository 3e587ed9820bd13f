package sessionstest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// sessionsEnv overrides the number of clients (default 2000), e.g. to run
// the test on a smaller machine.
const sessionsEnv = "PGTRIAL_SESSIONS_CLIENTS"

// TestThousandsOfSessions: N clients each run a short transaction and then
// sleep 2 s (pgbench's \sleep), N/2 tx/s in all; they connect at a bounded
// rate; timeline.csv counts all of them connected, busy + idle = connected
// in every row, and idle dominates (a transaction takes ~1 ms of each
// client's ~2 s). It logs pgtrial's CPU per transaction and RSS per client.
func TestThousandsOfSessions(t *testing.T) {
	n := 2000
	if s := os.Getenv(sessionsEnv); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 10 {
			t.Fatalf("%s=%q: want a number of clients ≥ 10", sessionsEnv, s)
		}
		n = v
	}
	const (
		rate  = 400.0 // dials per second
		think = 2.0   // s
	)
	c := pgtest.OwnCluster(t, pgtest.Own{Settings: map[string]string{
		"max_connections": strconv.Itoa(n + 50),
		"shared_buffers":  "128MB",
	}})
	url := c.URL("postgres")
	bin := pgtest.BuildPgtrial(t)
	tmp := t.TempDir()
	scriptFile := filepath.Join(tmp, "tx.sql")
	if err := os.WriteFile(scriptFile, []byte("BEGIN;\nSELECT 1;\nEND;\n\\sleep 2 s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", url, "-f", scriptFile, "--closed",
		"-c", strconv.Itoa(n), "-j", "2", "--connect-rate", fmt.Sprint(rate),
		"--warmup", "3s", "-T", "6s", "--no-collect", "--quiet", "--no-report", "--run-dir", dir)
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(t0)
	if err != nil {
		t.Fatalf("pgtrial run: %v\n%s", err, out)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())

	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Paced: the last of n dials starts (n−1)/rate s after the first.
	if conn := run.BenchStart.Sub(run.StartedAt); conn.Seconds() < float64(n-1)/rate*0.95 {
		t.Errorf("connected %d clients in %v, faster than --connect-rate %v allows", n, conn, rate)
	}
	if run.Summary == nil {
		t.Fatal("run.json has no summary")
	}
	if p := run.Summary.PeakConnected; p != int64(n) {
		t.Errorf("run.json's summary: peak_connected %d, want %d", p, n)
	}
	rows, err := results.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	var committed int64
	var secs float64
	var idle, measured, all int64
	for i, r := range rows {
		all += r.Committed
		if r.Busy+r.Idle != r.Connected || r.Busy < 0 || r.ConnectedMax < r.Connected {
			t.Errorf("row %d: connected %d, max %d, busy %d, idle %d: busy + idle ≠ connected", i, r.Connected, r.ConnectedMax, r.Busy, r.Idle)
		}
		if r.Phase != results.PhaseMeasure {
			continue
		}
		if r.ConnectedMax != int64(n) || r.Connected != int64(n) {
			t.Errorf("row %d (measure): connected %d, max %d, want %d", i, r.Connected, r.ConnectedMax, n)
		}
		idle += r.Idle
		measured++
		committed += r.Committed
		if i > 0 {
			secs += r.Time.Sub(rows[i-1].Time).Seconds()
		}
	}
	if measured < 4 {
		t.Fatalf("%d measured rows, want ≥ 4", measured)
	}
	if share := float64(idle) / float64(measured*int64(n)); share < 0.9 {
		t.Errorf("idle is %.1f%% of the connected clients, want ≥ 90%% (each is busy ~1 ms of %v s)", 100*share, think)
	}
	tps := float64(committed) / secs
	if want := float64(n) / think; tps < 0.85*want || tps > 1.02*want {
		t.Errorf("%.0f tx/s, want about %.0f (n/think)", tps, want)
	}
	// The whole process, Go runtime and setup included: a per-client
	// buffer of 64 KiB would break this.
	if perClient := float64(ru.Maxrss) / float64(n); perClient > 80 {
		t.Errorf("max RSS %d KB for %d clients: %.1f KB per client, want ≤ 80", ru.Maxrss, n, perClient)
	}
	t.Logf("%d clients, %.0f tx/s (%.0f expected), wall %v: pgtrial CPU %v (%.1f µs per transaction over the whole process, connections included), max RSS %d KB (%.1f KB per client)",
		n, tps, float64(n)/think, wall.Round(time.Millisecond), cpu.Round(time.Millisecond),
		float64(cpu.Microseconds())/float64(max(all, 1)), ru.Maxrss, float64(ru.Maxrss)/float64(n))
}
