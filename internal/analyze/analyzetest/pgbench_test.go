package analyzetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/analyze"
	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/pgtest/pgbenchdb"
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/results"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// pgbenchBin is the real pgbench: PGTRIAL_PG_BIN's, else the one on PATH.
func pgbenchBin(t *testing.T) string {
	if dir := os.Getenv("PGTRIAL_PG_BIN"); dir != "" {
		if p := filepath.Join(dir, "pgbench"); fileExists(p) {
			return p
		}
	}
	p, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("no pgbench: set PGTRIAL_PG_BIN")
	}
	return p
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// runPgbench runs pgbench with args in a new directory and returns it, its
// log files and its stdout.
func runPgbench(t *testing.T, url string, args ...string) (string, []string, string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, pgbenchBin(t), append(args, url)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench %v: %v\n%s", args, err, out)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "pgbench_log.*"))
	if len(logs) == 0 {
		t.Fatalf("pgbench wrote no log:\n%s", out)
	}
	return dir, logs, string(out)
}

func readLines(t *testing.T, files []string) [][]string {
	t.Helper()
	var out [][]string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if fs := strings.Fields(l); len(fs) > 0 {
				out = append(out, fs)
			}
		}
	}
	return out
}

// rank is the seed's stats.py rule: v[⌈n·q/100⌉ − 1] of the sorted values.
func rank(v []int64, q int64) int64 { return v[(int64(len(v))*q+99)/100-1] }

func stdoutCount(t *testing.T, out, re string) int64 {
	t.Helper()
	m := regexp.MustCompile(re + `: (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q in pgbench's output:\n%s", re, out)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// TestAnalyzeRealPgbench: a -R -L run (skipped lines) and an
// --aggregate-interval run of pgbench 15, analysed, give the counts and
// percentiles of the lines themselves; report and compare work on them.
func TestAnalyzeRealPgbench(t *testing.T) {
	url, _ := pgbenchdb.Scale1(t)
	ctx := context.Background()

	// Per-transaction, -R with a latency limit low enough to skip.
	_, logs, out := runPgbench(t, url, "-n", "-R", "300", "-L", "0.2", "-l", "-T", "4", "-c", "2", "-j", "2")
	var lat []int64
	var skipped int64
	for _, fs := range readLines(t, logs) {
		if len(fs) != 7 {
			t.Fatalf("line %v: want 7 columns (-R: the lag)", fs)
		}
		if fs[2] == "skipped" {
			skipped++
			continue
		}
		v, err := strconv.ParseInt(fs[2], 10, 64)
		if err != nil {
			t.Fatalf("line %v", fs)
		}
		lat = append(lat, v)
	}
	slices.Sort(lat)
	if skipped == 0 || len(lat) == 0 {
		t.Fatalf("pgbench logged %d skipped and %d committed transactions; the test needs both", skipped, len(lat))
	}
	if p := stdoutCount(t, out, "number of transactions actually processed"); p != int64(len(lat)) {
		t.Errorf("pgbench processed %d, the log has %d", p, len(lat))
	}
	runA := filepath.Join(t.TempDir(), "a")
	res, err := analyze.Analyze(ctx, analyze.Config{Files: logs, Dir: runA})
	if err != nil {
		t.Fatal(err)
	}
	if res.P50 != rank(lat, 50) || res.P95 != rank(lat, 95) || res.P99 != rank(lat, 99) || res.Max != lat[len(lat)-1] {
		t.Errorf("p50/p95/p99/max %d/%d/%d/%d µs, the lines give %d/%d/%d/%d", res.P50, res.P95, res.P99, res.Max,
			rank(lat, 50), rank(lat, 95), rank(lat, 99), lat[len(lat)-1])
	}
	run, err := results.Load(runA)
	if err != nil {
		t.Fatal(err)
	}
	tot := run.Summary.Total
	if tot.Committed != int64(len(lat)) || tot.Skipped != skipped || run.Model.Clients != 2 || run.Model.Kind != results.ModelOpen {
		t.Errorf("committed %d skipped %d clients %d %s; the lines give %d, %d, 2 clients, open", tot.Committed, tot.Skipped, run.Model.Clients, run.Model.Kind, len(lat), skipped)
	}
	if tot.Response.P99 != float64(rank(lat, 99))/1000 {
		t.Errorf("run.json p99 %v ms, the lines give %d µs", tot.Response.P99, rank(lat, 99))
	}
	t.Logf("per-transaction: %d committed, %d skipped, p50 %d p95 %d p99 %d max %d µs", len(lat), skipped, res.P50, res.P95, res.P99, res.Max)

	// Aggregate: 15 columns a line.
	_, aggLogs, _ := runPgbench(t, url, "-n", "--aggregate-interval", "1", "-l", "-T", "4", "-c", "2", "-j", "2")
	var num int64
	var sumLat, maxLat float64
	for _, fs := range readLines(t, aggLogs) {
		if len(fs) != 15 {
			t.Fatalf("aggregate line %v: want 15 columns", fs)
		}
		n, _ := strconv.ParseInt(fs[1], 10, 64)
		s, _ := strconv.ParseFloat(fs[2], 64)
		m, _ := strconv.ParseFloat(fs[5], 64)
		num += n
		sumLat += s
		maxLat = max(maxLat, m)
	}
	runB := filepath.Join(t.TempDir(), "b")
	resB, err := analyze.Analyze(ctx, analyze.Config{Files: aggLogs, Dir: runB})
	if err != nil {
		t.Fatal(err)
	}
	totB := resB.Run.Summary.Total
	if totB.Committed != num || totB.Response.Max != maxLat/1000 || resB.Max != int64(maxLat) {
		t.Errorf("aggregate: committed %d max %v ms; the lines give %d, %v µs", totB.Committed, totB.Response.Max, num, maxLat)
	}
	if want := sumLat / float64(num) / 1000; abs(totB.Response.Mean-want) > 1e-9*want {
		t.Errorf("aggregate: mean %v ms, the lines give %v", totB.Response.Mean, want)
	}
	if _, ok := resB.Run.Logs.Missing["percentiles"]; !ok {
		t.Error("aggregate: percentiles not said missing")
	}

	// report and compare read what analyze wrote.
	for _, d := range []string{runA, runB} {
		doc, err := report.RunReport(d)
		if err != nil || doc == nil {
			t.Errorf("report of %s: %v", d, err)
		}
	}
	a, err := compare.LoadSide("A", []string{runA})
	if err != nil {
		t.Fatal(err)
	}
	b, err := compare.LoadSide("B", []string{runB})
	if err != nil {
		t.Fatal(err)
	}
	if rep := compare.Build(compare.Options{NameA: "A", NameB: "B"}, a, b); rep == nil {
		t.Error("compare built no report")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
