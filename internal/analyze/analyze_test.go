package analyze

import (
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/results"
)

// synthLog writes a per-transaction log of -R -L --max-tries 2
// --failures-detailed (8 columns) for client ids from clients, and returns
// the committed latencies and the skipped and failed counts.
func synthLog(t *testing.T, path string, seed uint64, clients []int, n int, zip bool) (lat []int64, skipped, failed int64) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	at := int64(1796345400_250000) // epoch µs
	for i := range n {
		c := clients[i%len(clients)]
		at += int64(rnd.IntN(3000))
		switch r := rnd.IntN(100); {
		case r < 5:
			fmt.Fprintf(&b, "%d %d skipped %d %d %d 0 0\n", c, i+1, i%2, at/1e6, at%1e6)
			skipped++
		case r < 7:
			fmt.Fprintf(&b, "%d %d serialization %d %d %d 0 1\n", c, i+1, i%2, at/1e6, at%1e6)
			failed++
		default:
			l := int64(rnd.ExpFloat64()*2000) + 100
			if rnd.IntN(50) == 0 {
				l += 600_000 + int64(rnd.IntN(2_000_000)) // beyond the dense array
			}
			lag := int64(rnd.IntN(int(min(l, 500))))
			fmt.Fprintf(&b, "%d %d %d %d %d %d %d %d\n", c, i+1, l, i%2, at/1e6, at%1e6, lag, rnd.IntN(2))
			lat = append(lat, l)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if zip {
		zw := gzip.NewWriter(f)
		zw.Write([]byte(b.String()))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	return
}

// rank is the seed's stats.py rule: v[⌈n·q/100⌉ − 1] of the sorted values.
func rank(v []int64, q int64) int64 {
	n := int64(len(v))
	return v[(n*q+99)/100-1]
}

func TestAnalyzeTransactions(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "pgbench_log.1"), filepath.Join(dir, "pgbench_log.1.1.gz")
	la, sa, fa := synthLog(t, a, 1, []int{0, 2}, 20000, false)
	lb, sb, fb := synthLog(t, b, 2, []int{1, 3}, 15000, true)
	all := slices.Concat(la, lb)
	slices.Sort(all)

	out := filepath.Join(dir, "run")
	res, err := Analyze(context.Background(), Config{Files: []string{a, b}, Dir: out, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.P50 != rank(all, 50) || res.P95 != rank(all, 95) || res.P99 != rank(all, 99) || res.Max != all[len(all)-1] {
		t.Errorf("p50/p95/p99/max = %d/%d/%d/%d, want %d/%d/%d/%d", res.P50, res.P95, res.P99, res.Max,
			rank(all, 50), rank(all, 95), rank(all, 99), all[len(all)-1])
	}
	run, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	tot := run.Summary.Total
	if tot.Committed != int64(len(all)) || tot.Skipped != sa+sb || tot.Failed != fa+fb || tot.FailedBy["serialization"] != fa+fb {
		t.Errorf("committed %d skipped %d failed %d, want %d %d %d", tot.Committed, tot.Skipped, tot.Failed, len(all), sa+sb, fa+fb)
	}
	if tot.Response.P99 != float64(rank(all, 99))/1000 || tot.Response.Count != int64(len(all)) || !run.Logs.ExactPercentiles {
		t.Errorf("run.json p99 %v count %d exact %v", tot.Response.P99, tot.Response.Count, run.Logs.ExactPercentiles)
	}
	if run.Model.Clients != 4 || run.Model.Kind != results.ModelOpen || len(run.Logs.Files) != 2 || !run.Logs.Files[1].Compressed {
		t.Errorf("model %+v logs %+v", run.Model, run.Logs.Files)
	}
	if !slices.Equal(run.Logs.Columns, []string{"schedule_lag", "retries"}) {
		t.Errorf("columns %v", run.Logs.Columns)
	}
	if _, ok := run.Evidence.MissingReason(results.EvidenceServer); !ok {
		t.Error("server evidence not missing")
	}
	// The timeline adds up to the summary, and the HDR p99 of the merged
	// hlog agrees with the exact one to 0.1 %.
	rows, err := results.ReadTimeline(out)
	if err != nil {
		t.Fatal(err)
	}
	var committed, skipped int64
	for _, r := range rows {
		committed += r.Committed
		skipped += r.Skipped
	}
	if committed != tot.Committed || skipped != tot.Skipped {
		t.Errorf("timeline: %d committed %d skipped", committed, skipped)
	}
	f, err := os.Open(filepath.Join(out, results.LatencyFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := metrics.ReadLog(f)
	if err != nil {
		t.Fatal(err)
	}
	h := metrics.NewHistogram()
	for _, e := range entries {
		if e.Tag == "total/response" {
			h.Merge(e.Hist)
		}
	}
	if got, want := metrics.Quantile(h, 0.99), rank(all, 99); h.TotalCount() != int64(len(all)) || got < want || float64(got) > float64(want)*1.001+1 {
		t.Errorf("hlog: %d values, p99 %d, exact %d", h.TotalCount(), got, want)
	}
}

func TestAnalyzeAggregate(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("1796345402 206 224918 391909462 320 5815 100 2000 1 30 4 0 0 1 0\n1796345403 10 10000 20000000 500 1500 0 0 0 0 0 0 0 0 0\n"), 0o600)
	os.WriteFile(b, []byte("1796345402 100 100000 200000000 200 7000 50 900 0 20 1 2 3 0 2\n"), 0o600)
	out := filepath.Join(dir, "run")
	res, err := Analyze(context.Background(), Config{Files: []string{a, b}, Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	tot := res.Run.Summary.Total
	if tot.Committed != 316 || tot.Skipped != 5 || tot.Failed != 3 || tot.Retried != 2 || tot.Retries != 3 {
		t.Errorf("%+v", tot)
	}
	if tot.Response.Max != 7 || res.Run.Summary.Duration != 2 || res.Run.Logs.Format != "aggregate" {
		t.Errorf("max %v duration %v", tot.Response.Max, res.Run.Summary.Duration)
	}
	if want := (224918.0 + 10000 + 100000) / 316 / 1000; fmt.Sprintf("%.6f", tot.Response.Mean) != fmt.Sprintf("%.6f", want) {
		t.Errorf("mean %v, want %v", tot.Response.Mean, want)
	}
	if _, ok := res.Run.Logs.Missing["percentiles"]; !ok {
		t.Error("percentiles not said missing")
	}
}

func TestAnalyzeErrors(t *testing.T) {
	dir := t.TempDir()
	tx, agg, bad := filepath.Join(dir, "tx"), filepath.Join(dir, "agg"), filepath.Join(dir, "bad")
	os.WriteFile(tx, []byte("0 1 100 0 1796345400 1\n"), 0o600)
	os.WriteFile(agg, []byte("1796345402 206 224918 391909462 320 5815\n"), 0o600)
	os.WriteFile(bad, []byte("0 1 100 0 1796345400 1\n0 2 1x0 0 1796345400 1\n"), 0o600)
	for _, tt := range []struct {
		files []string
		want  string
	}{
		{[]string{tx, agg}, "analyse them apart"},
		{[]string{tx, bad}, bad + ":2: time"},
		{[]string{filepath.Join(dir, "none")}, "no such file"},
	} {
		_, err := Analyze(context.Background(), Config{Files: tt.files, Dir: filepath.Join(t.TempDir(), "run")})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.files, err, tt.want)
		}
	}
}

func TestExactQuantiles(t *testing.T) {
	var e exact
	v := []int64{5, 1, 3, 2, 4, 1_000_000, 7_000_000}
	for _, x := range v {
		e.add(x)
	}
	slices.Sort(v)
	got := e.quantiles([]float64{0.5, 0.9, 1})
	if got[0] != rank(v, 50) || got[1] != rank(v, 90) || got[2] != 7_000_000 {
		t.Errorf("got %v", got)
	}
}

// TestAnalyzeConcatenated: one file of two threads' logs one after the
// other (time goes back in it) gives the timeline of the two files.
func TestAnalyzeConcatenated(t *testing.T) {
	dir := t.TempDir()
	a, b, ab := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "ab")
	synthLog(t, a, 1, []int{0}, 3000, false)
	synthLog(t, b, 2, []int{1}, 2000, false)
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	os.WriteFile(ab, append(da, db...), 0o600)
	rows := func(files ...string) []results.TimelineRow {
		out := filepath.Join(t.TempDir(), "run")
		if _, err := Analyze(context.Background(), Config{Files: files, Dir: out}); err != nil {
			t.Fatal(err)
		}
		r, err := results.ReadTimeline(out)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	two, one := rows(a, b), rows(ab)
	if len(two) != len(one) {
		t.Fatalf("%d rows, concatenated %d", len(two), len(one))
	}
	for i := range two {
		if two[i] != one[i] {
			t.Errorf("row %d: %+v, concatenated %+v", i, two[i], one[i])
		}
	}
}
