// Package livetest tests the live metrics end to end: `pgtrial run
// --metrics-addr` against a throwaway PostgreSQL, scraped while it runs
// (about 20 s, apart from internal/cli's tests).
package livetest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/pgtrial/pgtrial/internal/cli"
	"github.com/pgtrial/pgtrial/internal/livemetrics"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/pgtest/pgbenchdb"
	"github.com/pgtrial/pgtrial/internal/results"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// command runs pgtrial's command line in this process with its stdout and
// stderr captured (cli.Main writes to os.Stdout and os.Stderr): each stderr
// line goes to lines as it comes; done gets the exit code, after which
// output() is everything written.
type command struct {
	lines chan string
	done  chan int
	mu    sync.Mutex
	out   strings.Builder
}

var capture sync.Mutex // os.Stdout and os.Stderr are the process's: one command at a time

func start(t *testing.T, args ...string) *command {
	t.Helper()
	capture.Lock()
	r, w, err := os.Pipe()
	if err != nil {
		capture.Unlock()
		t.Fatal(err)
	}
	stdout, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		capture.Unlock()
		t.Fatal(err)
	}
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = stdout, w
	c := &command{lines: make(chan string, 1000), done: make(chan int, 1)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			c.mu.Lock()
			c.out.WriteString(sc.Text() + "\n")
			c.mu.Unlock()
			select {
			case c.lines <- sc.Text():
			default:
			}
		}
		io.Copy(io.Discard, r)
	}()
	go func() {
		code := cli.Main(args, cli.BuildInfo{Version: "test"})
		os.Stdout, os.Stderr = oldOut, oldErr
		w.Close()
		wg.Wait()
		r.Close()
		stdout.Close()
		capture.Unlock()
		c.done <- code
	}()
	return c
}

func (c *command) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

var urlLine = regexp.MustCompile(`^pgtrial: live metrics at (http://\S+/metrics)$`)

// metricsURL waits (at most 60 s) for the command's line with the URL.
func (c *command) metricsURL(t *testing.T) string {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case l := <-c.lines:
			if m := urlLine.FindStringSubmatch(l); m != nil {
				return m[1]
			}
		case code := <-c.done:
			t.Fatalf("exit %d before serving the metrics:\n%s", code, c.output())
		case <-deadline:
			t.Fatalf("no metrics URL within 60 s:\n%s", c.output())
		}
	}
}

// value is the sum of f's series whose labels include want.
func value(f *dto.MetricFamily, want map[string]string) float64 {
	sum := &dto.MetricFamily{Type: f.Type}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		sum.Metric = append(sum.Metric, m)
	}
	return livemetrics.Total(sum)
}

// scrape is what one scrape saw.
type scrape struct {
	at        time.Duration // since the first
	committed float64
	response  float64 // the response histograms' count, every script
	cut       float64
	phase     string
	fams      map[string]*dto.MetricFamily
}

// TestLiveRun: a 10 s open-model run with --metrics-addr 127.0.0.1:0,
// scraped every second: the committed counter rises, the response
// histograms' count follows it, and the last scrape (at most one interval
// before the end) is within one interval's transactions of run.json's
// committed count; the collectors' gauges are there.
func TestLiveRun(t *testing.T) {
	url, _ := pgbenchdb.Scale1(t)
	dir := filepath.Join(t.TempDir(), "run")
	const rate = 200
	c := start(t, "run", url, "-b", "tpcb-like", "--rate", fmt.Sprint(rate), "-c", "4", "-T", "10s", "--warmup", "0",
		"--run-dir", dir, "--no-report", "--quiet", "--metrics-addr", "127.0.0.1:0")
	metricsURL := c.metricsURL(t)
	if !strings.HasPrefix(metricsURL, "http://127.0.0.1:") || strings.Contains(metricsURL, ":0/") {
		t.Errorf("URL %s: want 127.0.0.1 and the port it got", metricsURL)
	}

	var scrapes []scrape
	first := time.Now()
	code := -1
	for i := 0; i < 60 && code < 0; i++ {
		select {
		case code = <-c.done:
			continue
		case <-time.After(time.Second):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		fams, err := livemetrics.Scrape(ctx, metricsURL, false)
		cancel()
		if err != nil {
			t.Logf("scrape %d: %v", i, err) // the command may have ended meanwhile
			continue
		}
		s := scrape{at: time.Since(first), fams: fams}
		if f := fams["pgtrial_transactions_committed_total"]; f != nil {
			s.committed = livemetrics.Total(f)
		}
		if f := fams["pgtrial_response_seconds"]; f != nil {
			s.response = livemetrics.Total(f)
		}
		if f := fams["pgtrial_transactions_cut_total"]; f != nil {
			s.cut = livemetrics.Total(f)
		}
		if f := fams["pgtrial_phase"]; f != nil {
			for _, p := range []string{"starting", "warmup", "measure", "done"} {
				if value(f, map[string]string{"phase": p}) == 1 {
					s.phase = p
				}
			}
		}
		t.Logf("scrape at %5.1fs: phase %-8s committed %5.0f, response count %5.0f, cut %.0f", s.at.Seconds(), s.phase, s.committed, s.response, s.cut)
		scrapes = append(scrapes, s)
	}
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, c.output())
	}

	// The counters rise: at least 6 scrapes during the measured phase,
	// each above the one before.
	var measuring []scrape
	for _, s := range scrapes {
		if s.phase == "measure" {
			measuring = append(measuring, s)
		}
	}
	if len(measuring) < 6 {
		t.Fatalf("%d scrapes in the measured phase, want ≥ 6 of a 10 s run scraped every second", len(measuring))
	}
	// (A scrape may fall in the same interval as the one before when a
	// tick is late on a loaded machine: one flat step is allowed.)
	flat := 0
	for i := 1; i < len(measuring); i++ {
		switch {
		case measuring[i].committed < measuring[i-1].committed:
			t.Errorf("scrape %d: committed %v after %v: a counter went down", i, measuring[i].committed, measuring[i-1].committed)
		case measuring[i].committed == measuring[i-1].committed:
			flat++
		}
		// The histograms hold the committed transactions (and the cut
		// ones, at the end only).
		if measuring[i].response != measuring[i].committed+measuring[i].cut {
			t.Errorf("scrape %d: response count %v, committed %v + cut %v", i, measuring[i].response, measuring[i].committed, measuring[i].cut)
		}
	}
	if flat > 1 {
		t.Errorf("the committed counter stood still in %d of %d scrapes of the measured phase: not rising", flat, len(measuring)-1)
	}

	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	committed := float64(run.Summary.Total.Committed)
	last := scrapes[len(scrapes)-1]
	// One interval's worth: the rate for a second, with room for the
	// schedule's Poisson noise (±5σ of 200 is ±71) and the clients.
	oneInterval := rate + 5*math.Sqrt(rate) + 4
	if d := committed - last.response; d < -float64(run.Summary.Total.Unfinished+run.Summary.Total.Unstarted) || d > oneInterval {
		t.Errorf("last scrape's response count %v, run.json's committed %v: want within one interval (%v)", last.response, committed, oneInterval)
	}
	if d := committed - last.committed; d < 0 || d > oneInterval {
		t.Errorf("last scrape's committed %v, run.json's %v: want within one interval (%v)", last.committed, committed, oneInterval)
	}
	t.Logf("run.json: committed %v; last scrape: committed %v, response count %v (%s)", committed, last.committed, last.response, last.phase)

	// Labels, rates and the collectors' gauges, at the last scrape.
	f := last.fams
	run0 := map[string]string{"run_id": "run", "variant": "", "script": "tpcb-like"}
	if value(f["pgtrial_transactions_committed_total"], run0) != last.committed {
		t.Errorf("committed series: %v", f["pgtrial_transactions_committed_total"])
	}
	if got := livemetrics.Total(f["pgtrial_target_rate"]); got != rate {
		t.Errorf("target rate %v", got)
	}
	if got := livemetrics.Total(f["pgtrial_achieved_rate"]); got < rate/2 || got > 2*rate {
		t.Errorf("achieved rate %v, target %v", got, rate)
	}
	if got := livemetrics.Total(f["pgtrial_wal_bytes_total"]); got <= 0 {
		t.Errorf("WAL bytes %v: tpcb-like writes", got)
	}
	if f["pgtrial_wait_sessions"] == nil {
		t.Errorf("no waits by type")
	}
	if f["pgtrial_checkpoints_total"] == nil {
		t.Errorf("no checkpoint counters")
	}
}

// TestRefusesRemoteAddress: run refuses a non-loopback --metrics-addr
// before connecting to anything (the URL is unreachable), naming the flag
// that allows it; with the flag it serves and warns.
func TestRefusesRemoteAddress(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		c := start(t, "run", "postgres://nobody@127.0.0.1:1/none", "--rate", "10", "-T", "1s", "--metrics-addr", addr)
		select {
		case code := <-c.done:
			out := c.output()
			if code != 1 || !strings.Contains(out, "--metrics-allow-remote") || strings.Contains(out, "connection") {
				t.Errorf("--metrics-addr %s: exit %d:\n%s", addr, code, out)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("--metrics-addr %s: no exit within 30 s", addr)
		}
	}
	c := start(t, "run", "postgres://nobody@127.0.0.1:1/none?connect_timeout=2", "--rate", "10", "-T", "1s", "--no-report",
		"--run-dir", filepath.Join(t.TempDir(), "r"), "--metrics-addr", "0.0.0.0:0", "--metrics-allow-remote")
	select {
	case code := <-c.done:
		out := c.output()
		if code == 0 || !strings.Contains(out, "pgtrial: warning: --metrics-allow-remote: the live metrics are served beyond this machine at http://0.0.0.0:") {
			t.Errorf("--metrics-allow-remote: exit %d (the server is unreachable), want the warning:\n%s", code, out)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("--metrics-allow-remote: no exit within 60 s")
	}
}

// scrapeUntilDone scrapes url every period until the command ends (at most
// n scrapes), calling see with each scrape; it returns the exit code.
func scrapeUntilDone(t *testing.T, c *command, url string, period time.Duration, n int, see func(map[string]*dto.MetricFamily)) int {
	t.Helper()
	for range n {
		select {
		case code := <-c.done:
			return code
		case <-time.After(period):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		fams, err := livemetrics.Scrape(ctx, url, false)
		cancel()
		if err == nil {
			see(fams)
		}
	}
	select {
	case code := <-c.done:
		return code
	case <-time.After(2 * time.Minute):
		t.Fatalf("no exit after %d scrapes and 2 min:\n%s", n, c.output())
		return -1
	}
}

// TestLiveExperiment: an experiment's runs are served one after the other,
// each under its own run_id and variant.
func TestLiveExperiment(t *testing.T) {
	url, _ := pgbenchdb.Scale1(t)
	file := filepath.Join(t.TempDir(), "e.yaml")
	if err := os.WriteFile(file, []byte(`
name: live
workload: {builtin: select-only, scale: 1}
load: {clients: 2, rate: 100}
protocol: {warmup: 1s, window: 2s, repeats: 2}
variants: [{name: a}, {name: b, settings: {work_mem: 8MB}}]
collect: false
`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, "experiment", "--url", url, "--dir", filepath.Join(t.TempDir(), "exp"), "--no-report", "--quiet",
		"--metrics-addr", "localhost:0", file)
	metricsURL := c.metricsURL(t)
	committed := map[[2]string]float64{} // (run_id, variant) → the most seen
	code := scrapeUntilDone(t, c, metricsURL, 250*time.Millisecond, 400, func(fams map[string]*dto.MetricFamily) {
		f := fams["pgtrial_transactions_committed_total"]
		runs := map[string]bool{}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			k := [2]string{l["run_id"], l["variant"]}
			committed[k] = max(committed[k], m.GetCounter().GetValue())
			runs[l["run_id"]] = true
		}
		if len(runs) > 1 {
			t.Errorf("one scrape holds %d runs: %v", len(runs), runs)
		}
	})
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, c.output())
	}
	t.Logf("runs seen: %v", committed)
	variants := map[string]int{}
	for k, n := range committed {
		if n > 0 {
			variants[k[1]]++
		}
	}
	if variants["a"] != 2 || variants["b"] != 2 {
		t.Errorf("runs with committed transactions by variant: %v, want 2 of a and 2 of b", variants)
	}
}

// TestLivePgbench: pgbench's front end takes --metrics-addr as one of
// pgtrial's additions; its run is served as run_id "pgbench" without
// --run-dir.
func TestLivePgbench(t *testing.T) {
	url, _ := pgbenchdb.Scale1(t)
	c := start(t, "pgbench", "-n", "-S", "-c", "2", "-T", "3", "-R", "100", "--metrics-addr", "127.0.0.1:0", url)
	metricsURL := c.metricsURL(t)
	var seen float64
	code := scrapeUntilDone(t, c, metricsURL, 500*time.Millisecond, 60, func(fams map[string]*dto.MetricFamily) {
		seen = max(seen, value(fams["pgtrial_transactions_committed_total"], map[string]string{"run_id": "pgbench", "script": "<builtin: select only>"}))
	})
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, c.output())
	}
	if seen < 100 {
		t.Errorf("committed seen %v, want ≥ 100 of a 3 s run at 100 tx/s:\n%s", seen, c.output())
	}
}
