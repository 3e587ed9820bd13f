package trial

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

func TestSlowestFromConfig(t *testing.T) {
	for _, tt := range []struct {
		dir  string
		n    int
		want int
	}{
		{"", 0, 0}, {"", 10, 0}, // no run directory: no selection
		{"d", 0, results.SlowPerInterval}, {"d", 7, 7}, {"d", -1, 0},
	} {
		c := &Config{Dir: tt.dir, SlowPerInterval: tt.n}
		if got := c.slowest(); got != tt.want {
			t.Errorf("Dir %q, SlowPerInterval %d: slowest %d, want %d", tt.dir, tt.n, got, tt.want)
		}
	}
}

// In a synctest bubble the conversion to the run's clock is exact: the
// engine started 100 ms before the bench, so a transaction that ended at
// engine time 150 ms ended at elapsed 0.05 s. Each interval (warm-up ones
// too) keeps its 2 slowest, slowest first, stamped with the interval's
// end; a skipped slot is never among them; without a selection there is
// no slow.csv.
func TestRecorderWritesSlow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, err := results.Create(t.TempDir(), stubRun())
		if err != nil {
			t.Fatal(err)
		}
		set := metrics.NewSet(2, metrics.Layout{Scripts: 1, Slowest: 2})
		p := &recorderProbe{bench: time.Now()}
		rec := NewRecorder(p.config(set, dir, time.Second, time.Second))
		rec.Start(p.bench.Add(-100*ms), p.bench)
		// Engine µs of bench + d.
		at := func(d time.Duration) int64 { return int64((d + 100*ms) / time.Microsecond) }
		time.Sleep(500 * ms)
		for i, resp := range []int64{3000, 9000, 5000, 9000} { // the two 9 ms: the earlier end first
			end := at(time.Duration(100+i) * ms)
			set.Recorder(i % 2).Record(&metrics.Tx{Outcome: metrics.Committed, Tries: 1, Response: resp, Service: resp - 1000, Lag: 1000, End: end, PID: uint32(40 + i%2)})
		}
		set.Recorder(0).Record(&metrics.Tx{Outcome: metrics.Skipped})
		time.Sleep(1000 * ms) // the warm-up's tick at 1 s
		set.Recorder(1).Record(&metrics.Tx{Outcome: metrics.Unfinished, Tries: 1, Response: 600_000, Service: 400_000, Lag: 200_000, End: at(1500 * ms), PID: 41})
		time.Sleep(500 * ms)
		if _, err := rec.Stop(time.Now()); err != nil {
			t.Fatal(err)
		}
		rows, err := results.ReadSlow(dir.Path())
		if err != nil {
			t.Fatal(err)
		}
		want := []results.SlowRow{
			{Time: p.bench.Add(time.Second), Elapsed: 1, Script: "s", Outcome: "committed", Client: 1, PID: 41,
				IntendedS: 0.092, StartS: 0.093, EndS: 0.101, ResponseMs: 9, ServiceMs: 8, LagMs: 1, Tries: 1},
			{Time: p.bench.Add(time.Second), Elapsed: 1, Script: "s", Outcome: "committed", Client: 1, PID: 41,
				IntendedS: 0.094, StartS: 0.095, EndS: 0.103, ResponseMs: 9, ServiceMs: 8, LagMs: 1, Tries: 1},
			{Time: p.bench.Add(2 * time.Second), Elapsed: 2, Script: "s", Outcome: "unfinished", Client: 1, PID: 41,
				IntendedS: 0.9, StartS: 1.1, EndS: 1.5, ResponseMs: 600, ServiceMs: 400, LagMs: 200, Tries: 1},
		}
		if len(rows) != len(want) {
			t.Fatalf("slow.csv rows %+v, want %+v", rows, want)
		}
		for i := range want {
			g, w := rows[i], want[i]
			close := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
			if !g.Time.Equal(w.Time) || !close(g.Elapsed, w.Elapsed) || g.Script != w.Script || g.Outcome != w.Outcome ||
				g.Client != w.Client || g.PID != w.PID || !close(g.IntendedS, w.IntendedS) || !close(g.StartS, w.StartS) ||
				!close(g.EndS, w.EndS) || !close(g.ResponseMs, w.ResponseMs) || !close(g.ServiceMs, w.ServiceMs) ||
				!close(g.LagMs, w.LagMs) || g.Tries != w.Tries {
				t.Errorf("row %d: %+v\nwant %+v", i, g, w)
			}
		}
		if err := dir.Finish(stubRun()); err != nil {
			t.Fatal(err)
		}

		// Slowest = 0: no file.
		dir2, err := results.Create(t.TempDir(), stubRun())
		if err != nil {
			t.Fatal(err)
		}
		set2 := metrics.NewSet(1, metrics.Layout{Scripts: 1})
		rec2 := NewRecorder(p.config(set2, dir2, time.Second, 0))
		rec2.Start(time.Now(), time.Now())
		set2.Recorder(0).Record(&committedTx)
		time.Sleep(1500 * ms)
		if _, err := rec2.Stop(time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir2.Path(), results.SlowFile)); err == nil {
			t.Error("slow.csv written without a selection")
		}
		dir2.Finish(stubRun())
	})
}

// sleepScript sleeps 1–20 ms per transaction.
const sleepScript = "\\set d random(1, 20)\nSELECT pg_sleep(:d / 1000.0);\n"

// An open run (warm-up and measured phase) of transactions of varying
// length against a real server: slow.csv holds at most N rows per
// interval, exactly min(N, the interval's transactions) of them, slowest
// first; each row's times agree with one another to the µs; the slowest of
// each interval is timeline.csv's response_max; the pids are real backends
// (non-zero, at most one per client); every transaction lies in its
// interval.
func TestRunWritesSlow(t *testing.T) {
	url := pgtest.ConnString(t)
	tgt, _, err := Inspect(context.Background(), url, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	const clients, n = 4, 5
	c := &Config{
		ConnString:      url,
		Target:          tgt,
		Scripts:         []Script{testScript(t, "sleep.sql", sleepScript)},
		Mode:            script.Simple,
		Clients:         clients,
		Threads:         1,
		Rate:            80,
		Warmup:          500 * time.Millisecond,
		Duration:        1500 * time.Millisecond,
		Interval:        500 * time.Millisecond,
		MaxTries:        1,
		Seed:            prng.Seed{Value: 7},
		Dir:             dir,
		SlowPerInterval: n,
		Tool:            results.Tool{Name: "pgtrial", Version: "test"},
	}
	r, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Measured || r.Err != nil || r.Aborted != 0 {
		t.Fatalf("result: measured %v, err %v, aborted %d", r.Measured, r.Err, r.Aborted)
	}
	timeline, err := results.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadSlow(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("slow.csv is empty")
	}
	if raw, err := os.ReadFile(filepath.Join(dir, results.SlowFile)); err == nil && testing.Verbose() {
		t.Logf("slow.csv:\n%s", raw[:min(len(raw), 700)])
	}
	byTime := map[string][]results.SlowRow{}
	for _, row := range rows {
		k := results.FormatTime(row.Time)
		byTime[k] = append(byTime[k], row)
	}
	pids := map[uint32]bool{}
	const usTol = 1.5e-3 // ms: the file's µs precision
	const skew = 0.05    // s: a transaction measured just before a tick may be recorded just after it
	prev := 0.0
	phases := map[string]bool{}
	for _, tl := range timeline {
		k := results.FormatTime(tl.Time)
		got := byTime[k]
		delete(byTime, k)
		phases[tl.Phase] = true
		kept := min(n, tl.Started+tl.Unstarted+tl.Unfinished)
		if int64(len(got)) != kept {
			t.Errorf("interval ending %.3f s (%s): %d slow rows, want %d (of %d started, %d unstarted, %d unfinished)",
				tl.Elapsed, tl.Phase, len(got), kept, tl.Started, tl.Unstarted, tl.Unfinished)
		}
		for i, row := range got {
			if math.Abs(row.Elapsed-tl.Elapsed) > 0.0005 {
				t.Errorf("row %+v: elapsed %.3f, its interval's %.3f", row, row.Elapsed, tl.Elapsed)
			}
			if d := (row.EndS-row.IntendedS)*1000 - row.ResponseMs; math.Abs(d) > usTol {
				t.Errorf("row %+v: end − intended − response = %.4f ms", row, d)
			}
			if d := (row.EndS-row.StartS)*1000 - row.ServiceMs; math.Abs(d) > usTol {
				t.Errorf("row %+v: end − start − service = %.4f ms", row, d)
			}
			if d := (row.StartS-row.IntendedS)*1000 - row.LagMs; math.Abs(d) > usTol {
				t.Errorf("row %+v: start − intended − lag = %.4f ms", row, d)
			}
			if row.EndS < prev-skew || row.EndS > tl.Elapsed+skew {
				t.Errorf("row %+v ends at %.6f s, outside its interval [%.3f, %.3f] s", row, row.EndS, prev, tl.Elapsed)
			}
			if i > 0 && row.ResponseMs > got[i-1].ResponseMs {
				t.Errorf("interval ending %.3f s: row %d slower than row %d", tl.Elapsed, i, i-1)
			}
			if row.Script != c.Scripts[0].Name || row.Tries < 1 && row.Outcome != "unstarted" {
				t.Errorf("row %+v: script or tries", row)
			}
			if row.Outcome == "committed" && (row.ServiceMs < 1 || row.ServiceMs > 1000) {
				t.Errorf("row %+v: a 1–20 ms sleep took %.3f ms", row, row.ServiceMs)
			}
			if row.Outcome != "unstarted" {
				if row.PID == 0 {
					t.Errorf("row %+v: no pid", row)
				}
				pids[row.PID] = true
			}
		}
		// timeline.csv's maximum is HDR's: the bucket's highest equivalent
		// value, within 0.1 % above the true one.
		if len(got) > 0 {
			slowest := got[0].ResponseMs
			if tl.ResponseMax < slowest-usTol || tl.ResponseMax > slowest*1.001+usTol {
				t.Errorf("interval ending %.3f s: slowest %.3f ms, timeline's response_max %.3f ms", tl.Elapsed, slowest, tl.ResponseMax)
			}
		}
		prev = tl.Elapsed
	}
	if len(byTime) != 0 {
		t.Errorf("slow rows of no timeline interval: %v", byTime)
	}
	if len(pids) == 0 || len(pids) > clients {
		t.Errorf("%d distinct pids for %d clients: %v", len(pids), clients, pids)
	}
	if !phases[results.PhaseWarmup] || !phases[results.PhaseMeasure] {
		t.Errorf("phases of the timeline %v, want both", phases)
	}
}

// A closed run cut at its end with every client in a 5 s sleep: each one's
// transaction is in slow.csv as unfinished, ending at the window's end,
// with its lower bounds (response = service, lag 0: closed model) and its
// backend's pid.
func TestRunWritesSlowCut(t *testing.T) {
	url := pgtest.ConnString(t)
	tgt, _, err := Inspect(context.Background(), url, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	const clients = 2
	c := &Config{
		ConnString: url,
		Target:     tgt,
		Scripts:    []Script{testScript(t, "long.sql", "SELECT pg_sleep(5);\n")},
		Mode:       script.Simple,
		Clients:    clients,
		Threads:    1,
		Duration:   time.Second,
		Interval:   500 * time.Millisecond,
		MaxTries:   1,
		Seed:       prng.Seed{Value: 7},
		Dir:        dir,
		Tool:       results.Tool{Name: "pgtrial", Version: "test"},
	}
	start := time.Now()
	r, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 4*time.Second {
		t.Errorf("the run took %v: the sleeps were not cut", time.Since(start))
	}
	if got := r.Summary.Total.Unfinished; got != clients {
		t.Fatalf("%d unfinished, want %d", got, clients)
	}
	rows, err := results.ReadSlow(dir)
	if err != nil {
		t.Fatal(err)
	}
	timeline, err := results.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	last := timeline[len(timeline)-1]
	if len(rows) != clients {
		t.Fatalf("slow.csv %+v, want the %d cut transactions", rows, clients)
	}
	seen := map[int]bool{}
	for _, row := range rows {
		seen[row.Client] = true
		if row.Outcome != "unfinished" || row.PID == 0 || row.Tries != 1 || !row.Time.Equal(last.Time) {
			t.Errorf("row %+v: want unfinished, a pid, 1 try, in the last interval (%v)", row, last.Time)
		}
		if math.Abs(row.EndS-c.Duration.Seconds()) > 0.01 {
			t.Errorf("row %+v ends at %.6f s, not at the window's end %v", row, row.EndS, c.Duration)
		}
		// The clients started within the first moments of the bench: the
		// lower bound is about the window.
		if row.ResponseMs < 800 || row.ResponseMs > 1010 || row.LagMs != 0 || math.Abs(row.ResponseMs-row.ServiceMs) > 1.5e-3 {
			t.Errorf("row %+v: want response = service ≈ 1000 ms, lag 0", row)
		}
	}
	if len(seen) != clients || rows[0].PID == rows[1].PID {
		t.Errorf("rows %+v: want one per client, with distinct pids", rows)
	}
	if math.Abs(last.ResponseMax-rows[0].ResponseMs) > rows[0].ResponseMs*0.001+1.5e-3 {
		t.Errorf("timeline's last response_max %.3f ms, slowest %.3f ms", last.ResponseMax, rows[0].ResponseMs)
	}
}
