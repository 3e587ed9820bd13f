package collect

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// The tests that sample pg_stat_activity or the profile see the whole
// cluster, so they do not run in parallel with other tests (a parallel
// test's queries would show up in their counts).

// wtConfig is a waits configuration writing into a temporary directory,
// its clock starting now.
func wtConfig(t *testing.T, url, source string, waitInterval, interval time.Duration) *Config {
	return &Config{
		ConnString:   url,
		Dir:          t.TempDir(),
		RunStart:     time.Now(),
		Interval:     interval,
		WaitInterval: waitInterval,
		WaitSource:   source,
	}
}

// wtRun samples src on its grid from cfg.RunStart (as Collector.loop)
// until stop is called; stop waits for the loop and closes the source.
func wtRun(t *testing.T, src source, cfg *Config) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var errs []error
	go func() {
		defer close(done)
		p := src.period()
		next := cfg.RunStart.Add(p)
		for {
			if now := time.Now(); next.Before(now) {
				next = next.Add(now.Sub(next).Truncate(p))
			}
			if !waitUntil(ctx, next) {
				return
			}
			if err := src.sample(ctx, next); err != nil && ctx.Err() == nil {
				errs = append(errs, err)
			}
			next = next.Add(p)
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
			if err := src.close(); err != nil {
				t.Errorf("close: %v", err)
			}
			for _, err := range errs {
				t.Errorf("sample: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func wtSleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

// wtBusy keeps the server busy for d, all at once: each of sleepers waits
// in pg_sleep, spinner runs a loop without waits (bounded by the clock). It
// returns when they are done.
func wtBusy(t *testing.T, ctx context.Context, d time.Duration, spinner *pgx.Conn, sleepers ...*pgx.Conn) {
	t.Helper()
	var wg sync.WaitGroup
	for _, c := range sleepers {
		wg.Go(func() {
			if _, err := c.Exec(ctx, fmt.Sprintf("SELECT pg_sleep(%g)", d.Seconds())); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Go(func() {
		if _, err := spinner.Exec(ctx, fmt.Sprintf(`DO $$ DECLARE i bigint := 0; BEGIN
			WHILE clock_timestamp() < statement_timestamp() + interval '%g s' LOOP i := i + 1; END LOOP; END $$`, d.Seconds())); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
}

// wtDB is a fresh test database and a context that ends after 20 s (or
// with the test).
func wtDB(t *testing.T) (string, context.Context) {
	t.Helper()
	url := pgtest.ConnString(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return url, ctx
}

// wtNew starts a waits source for cfg, warning to warn.
func wtNew(t *testing.T, ctx context.Context, cfg *Config, warn warnFunc) *waits {
	t.Helper()
	w, err := newWaits(ctx, cfg, warn)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func wtRows(t *testing.T, dir string) []WaitRow {
	t.Helper()
	rows, err := ReadWaits(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("waits.csv has no rows")
	}
	return rows
}

// wtIntervals groups rows by their end (elapsed ms), in file order.
func wtIntervals(rows []WaitRow) (ends []int64, by map[int64][]WaitRow) {
	by = map[int64][]WaitRow{}
	for _, r := range rows {
		ms := int64(math.Round(r.Elapsed * 1000))
		if _, ok := by[ms]; !ok {
			ends = append(ends, ms)
		}
		by[ms] = append(by[ms], r)
	}
	return ends, by
}

// wtFind is the row of class, type and event in rows (zero when none).
func wtFind(rows []WaitRow, class, typ, event string) WaitRow {
	for _, r := range rows {
		if r.Class == class && r.Type == typ && r.Event == event {
			return r
		}
	}
	return WaitRow{}
}

// wtCheckGrid asserts that the intervals end at consecutive multiples of the
// interval (the last one may end earlier: the interval still open when the
// source was closed), with plausible ticks (at most maxTicks), and that the
// time column matches elapsed_s.
func wtCheckGrid(t *testing.T, cfg *Config, ends []int64, by map[int64][]WaitRow, maxTicks int64) {
	t.Helper()
	iv := cfg.Interval.Milliseconds()
	for i, e := range ends {
		last := i == len(ends)-1
		if e%iv != 0 && !last {
			t.Errorf("row at %d ms is not on the %v grid", e, cfg.Interval)
		}
		if i > 0 && (e-ends[i-1] != iv && !last || e-ends[i-1] > iv) {
			t.Errorf("intervals ending at %d ms and %d ms are not consecutive", ends[i-1], e)
		}
		for _, r := range by[e] {
			if d := r.Time.Sub(cfg.RunStart) - time.Duration(e)*time.Millisecond; d < -time.Millisecond || d > time.Millisecond {
				t.Errorf("row %+v: time and elapsed_s disagree by %v", r, d)
			}
			if r.Ticks == 0 && r.Samples == 0 && r.Type == "" {
				// An interval the sampler missed entirely (a loaded machine):
				// an empty row keeps the timeline without holes.
				t.Logf("interval ending at %d ms: no sample", e)
			} else if r.Ticks < 1 || r.Ticks > maxTicks {
				t.Errorf("interval ending at %d ms: ticks %d, want 1..%d", e, r.Ticks, maxTicks)
			}
			if r.Source != WaitSourceActivity {
				t.Errorf("source %q", r.Source)
			}
		}
	}
}

// wtEnd is the end of the interval that ends at ms, on the wall clock.
func wtEnd(cfg *Config, ms int64) time.Time {
	return cfg.RunStart.Add(time.Duration(ms) * time.Millisecond)
}

func TestWaitsLockWait(t *testing.T) {
	url, ctx := wtDB(t)
	holder := pgtest.Connect(t, ctx, url)
	waiter := pgtest.Connect(t, ctx, url)
	if _, err := holder.Exec(ctx, "CREATE TABLE locked (x int)"); err != nil {
		t.Fatal(err)
	}

	cfg := wtConfig(t, url, WaitSourceActivity, 50*time.Millisecond, 500*time.Millisecond)
	w := wtNew(t, ctx, cfg, t.Logf)
	if w.period() != 50*time.Millisecond {
		t.Errorf("period %v, want the wait interval", w.period())
	}
	stop := wtRun(t, w, cfg)

	wtSleepUntil(cfg.RunStart.Add(600 * time.Millisecond))
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE locked IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	wtSleepUntil(cfg.RunStart.Add(1100 * time.Millisecond))
	waitStart := time.Now()
	selected := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(ctx, "SELECT count(*) FROM locked")
		selected <- err
	}()
	time.Sleep(1500 * time.Millisecond)
	commit := time.Now()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-selected; err != nil {
		t.Fatal(err)
	}
	wtSleepUntil(commit.Add(600 * time.Millisecond))
	stop()

	rows := wtRows(t, cfg.Dir)
	ends, by := wtIntervals(rows)
	wtCheckGrid(t, cfg, ends, by, 10)
	during := 0
	for _, ms := range ends {
		lock := wtFind(by[ms], WaitClassClient, "Lock", "relation")
		e := wtEnd(cfg, ms)
		start := e.Add(-cfg.Interval)
		switch {
		case !e.After(waitStart):
			if lock.Samples != 0 {
				t.Errorf("interval ending at %v (before the wait at %v): %d Lock:relation samples",
					e.Sub(cfg.RunStart), waitStart.Sub(cfg.RunStart), lock.Samples)
			}
		case start.After(waitStart.Add(50*time.Millisecond)) && e.Before(commit.Add(-100*time.Millisecond)):
			during++
			// The waiter waited through the whole interval: every sample saw it.
			if lock.Samples < lock.Ticks-1 || lock.Ticks < 8 {
				t.Errorf("interval ending at %v (inside the wait): Lock:relation %d samples of %d ticks",
					e.Sub(cfg.RunStart), lock.Samples, lock.Ticks)
			}
			if got := lock.AvgSessions(); got < 0.85 || got > 1 {
				t.Errorf("interval ending at %v: avg_sessions %.3f, want ~1", e.Sub(cfg.RunStart), got)
			}
		}
	}
	if during < 2 {
		t.Errorf("%d intervals entirely inside the 1.5 s wait, want 2 (rows %+v)", during, rows)
	}
}

func TestWaitsSleepAndCPU(t *testing.T) {
	url, ctx := wtDB(t)
	sleeper := pgtest.Connect(t, ctx, url)
	spinner := pgtest.Connect(t, ctx, url)

	cfg := wtConfig(t, url, WaitSourceActivity, 50*time.Millisecond, 500*time.Millisecond)
	w := wtNew(t, ctx, cfg, t.Logf)
	stop := wtRun(t, w, cfg)
	wtSleepUntil(cfg.RunStart.Add(100 * time.Millisecond))
	wtBusy(t, ctx, 1200*time.Millisecond, spinner, sleeper)
	wtSleepUntil(cfg.RunStart.Add(1600 * time.Millisecond))
	stop()

	rows := wtRows(t, cfg.Dir)
	ends, by := wtIntervals(rows)
	wtCheckGrid(t, cfg, ends, by, 10)
	var sleep, cpu int64
	for _, r := range rows {
		if r.Class != WaitClassClient {
			continue
		}
		switch {
		case r.Type == "Timeout" && r.Event == "PgSleep":
			sleep += r.Samples
		case r.Type == "CPU" && r.Event == "CPU":
			cpu += r.Samples
		}
	}
	// 1.2 s at 50 ms: ~24 samples each.
	if sleep < 18 || sleep > 26 {
		t.Errorf("Timeout:PgSleep %d samples, want ~24 (rows %+v)", sleep, rows)
	}
	if cpu < 18 || cpu > 26 {
		t.Errorf("CPU:CPU %d samples, want ~24 (rows %+v)", cpu, rows)
	}
	// (0.5 s, 1.0 s] is inside both: one session each on every sample.
	mid := by[1000]
	for _, k := range [][2]string{{"Timeout", "PgSleep"}, {"CPU", "CPU"}} {
		if r := wtFind(mid, WaitClassClient, k[0], k[1]); r.Ticks == 0 || r.Samples < r.Ticks-1 {
			t.Errorf("interval (0.5 s, 1 s]: %s:%s %d samples of %d ticks", k[0], k[1], r.Samples, r.Ticks)
		}
	}
}

func TestWaitsSkipsOwnAndIdleSessions(t *testing.T) {
	url, ctx := wtDB(t)
	// Another collector session (application_name pgtrial-collector) busy
	// sleeping, an idle session and one idle in a transaction: none counts.
	ours, err := connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close(context.Background())
	pgtest.Connect(t, ctx, url)
	idleTx := pgtest.Connect(t, ctx, url)
	if _, err := idleTx.Exec(ctx, "BEGIN; SELECT 1"); err != nil {
		t.Fatal(err)
	}

	cfg := wtConfig(t, url, WaitSourceActivity, 50*time.Millisecond, 250*time.Millisecond)
	w := wtNew(t, ctx, cfg, t.Logf)
	stop := wtRun(t, w, cfg)
	if _, err := ours.Exec(ctx, "SELECT pg_sleep(0.8)"); err != nil {
		t.Fatal(err)
	}
	wtSleepUntil(cfg.RunStart.Add(1000 * time.Millisecond))
	stop()

	rows := wtRows(t, cfg.Dir)
	ends, by := wtIntervals(rows)
	wtCheckGrid(t, cfg, ends, by, 5)
	if len(ends) < 3 {
		t.Errorf("%d intervals in 1 s of 250 ms, want 4", len(ends))
	}
	for _, r := range rows {
		if r.Class == WaitClassClient && (r.Type != "" || r.Event != "" || r.Samples != 0) {
			t.Errorf("client row %+v: want only empty rows (own and idle sessions are not counted)", r)
		}
		if r.Event == "PgSleep" || r.Event == "ClientRead" {
			t.Errorf("row %+v", r)
		}
	}
	for _, ms := range ends {
		if r := wtFind(by[ms], WaitClassClient, "", ""); r.Class == "" {
			t.Errorf("interval ending at %d ms has no empty client row", ms)
		}
	}
}

// TestWaitsIntervals checks the interval logic on values: an Interval that is
// not a multiple of the sampling period, skipped grid points and the partial
// interval at close.
func TestWaitsIntervals(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cfg := &Config{Dir: dir, RunStart: start, Interval: 250 * time.Millisecond, WaitInterval: 100 * time.Millisecond}
	out, err := createCSV(dir, results.WaitsFile, waitsHeader)
	if err != nil {
		t.Fatal(err)
	}
	var heard []map[string]float64
	cfg.OnSample = func(kind string, v map[string]float64) {
		if kind != KindWaits {
			t.Errorf("OnSample kind %q", kind)
		}
		heard = append(heard, v)
	}
	w := &waits{cfg: cfg, warn: t.Logf, source: WaitSourceActivity, out: out, counts: map[waitKey]int64{}}
	lock := waitKey{WaitClassClient, "Lock", "relation"}
	cpu := waitKey{WaitClassClient, "CPU", "CPU"}
	bg := waitKey{WaitClassBackground, "IO", "DataFileWrite"}
	samples := []struct {
		ms int
		d  map[waitKey]int64
	}{
		{100, map[waitKey]int64{lock: 1}},
		{200, map[waitKey]int64{lock: 2, cpu: 1}},
		{300, nil}, // crosses 250: writes (0, 250]
		{400, map[waitKey]int64{bg: 1}},
		{500, nil}, // the end of (250, 500]
		{600, map[waitKey]int64{cpu: 3}},
		// 700 and 800 … 1500 skipped (a busy machine)
		{1600, map[waitKey]int64{cpu: 1}}, // crosses 750: writes (500, 750], then empty rows for the three intervals without a sample
		{1700, nil},
	}
	for _, s := range samples {
		if err := w.record(start.Add(time.Duration(s.ms)*time.Millisecond), s.d, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, results.WaitsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := `time,elapsed_s,source,class,wait_event_type,wait_event,samples,ticks,avg_sessions
2025-01-02T03:04:05.250Z,0.250,activity,client,CPU,CPU,1,2,0.500
2025-01-02T03:04:05.250Z,0.250,activity,client,Lock,relation,3,2,1.500
2025-01-02T03:04:05.500Z,0.500,activity,background,IO,DataFileWrite,1,3,0.333
2025-01-02T03:04:05.500Z,0.500,activity,client,,,0,3,0.000
2025-01-02T03:04:05.750Z,0.750,activity,client,CPU,CPU,3,1,3.000
2025-01-02T03:04:06.000Z,1.000,activity,client,,,0,0,0.000
2025-01-02T03:04:06.250Z,1.250,activity,client,,,0,0,0.000
2025-01-02T03:04:06.500Z,1.500,activity,client,,,0,0,0.000
2025-01-02T03:04:06.700Z,1.700,activity,client,CPU,CPU,1,2,0.500
`
	if string(data) != want {
		t.Errorf("waits.csv:\n%s\nwant:\n%s", data, want)
	}
	// OnSample hears the intervals with samples, by class:type.
	wantHeard := []map[string]float64{{"client:CPU": 0.5, "client:Lock": 1.5}, {"background:IO": 1.0 / 3}, {"client:CPU": 3}, {"client:CPU": 0.5}}
	if fmt.Sprint(heard) != fmt.Sprint(wantHeard) {
		t.Errorf("OnSample heard %v, want %v", heard, wantHeard)
	}
}

func TestWaitsEvidence(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC)
	at := func(s int) string {
		ts, el := rowTime(start, start.Add(time.Duration(s)*time.Second))
		return ts + "," + el
	}
	lines := []string{
		"time,elapsed_s,source,class,wait_event_type,wait_event,samples,ticks,avg_sessions",
		at(1) + ",activity,client,Lock,relation,100,10,10.000", // before the window
		at(2) + ",activity,background,IO,DataFileWrite,30,10,3.000",
		at(2) + ",activity,client,CPU,CPU,5,10,0.500",
		at(2) + ",activity,client,Lock,relation,10,10,1.000",
		at(3) + ",activity,client,,,0,10,0.000",
		at(4) + ",activity,client,BufferPin,BufferPin,5,10,0.500",
		at(4) + ",activity,client,CPU,CPU,10,10,1.000",
		at(4) + ",activity,client,IO,DataFileRead,5,10,0.500",
		at(5) + ",activity,client,Lock,relation,50,10,5.000", // after the window
		at(4) + ",activity,client,LWLock,WALWrite,7",         // cut by a crash: no newline, missing fields
	}
	if err := os.WriteFile(filepath.Join(dir, results.WaitsFile), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadWaits(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 9 {
		t.Fatalf("ReadWaits: %d rows, want 9 (the cut line left out)", len(rows))
	}
	if r := rows[3]; r.Time != start.Add(2*time.Second) || r.Elapsed != 2 || r.Source != "activity" || r.Class != "client" ||
		r.Type != "Lock" || r.Event != "relation" || r.Samples != 10 || r.Ticks != 10 || r.AvgSessions() != 1 {
		t.Errorf("row 3: %+v", r)
	}

	got, byType, err := waitsEvidence(dir, start.Add(time.Second), start.Add(4*time.Second), time.Second, 3)
	if err != nil {
		t.Fatal(err)
	}
	// By type, every sample (IO too, which the top 3 leave out).
	for typ, want := range map[string]float64{"CPU": 15.0 / 35, "Lock": 10.0 / 35, "BufferPin": 5.0 / 35, "IO": 5.0 / 35} {
		if !wtNear(byType[typ], want) {
			t.Errorf("share of %s: %g, want %g (all: %v)", typ, byType[typ], want, byType)
		}
	}
	// Window (1 s, 4 s]: client samples CPU 15, Lock 10, BufferPin 5, IO 5
	// (35); ticks 30 (three intervals, each counted once).
	want := []results.WaitShare{
		{Type: "CPU", Event: "CPU", Samples: 15, Share: 15.0 / 35, AvgSessions: 0.5},
		{Type: "Lock", Event: "relation", Samples: 10, Share: 10.0 / 35, AvgSessions: 10.0 / 30},
		{Type: "BufferPin", Event: "BufferPin", Samples: 5, Share: 5.0 / 35, AvgSessions: 5.0 / 30}, // before IO:DataFileRead by name
	}
	if len(got) != len(want) {
		t.Fatalf("waitsEvidence: %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Type != w.Type || g.Event != w.Event || g.Samples != w.Samples || !wtNear(g.Share, w.Share) || !wtNear(g.AvgSessions, w.AvgSessions) {
			t.Errorf("waitsEvidence[%d] = %+v, want %+v", i, g, w)
		}
	}
	all, _, err := waitsEvidence(dir, start.Add(time.Second), start.Add(4*time.Second), time.Second, 10)
	if err != nil || len(all) != 4 || all[3].Type != "IO" {
		t.Errorf("top 10: %+v, %v", all, err)
	}
	// A window with no samples of active client backends.
	if got, _, err := waitsEvidence(dir, start.Add(2*time.Second), start.Add(3*time.Second), time.Second, 3); err != nil || len(got) != 0 {
		t.Errorf("empty window: %+v, %v", got, err)
	}
	if WaitTypeClass("BufferPin") != WaitTypeClass("Buffer") || WaitTypeClass("Lock") != "Lock" {
		t.Error("WaitTypeClass: BufferPin (13–18) and Buffer (19+) are one class")
	}
}

func wtNear(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestWaitsProfileDeltas checks pg_wait_sampling's delta logic on values.
func TestWaitsProfileDeltas(t *testing.T) {
	client, bgw := "client backend", "autovacuum worker"
	p := &profile{byPID: true, period: 10 * time.Millisecond, prev: map[profileKey]int64{}, probes: map[string]int64{}, pidClass: map[int32]string{}}
	row := func(pid int32, typ, event string, n int64, bt *string, own bool) profileRow {
		return profileRow{key: profileKey{pid, typ, event}, count: n, backendType: bt, own: own}
	}
	base := []profileRow{
		row(10, "Lock", "relation", 100, &client, false),
		row(11, "IO", "DataFileRead", 50, &bgw, false),
		row(12, "CPU", "CPU", 70, &client, true), // a collector
		row(13, "Client", "ClientRead", 500, &client, false),
		row(probePID, "checkpointer", "", 1000, nil, false),
		row(probePID, "walwriter", "", 900, nil, false),
	}
	if d, _, _, reset := p.deltas(base, 0); len(d) != 2 || reset {
		t.Errorf("baseline: %v %v", d, reset) // everything counts in full the first time; the caller discards it
	}
	d, ticks, estimated, reset := p.deltas([]profileRow{
		row(10, "Lock", "relation", 130, &client, false),
		row(10, "CPU", "CPU", 5, &client, false),      // new counter: in full
		row(11, "IO", "DataFileRead", 60, nil, false), // the worker exited: class remembered
		row(12, "CPU", "CPU", 90, &client, true),
		row(13, "Client", "ClientRead", 600, &client, false), // idle client: left out
		row(14, "IPC", "BufferIO", 4, nil, false),            // started and exited between reads: unknown
		row(0, "LWLock", "WALWrite", 3, nil, false),
		row(probePID, "checkpointer", "", 1070, nil, false),   // on CPU for some probes
		row(probePID, "walwriter", "", 980, nil, false),       // 80 probes
		row(probePID, "background writer", "", 5, nil, false), // new: not counted
	}, time.Second)
	want := map[waitKey]int64{
		{WaitClassClient, "Lock", "relation"}:       30,
		{WaitClassClient, "CPU", "CPU"}:             5,
		{WaitClassBackground, "IO", "DataFileRead"}: 10,
		{WaitClassAll, "IPC", "BufferIO"}:           4,
		{WaitClassAll, "LWLock", "WALWrite"}:        3,
	}
	if reset || fmt.Sprint(d) != fmt.Sprint(want) {
		t.Errorf("deltas: %v %v, want %v", d, reset, want)
	}
	if ticks != 80 || estimated {
		t.Errorf("ticks %d (estimated %v), want the checkpointer's 80 probes", ticks, estimated)
	}
	// A reset (counts went down): the new value is the delta.
	d, ticks, _, reset = p.deltas([]profileRow{row(10, "Lock", "relation", 7, &client, false), row(probePID, "checkpointer", "", 9, nil, false)}, time.Second)
	if !reset || d[waitKey{WaitClassClient, "Lock", "relation"}] != 7 || len(d) != 1 || ticks != 9 {
		t.Errorf("after a reset: %v ticks %d reset %v", d, ticks, reset)
	}
	// Without per-pid profiles everything is class "all", and the probes are
	// estimated from the time between the reads: 1.004 s / 10 ms.
	p = &profile{byPID: false, period: 10 * time.Millisecond, prev: map[profileKey]int64{}, probes: map[string]int64{}, pidClass: map[int32]string{}}
	p.deltas([]profileRow{row(0, "CPU", "CPU", 1, nil, false)}, 0)
	d, ticks, estimated, _ = p.deltas([]profileRow{row(0, "CPU", "CPU", 4, nil, false)}, 1004*time.Millisecond)
	if d[waitKey{WaitClassAll, "CPU", "CPU"}] != 3 || ticks != 100 || !estimated {
		t.Errorf("profile_pid off: %v ticks %d estimated %v", d, ticks, estimated)
	}
}

// wtHasWaitSampling says whether the server has the pg_wait_sampling files.
func wtHasWaitSampling(t *testing.T, ctx context.Context, conn *pgx.Conn) bool {
	t.Helper()
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_wait_sampling'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func TestWaitsProfileMissing(t *testing.T) {
	url, ctx := wtDB(t)

	cfg := wtConfig(t, url, WaitSourceProfile, 100*time.Millisecond, time.Second)
	_, err := newWaits(ctx, cfg, t.Logf)
	if err == nil {
		t.Fatal("pg_wait_sampling requested but not installed: no error")
	}
	for _, s := range []string{"pg_wait_sampling", "not installed", "shared_preload_libraries", "CREATE EXTENSION pg_wait_sampling", "--wait-source activity"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, results.WaitsFile)); err == nil {
		t.Error("waits.csv created by a source that failed to start")
	}

	var warned testWarnings
	cfg = wtConfig(t, url, WaitSourceAuto, 100*time.Millisecond, time.Second)
	w := wtNew(t, ctx, cfg, warned.warn)
	if w.source != WaitSourceActivity || w.period() != cfg.WaitInterval {
		t.Errorf("auto without the extension: source %s, period %v", w.source, w.period())
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if len(warned.list()) != 0 {
		t.Errorf("warnings %q: a missing extension is the usual case", warned.list())
	}

	// Installed in the database but its library not preloaded.
	conn := pgtest.Connect(t, ctx, url)
	if !wtHasWaitSampling(t, ctx, conn) {
		t.Log("pg_wait_sampling is not available on this server: the not-preloaded case is not tested")
		return
	}
	var preload string
	if err := conn.QueryRow(ctx, "SHOW shared_preload_libraries").Scan(&preload); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(preload, "pg_wait_sampling") {
		t.Skip("pg_wait_sampling is preloaded in the test cluster")
	}
	if _, err := conn.Exec(ctx, "CREATE EXTENSION pg_wait_sampling"); err != nil {
		t.Fatal(err)
	}
	cfg = wtConfig(t, url, WaitSourceProfile, 100*time.Millisecond, time.Second)
	if _, err := newWaits(ctx, cfg, t.Logf); err == nil || !strings.Contains(err.Error(), "shared_preload_libraries") {
		t.Errorf("installed, not preloaded: error %v, want one that says to preload it", err)
	}
	cfg = wtConfig(t, url, WaitSourceAuto, 100*time.Millisecond, time.Second)
	w, err = newWaits(ctx, cfg, warned.warn)
	if err != nil {
		t.Fatal(err)
	}
	if w.source != WaitSourceActivity {
		t.Errorf("auto, not preloaded: source %s", w.source)
	}
	w.close()
	if ws := warned.list(); len(ws) != 1 || !strings.Contains(ws[0], "pg_stat_activity instead") {
		t.Errorf("warnings %q", ws)
	}
}

// TestWaitsProfile runs the pg_wait_sampling source against the test cluster
// with the library preloaded (localpg preloads it when installed; else two
// restarts of the shared cluster: not parallel). Skipped when the server has no pg_wait_sampling.
func TestWaitsProfile(t *testing.T) {
	cluster := pgtest.Cluster(t)
	url := pgtest.ConnString(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn := pgtest.Connect(t, ctx, url)
	if !wtHasWaitSampling(t, ctx, conn) {
		t.Skip("pg_wait_sampling is not installed for this server (e.g. apt-get install postgresql-15-pg-wait-sampling)")
	}
	var preload string
	if err := conn.QueryRow(ctx, "SHOW shared_preload_libraries").Scan(&preload); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	// The test cluster preloads it when installed (localpg's defaults);
	// otherwise (an older cluster layout) it is preloaded here.
	if !strings.Contains(preload, "pg_wait_sampling") {
		wtPreloadWaitSampling(t, ctx, cluster, preload)
	}
	conn = pgtest.Connect(t, ctx, url)
	spinner := pgtest.Connect(t, ctx, url)
	if _, err := conn.Exec(ctx, "CREATE EXTENSION pg_wait_sampling"); err != nil {
		t.Fatal(err)
	}
	ours, err := connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close(context.Background())

	var warned testWarnings
	cfg := wtConfig(t, url, WaitSourceAuto, 100*time.Millisecond, 500*time.Millisecond)
	w := wtNew(t, ctx, cfg, warned.warn)
	if w.source != WaitSourceProfile || w.period() != cfg.Interval {
		t.Fatalf("auto with pg_wait_sampling: source %s, period %v (warnings %q)", w.source, w.period(), warned.list())
	}
	stop := wtRun(t, w, cfg)
	wtSleepUntil(cfg.RunStart.Add(100 * time.Millisecond))
	wtBusy(t, ctx, 1300*time.Millisecond, spinner, conn, ours) // ours: a collector's session, left out
	wtSleepUntil(cfg.RunStart.Add(1600 * time.Millisecond))
	stop()

	rows := wtRows(t, cfg.Dir)
	ends, by := wtIntervals(rows)
	if len(ends) < 2 {
		t.Fatalf("%d intervals: %+v", len(ends), rows)
	}
	for _, r := range rows {
		if r.Source != WaitSourceProfile {
			t.Errorf("source %q", r.Source)
		}
		// 500 ms at profile_period 10 ms: at most 50 probes, in practice
		// 20–30 % fewer.
		if r.Ticks < 20 || r.Ticks > 51 {
			t.Errorf("row %+v: ticks, want up to 50", r)
		}
		if r.Type == "Activity" || r.Class == WaitClassClient && r.Event == "ClientRead" {
			t.Errorf("row %+v: idle states are left out", r)
		}
	}
	// (0.5 s, 1 s] is inside the sleeps and the loop: one session each
	// (ours left out), seen on every probe; CPU only when the release
	// samples it (sample_cpu), else a warning says it is missing.
	var sampleCPU string
	if err := conn.QueryRow(ctx, "SELECT coalesce(current_setting('pg_wait_sampling.sample_cpu', true), 'absent')").Scan(&sampleCPU); err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"Timeout", "PgSleep"}}
	if sampleCPU == "on" {
		want = append(want, [2]string{"CPU", "CPU"})
	}
	for _, k := range want {
		r := wtFind(by[1000], WaitClassClient, k[0], k[1])
		if got := r.AvgSessions(); got < 0.9 || got > 1.05 {
			t.Errorf("interval (0.5 s, 1 s]: %s:%s %+v, avg_sessions %.3f, want ~1 (rows %+v)", k[0], k[1], r, got, rows)
		}
	}
	ws := warned.list()
	switch {
	case sampleCPU == "on" && len(ws) != 0:
		t.Errorf("warnings %q", ws)
	case sampleCPU != "on" && (len(ws) != 1 || !strings.Contains(ws[0], "CPU does not appear")):
		t.Errorf("sample_cpu %s: warnings %q, want one about CPU", sampleCPU, ws)
	}
}

// phaseSource records when each sample was taken and for which grid point.
type phaseSource struct {
	p     time.Duration
	mu    sync.Mutex
	taken []time.Time // when sample was called
	grid  []time.Time // the t it was called with
}

func (s *phaseSource) period() time.Duration { return s.p }
func (s *phaseSource) randomPhase() bool     { return true }
func (s *phaseSource) close() error          { return nil }
func (s *phaseSource) sample(_ context.Context, t time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.taken, s.grid = append(s.taken, time.Now()), append(s.grid, t)
	return nil
}

// TestRandomPhaseSampling: a random-phase source is sampled once per
// period, at an instant spread over the period and never after its grid
// point by more than timer latency, and the sample is recorded as the grid
// point's. A fixed phase would alias with a periodic load.
func TestRandomPhaseSampling(t *testing.T) {
	const p = 20 * time.Millisecond
	start := time.Now()
	c := &Collector{cfg: Config{RunStart: start, Interval: 100 * time.Millisecond}}
	src := &phaseSource{p: p}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.last.Store(start.Add(40 * p).UnixNano())
	c.loop(ctx, runningSource{kind: "phase", src: src})
	if len(src.grid) < 30 {
		t.Fatalf("%d samples in 40 periods", len(src.grid))
	}
	var early int
	offsets := make([]float64, len(src.grid))
	for i, g := range src.grid {
		if d := g.Sub(start); d%p != 0 {
			t.Fatalf("sample %d recorded at %v, not a grid point", i, d)
		}
		if i > 0 && !g.After(src.grid[i-1]) {
			t.Fatalf("grid points not increasing: %v then %v", src.grid[i-1], g)
		}
		off := g.Sub(src.taken[i]) // how long before its grid point
		if off >= p {
			t.Errorf("sample %d taken %v before its grid point (period %v)", i, off, p)
		}
		if off > p/2 {
			early++
		}
		offsets[i] = off.Seconds()
	}
	// Uniform on [0, p): half the samples in the first half of the period.
	// At a fixed phase (the grid point) none would be; P(≤ 3 of 30) < 1e-5.
	if early <= 3 {
		t.Errorf("%d of %d samples in the first half of their period: not random (offsets %v)", early, len(src.grid), offsets)
	}
}

// TestRandomInstantClamp: the random instant stays inside the row interval
// of its grid point when the row interval is not a multiple of the period.
func TestRandomInstantClamp(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &Collector{cfg: Config{RunStart: start, Interval: time.Second}}
	p := 300 * time.Millisecond
	for k := 1; k <= 10; k++ {
		next := start.Add(time.Duration(k) * p)
		rowStart := start.Add((next.Sub(start) - 1) / time.Second * time.Second)
		for range 200 {
			at := c.randomInstant(next, p)
			if at.After(next) || !at.After(next.Add(-p)) || !at.After(rowStart) {
				t.Fatalf("grid %v: instant %v outside (%v, %v] ∩ row (%v, …]", next.Sub(start), at.Sub(start), next.Add(-p).Sub(start), next.Sub(start), rowStart.Sub(start))
			}
		}
	}
}

// wtPreloadWaitSampling adds pg_wait_sampling to the shared cluster's
// shared_preload_libraries (a restart) and takes it out again after the test.
func wtPreloadWaitSampling(t *testing.T, ctx context.Context, cluster *localpg.Cluster, preload string) {
	t.Helper()
	libs := "pg_wait_sampling"
	if preload != "" {
		libs = preload + ",pg_wait_sampling"
	}
	if _, err := cluster.Set(ctx, []localpg.Setting{{Name: "shared_preload_libraries", Value: libs}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		admin, err := cluster.Connect(ctx, "postgres")
		if err == nil {
			_, err = admin.Exec(ctx, "ALTER SYSTEM RESET shared_preload_libraries")
			admin.Close(ctx)
		}
		if err == nil {
			err = cluster.Restart(ctx)
		}
		if err != nil {
			t.Errorf("restore shared_preload_libraries: %v", err)
		}
	})
}
