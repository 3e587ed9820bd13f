package results

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// The rule of Window.Holds at its edges: a row counts by its midpoint.
func TestWindowHolds(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	w := Window{From: at(1000), To: at(5000)}
	sec := time.Second
	for _, tc := range []struct {
		name   string
		end    time.Time
		length time.Duration
		want   bool
	}{
		{"row ending at From", at(1000), sec, false},
		{"first row inside", at(2000), sec, true},
		{"row ending at To", at(5000), sec, true},
		{"last collector row 400 ms late", at(5400), sec, true},
		{"row mostly after To", at(5600), sec, false},
		{"row mostly before From", at(1400), sec, false},
		{"row mostly after From", at(1600), sec, true},
		{"midpoint exactly on To", at(5500), sec, true},
		{"midpoint exactly on From", at(1500), sec, false},
		{"instant at From", at(1000), 0, false},
		{"instant just after From", at(1001), 0, true},
		{"instant at To", at(5000), 0, true},
		{"instant after To", at(5001), 0, false},
		{"negative length is an instant", at(5001), -sec, false},
	} {
		if got := w.Holds(tc.end, tc.length); got != tc.want {
			t.Errorf("%s: Holds(%v, %v) = %v, want %v", tc.name, tc.end.Sub(t0), tc.length, got, tc.want)
		}
	}
	// Adjacent windows share no row.
	a, b := Window{From: at(0), To: at(3000)}, Window{From: at(3000), To: at(6000)}
	for ms := 0; ms <= 7000; ms += 250 {
		if a.Holds(at(ms), sec) && b.Holds(at(ms), sec) {
			t.Errorf("row ending at %d ms is in both adjacent windows", ms)
		}
	}
	if (Window{}).Holds(t0, sec) || (Window{}).Known() || !w.Known() {
		t.Error("a zero window must hold nothing and be unknown")
	}
}

// The run's clock starts at the first phase event; timeline.csv counts from
// it, and run.json records it as bench_start.
func TestDirClock(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run := &Run{StartedAt: start, Model: Model{Kind: ModelClosed, Clients: 1}}
	d, err := Create(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, ok := d.Clock().Zero(); ok {
		t.Fatal("clock started before any phase event")
	}
	bench := start.Add(137 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	waited := make(chan time.Time, 1)
	go func() {
		z, _ := d.Clock().Wait(ctx)
		waited <- z
	}()
	if err := d.Event(Event{Time: bench, Kind: EventPhase, Phase: PhaseWarmup}); err != nil {
		t.Fatal(err)
	}
	if err := d.Event(Event{Time: bench.Add(time.Second), Kind: EventPhase, Phase: PhaseMeasure}); err != nil {
		t.Fatal(err)
	}
	if z := <-waited; !z.Equal(bench) {
		t.Errorf("Wait = %v, want the first phase event's %v", z, bench)
	}
	set := metrics.NewSet(1, metrics.Layout{Scripts: 1})
	for k := 1; k <= 3; k++ {
		if err := d.WriteInterval(PhaseMeasure, set.Tick(bench.Add(time.Duration(k-1)*time.Second), bench.Add(time.Duration(k)*time.Second)), []string{"s"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Finish(run); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range rows {
		if r.Elapsed != float64(k+1) {
			t.Errorf("row %d: elapsed_s %v, want %d (from the bench start, not started_at)", k, r.Elapsed, k+1)
		}
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.BenchStart.Equal(bench) || !loaded.StartedAt.Equal(start) {
		t.Errorf("run.json: bench_start %v started_at %v, want %v and %v", loaded.BenchStart, loaded.StartedAt, bench, start)
	}
}

// Each collector format round-trips through its writer and reader, headers
// exactly as the files have always had them.
func TestCollectorFormatsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	zero := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	end := zero.Add(2 * time.Second)

	w, err := CreateWaits(dir)
	if err != nil {
		t.Fatal(err)
	}
	wr := WaitRow{Time: end, Elapsed: 2, Source: "activity", Class: "client", Type: "Lock", Event: "relation", Samples: 7, Ticks: 10}
	if err := w.Write(wr.Record()); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]string{"too", "short"}); err == nil {
		t.Error("a row shorter than the header was written")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateWaits(dir); err == nil {
		t.Error("CreateWaits over an existing file succeeded")
	}
	data, _ := os.ReadFile(filepath.Join(dir, WaitsFile))
	want := "time,elapsed_s,source,class,wait_event_type,wait_event,samples,ticks,avg_sessions\n" +
		"2026-01-02T03:04:07.000Z,2.000,activity,client,Lock,relation,7,10,0.700\n"
	if string(data) != want {
		t.Errorf("waits.csv\n%s\nwant\n%s", data, want)
	}
	got, err := ReadWaits(dir)
	if err != nil || len(got) != 1 || got[0] != wr {
		t.Errorf("ReadWaits = %+v, %v; want %+v", got, err, wr)
	}

	o, err := CreateOS(dir, []string{"sda"})
	if err != nil {
		t.Fatal(err)
	}
	or := OSRow{Time: end, ElapsedS: 2, Source: "proc", US: 12.5, ClientCPU: math.NaN(),
		Disks: []DiskRow{{Name: "sda", ReadsPerS: 3, Util: 40}}}
	if err := o.Write(or.Record()); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadOS(dir)
	if err != nil || len(rows) != 1 {
		t.Fatalf("ReadOS = %d rows, %v", len(rows), err)
	}
	r := rows[0]
	if r.US != 12.5 || !math.IsNaN(r.ClientCPU) || len(r.Disks) != 1 || r.Disks[0].Name != "sda" || r.Disks[0].Util != 40 || !r.Time.Equal(end) {
		t.Errorf("ReadOS row %+v", r)
	}
	if h := OSHeader(nil); h[len(h)-1] != "client_cpu" || !slices.Contains(OSHeader([]string{"sda"}), "disk_sda_aqu_sz") {
		t.Errorf("os.csv header %v", OSHeader([]string{"sda"}))
	}

	if _, err := ReadServer(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadServer without server.csv: %v, want fs.ErrNotExist", err)
	}
}

// experiment.json round-trips; a newer schema is refused.
func TestExperimentFile(t *testing.T) {
	dir := t.TempDir()
	type rec struct {
		Schema int    `json:"schema"`
		Name   string `json:"name"`
	}
	if err := WriteExperiment(dir, minimalExperiment("x"), nil); err != nil {
		t.Fatal(err)
	}
	var got rec
	if err := ReadExperiment(dir, &got); err != nil || got.Name != "x" || got.Schema != ExperimentSchema {
		t.Errorf("ReadExperiment = %+v, %v", got, err)
	}
	// A newer pgtrial's file (which this one's writer would refuse in tests:
	// its schema is not v1's).
	newer, _ := json.Marshal(&rec{Schema: ExperimentSchema + 1})
	if err := os.WriteFile(filepath.Join(dir, ExperimentFile), newer, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ReadExperiment(dir, &got); err == nil {
		t.Error("a newer schema was read")
	}
	if err := ReadExperiment(t.TempDir(), &got); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing experiment.json: %v", err)
	}
}

// minimalExperiment is the smallest experiment.json that its schema
// (schema/experiment.schema.json) accepts: the fields that are always written.
func minimalExperiment(name string) map[string]any {
	return map[string]any{
		"schema": ExperimentSchema, "name": name, "started_at": "2026-01-02T03:04:05Z",
		"tool": map[string]any{"name": "pgtrial"}, "target": map[string]any{},
		"workload": "pgbench", "model": "closed", "warmup_s": 0, "window_s": 1,
		"repeats": 1, "interleave": false, "seed": 1, "variants": []any{}, "runs": []any{},
	}
}

// In tests the writers validate run.json and experiment.json against their
// published schemas, and refuse a file that breaks them, saying where.
func TestWritersValidateInTests(t *testing.T) {
	run := &Run{StartedAt: time.Now(), Model: Model{Kind: "sideways", Clients: 1}}
	_, err := Create(t.TempDir(), run)
	if err == nil || !strings.Contains(err.Error(), "/model/kind") || !strings.Contains(err.Error(), "run.schema.json") {
		t.Errorf("Create of a run with model kind %q: %v, want the schema's complaint about /model/kind", run.Model.Kind, err)
	}
	dir := t.TempDir()
	err = WriteExperiment(dir, map[string]int{"schema": ExperimentSchema}, nil)
	if err == nil || !strings.Contains(err.Error(), "experiment.schema.json") {
		t.Errorf("WriteExperiment of a record without its fields: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, ExperimentFile)); !errors.Is(serr, fs.ErrNotExist) {
		t.Errorf("the refused experiment.json was written: %v", serr)
	}
}

// TestTimelineSessions: the session columns round-trip, and a timeline
// written before them reads with zero counts.
func TestTimelineSessions(t *testing.T) {
	var b strings.Builder
	w, err := newTimelineWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	row := TimelineRow{Time: time.Date(2026, 12, 4, 0, 0, 1, 0, time.UTC), Phase: PhaseMeasure, Connected: 2000, ConnectedMax: 2000, Busy: 3, Idle: 1997}
	if err := w.write(&row); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, TimelineFile), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadTimeline(dir)
	if err != nil || len(rows) != 1 {
		t.Fatalf("read: %v, %d rows", err, len(rows))
	}
	if r := rows[0]; r.Connected != 2000 || r.ConnectedMax != 2000 || r.Busy != 3 || r.Idle != 1997 {
		t.Errorf("read back %+v", r)
	}
	old := "time,elapsed_s,phase,started,committed,failed,retried,skipped,dropped,tps,response_p50_ms,response_p95_ms,response_p99_ms,response_max_ms,lag_p99_ms,unstarted,unfinished\n" +
		"2025-03-01T12:00:01.000Z,1.000,measure,3,2,1,1,1,0,2.000,1.000,1.000,1.000,1.000,0.100,0,0\n"
	if err := os.WriteFile(filepath.Join(dir, TimelineFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	rows, err = ReadTimeline(dir)
	if err != nil || len(rows) != 1 || rows[0].Committed != 2 || rows[0].Connected != 0 || rows[0].Idle != 0 {
		t.Errorf("old file: %v, %+v", err, rows)
	}
}

// TestSummaryPeakConnected: the summary's peak is the measured phase's
// highest connected_max.
func TestSummaryPeakConnected(t *testing.T) {
	s := metrics.NewSet(3, metrics.Layout{Scripts: 1})
	ss := s.Sessions(1)
	t0 := time.Unix(0, 0)
	ph := metrics.NewInterval(s.Layout())
	for k, n := range []int{3, -1, -1} {
		for ; n > 0; n-- {
			ss.Connect()
		}
		if n < 0 {
			ss.Disconnect()
		}
		ph.Merge(s.Tick(t0.Add(time.Duration(k)*time.Second), t0.Add(time.Duration(k+1)*time.Second)))
	}
	if sum := Summarize(ph, nil, 0); sum.PeakConnected != 3 || ph.Sessions.Connected != 1 {
		t.Errorf("peak %d (want 3), connected at the end %d (want 1)", sum.PeakConnected, ph.Sessions.Connected)
	}
}
