package mergetest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/pgtest/pgbenchdb"
	"github.com/pgtrial/pgtrial/internal/results"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The load: 400 tx/s in all (4 threads of 100 tx/s each; a segment runs
// one thread and its client at 100 tx/s) with uniform arrivals, so that
// the schedule has exactly R·T slots and the achieved rate is not Poisson
// noise (±2 % at 2400 transactions), select-only, 6 s measured, no
// warm-up (the txlog then holds the measured window's transactions only).
const (
	rate     = 400.0
	duration = 6 * time.Second
	segments = 4
)

func loadArgs(url string) []string {
	return []string{"run", url, "-b", "select-only", "--rate", strconv.FormatFloat(rate, 'f', -1, 64), "--arrival", "uniform",
		"-c", "4", "-j", "4", "-T", duration.String(), "--warmup", "0", "--interval", "1s", "--random-seed", "42",
		"--quiet", "--no-report"}
}

type runner struct {
	t   *testing.T
	bin string
}

// run runs pgtrial with args, at most timeout; it returns the exit code and
// the output.
func (r *runner) run(timeout time.Duration, args ...string) (int, string) {
	r.t.Helper()
	cmd := exec.Command(r.bin, args...)
	cmd.Env = cleanEnv()
	cmd.WaitDelay = 5 * time.Second
	timer := time.AfterFunc(timeout, func() { cmd.Process.Kill() })
	out, err := cmd.CombinedOutput()
	timer.Stop()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		r.t.Fatalf("pgtrial %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// segmentsRun starts the four segments as four processes with one
// --start-at 2.5 s ahead and waits for them.
func (r *runner) segmentsRun(url, root string, extra ...string) []string {
	r.t.Helper()
	at := time.Now().Add(2500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	dirs := make([]string, segments)
	codes := make([]int, segments)
	outs := make([]string, segments)
	var wg sync.WaitGroup
	for i := range segments {
		dirs[i] = filepath.Join(root, fmt.Sprintf("seg%d", i))
		args := append(loadArgs(url), "--segment", fmt.Sprintf("%d/%d", i, segments), "--start-at", at, "--run-dir", dirs[i])
		if i > 0 {
			args = append(args, "--collect", "os") // the server is watched once, by segment 0
		}
		args = append(args, extra...)
		wg.Go(func() { codes[i], outs[i] = r.run(time.Minute, args...) })
	}
	wg.Wait()
	for i := range segments {
		if codes[i] != 0 {
			r.t.Fatalf("segment %d: exit %d\n%s", i, codes[i], outs[i])
		}
	}
	return dirs
}

func (r *runner) merge(out string, dirs []string, show bool) *results.Run {
	r.t.Helper()
	code, text := r.run(time.Minute, append(append([]string{"merge"}, dirs...), "-o", out)...)
	if code != 0 {
		r.t.Fatalf("pgtrial merge: exit %d\n%s", code, text)
	}
	if show {
		r.t.Logf("pgtrial merge:\n%s", text)
	}
	run, err := results.Load(out)
	if err != nil {
		r.t.Fatal(err)
	}
	return run
}

// TestMergeSegments: four segments, merged, against the union of their
// txlogs; then one generator against four merged segments, 3 runs a side
// interleaved, compared; and a mismatched merge refused with exit 1.
func TestMergeSegments(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about a minute")
	}
	r := &runner{t: t, bin: pgtest.BuildPgtrial(t)}
	url, _ := pgbenchdb.Scale1(t)
	root := t.TempDir()

	var singles, merged []string
	for round := range 3 {
		single := filepath.Join(root, fmt.Sprintf("single%d", round))
		if code, out := r.run(time.Minute, append(loadArgs(url), "--run-dir", single)...); code != 0 {
			t.Fatalf("single generator: exit %d\n%s", code, out)
		}
		singles = append(singles, single)
		var extra []string
		if round == 0 {
			extra = []string{"--txlog"}
		}
		dirs := r.segmentsRun(url, filepath.Join(root, fmt.Sprintf("round%d", round)), extra...)
		out := filepath.Join(root, fmt.Sprintf("merged%d", round))
		run := r.merge(out, dirs, round == 0)
		merged = append(merged, out)
		if round == 0 {
			checkMerged(t, run, out, dirs)
			// The merged directory reads as any run's.
			if code, text := r.run(time.Minute, "report", out); code != 0 {
				t.Errorf("pgtrial report of the merged run: exit %d\n%s", code, text)
			}
			for _, name := range []string{"report.html", "waits.csv", "server.csv", "os.csv", "segments/001/os.csv"} {
				if _, err := os.Stat(filepath.Join(out, name)); err != nil {
					t.Errorf("merged run directory: %v", err)
				}
			}
			for _, w := range run.Warnings {
				t.Logf("merged run's warning: %s", w)
			}
			for _, c := range run.Checks {
				if c.Status != "pass" {
					t.Logf("merged run's check %s: %s %v %s", c.Name, c.Status, c.Value, c.Message)
				}
			}
		}
	}

	// One generator against four merged segments.
	code, out := r.run(time.Minute, append(append(append([]string{"compare", "--json"}, singles...), "--"), merged...)...)
	if code != 0 {
		t.Fatalf("pgtrial compare: exit %d\n%s", code, out)
	}
	var rep struct {
		Metrics []struct {
			Metric  string     `json:"metric"`
			Group   string     `json:"group"`
			ValuesA []*float64 `json:"values_a"`
			ValuesB []*float64 `json:"values_b"`
			PooledA *float64   `json:"pooled_a"`
			PooledB *float64   `json:"pooled_b"`
			Verdict struct {
				Outcome string `json:"outcome"`
				Text    string `json:"text"`
			} `json:"verdict"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, out)
	}
	spectrum := 0
	for _, m := range rep.Metrics {
		if m.Group != "latency" && m.Metric != "tps" && m.Metric != "achieved" {
			continue
		}
		t.Logf("compare %s: single %s vs merged %s (pooled %s vs %s): %s", m.Metric, vals(m.ValuesA), vals(m.ValuesB), val(m.PooledA), val(m.PooledB), m.Verdict.Text)
		if m.Group == "latency" {
			spectrum++
			if m.Verdict.Outcome == "differs" {
				t.Errorf("%s: one generator and four merged segments differ: %s", m.Metric, m.Verdict.Text)
			}
		}
	}
	if spectrum == 0 {
		t.Errorf("compare judged no latency metric:\n%s", out)
	}

	// Mismatched directories: a single run is not a segment; segments of
	// two rounds have different starts.
	code, text := r.run(time.Minute, "merge", singles[0], filepath.Join(root, "round1", "seg1"), "-o", filepath.Join(root, "bad"))
	if code != 1 || !strings.Contains(text, singles[0]+" is not a segment run") {
		t.Errorf("merge of a single run: exit %d, want 1 with the refusal\n%s", code, text)
	}
	code, text = r.run(time.Minute, "merge", filepath.Join(root, "round1", "seg0"), filepath.Join(root, "round2", "seg1"),
		filepath.Join(root, "round1", "seg2"), filepath.Join(root, "round1", "seg3"), "-o", filepath.Join(root, "bad2"))
	if code != 1 || !strings.Contains(text, "differ in start (segment.start_at)") || !strings.Contains(text, filepath.Join(root, "round2", "seg1")) {
		t.Errorf("merge of two rounds' segments: exit %d, want 1 naming the directory and the field\n%s", code, text)
	}
	if _, err := os.Stat(filepath.Join(root, "bad2")); err == nil {
		t.Error("a refused merge left its output directory")
	}
}

// checkMerged checks the merged run of one round against its segments and
// the union of their txlogs.
func checkMerged(t *testing.T, run *results.Run, out string, dirs []string) {
	t.Helper()
	s := run.Summary
	var committed, started, respCount int64
	for _, d := range dirs {
		sr, err := results.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		committed += sr.Summary.Total.Committed
		started += sr.Summary.Total.Committed + sr.Summary.Total.Failed
		respCount += sr.Summary.Total.Response.Count
	}
	t.Logf("merged: committed %d, started %d, achieved %.2f tx/s (target %g), p99 %.3f ms, start spread %.3f ms, %d unstarted, %d unfinished",
		s.Total.Committed, started, s.AchievedRate, rate, s.Total.Response.P99, run.Merge.StartSpreadMs, s.Total.Unstarted, s.Total.Unfinished)
	if s.Total.Committed != committed {
		t.Errorf("merged committed %d, the segments' sum %d", s.Total.Committed, committed)
	}
	h, err := results.MeasuredResponse(out, run)
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != respCount || s.Total.Response.Count != respCount {
		t.Errorf("merged histogram holds %d (summary %d), the segments' %d", h.TotalCount(), s.Total.Response.Count, respCount)
	}
	if d := math.Abs(s.AchievedRate/rate - 1); d > 0.01 {
		t.Errorf("merged achieved rate %.2f tx/s, %.2f %% off %g (uniform arrivals: the schedule has R·T slots)", s.AchievedRate, 100*d, rate)
	}
	if run.Model.Rate != rate || run.Model.Clients != 4 || run.Model.Threads != 4 {
		t.Errorf("merged model %+v: want the whole load's", run.Model)
	}
	if sp := run.Merge.StartSpreadMs; sp > 50 {
		t.Errorf("segments started %.1f ms apart with one --start-at", sp)
	}
	// The sessions: the four segments' clients, connected together.
	if s.PeakConnected != 4 {
		t.Errorf("merged peak_connected %d, want the whole load's 4 clients", s.PeakConnected)
	}
	rows, err := results.ReadTimeline(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Phase == results.PhaseMeasure && (r.Connected != 4 || r.Busy+r.Idle != r.Connected) {
			t.Errorf("merged timeline at %.0f s: %d connected (%d busy, %d idle), want 4 = busy + idle", r.Elapsed, r.Connected, r.Busy, r.Idle)
		}
	}

	// The union of the txlogs (copied into OUT/txlog/): every committed
	// transaction's latency, µs (pgbench -l: client tx latency script
	// epoch µs lag). The merged p99 is the HDR bucket of the union's
	// nearest-rank value v[⌈n·0.99⌉ − 1], exactly when no transaction was cut
	// at the window's end (those are in the histogram as lower bounds, not
	// in the logs); with c cut, between the bucket of v[k−1−c] and of v[k−1],
	// k = ⌈(n+c)·0.99⌉.
	logs, err := filepath.Glob(filepath.Join(out, "txlog", "seg*"))
	if err != nil || len(logs) != segments {
		t.Fatalf("merged txlog/: %v %v, want one log per segment", logs, err)
	}
	var lat []int64
	for _, f := range logs {
		lat = append(lat, readLog(t, f)...)
	}
	if int64(len(lat)) != committed {
		t.Errorf("the txlogs hold %d committed transactions, the merged run %d", len(lat), committed)
	}
	slices.Sort(lat)
	c := s.Total.Unstarted + s.Total.Unfinished
	n := int64(len(lat)) + c
	k := metrics.NearestRank(0.99, n)
	lo, hi := hdrMs(lat[max(k-1-c, 0)]), hdrMs(lat[min(k-1, int64(len(lat))-1)])
	t.Logf("txlog union: %d lines, p99 v[%d] = %.3f ms (HDR bucket %.3f ms); merged p99 %.3f ms", len(lat), k-1, float64(lat[min(k-1, int64(len(lat))-1)])/1000, hi, s.Total.Response.P99)
	// The cut ones are the slots due in the window's last moment, whose
	// lower bounds are far below the p99: then it is v[k−1−c]'s bucket.
	t.Logf("merged p99 = the bucket of v[k−1−c] = %.3f ms: %v", lo, s.Total.Response.P99 == lo)
	if p := s.Total.Response.P99; p < lo || p > hi {
		t.Errorf("merged p99 %.3f ms, the union's %.3f–%.3f ms (HDR buckets; %d cut)", p, lo, hi, c)
	}
}

// readLog reads a pgbench -l log's committed latencies, µs.
func readLog(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		v, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			continue // failed or skipped
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// hdrMs is v (µs) as an HDR histogram reports it, by its bucket's highest
// equivalent value, ms.
func hdrMs(v int64) float64 {
	h := metrics.NewHistogram()
	metrics.RecordValue(h, v)
	return float64(metrics.Quantile(h, 1)) / 1000
}

func vals(vs []*float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = val(v)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func val(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}

// cleanEnv is the environment without libpq's variables (the URL names the
// server).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "PGTRIAL_") {
			env = append(env, kv)
		}
	}
	return env
}
