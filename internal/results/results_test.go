package results

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func testRun() *Run {
	return &Run{
		Tool:        Tool{Name: "pgtrial", Version: "0.1.0", Commit: "abc123", Go: "go1.26"},
		CommandLine: []string{"pgtrial", "run", "--dsn", "host=db password=hunter2 dbname=bench", "-c", "4"},
		StartedAt:   t0,
		Target:      Target{Host: "db", Port: 5432, Database: "bench", User: "bench", ServerVersion: "17.2", Settings: map[string]string{"shared_buffers": "128MB"}},
		Workload:    Workload{Name: "tpcb-like", Scripts: []ScriptWeight{{Name: "tpcb-like", Weight: 1}, {Name: "select only", Weight: 2}}, Scale: 10},
		Model:       Model{Kind: ModelOpen, Clients: 4, Threads: 1, Rate: 100, Arrival: "poisson", Overload: "queue", LatencyLimitMs: 50, DurationS: 60},
		Phases:      []Phase{{Name: PhaseWarmup, Start: t0}},
	}
}

var scriptNames = []string{"tpcb-like", "select only"}

// interval i of a two-script set: i+1 committed per script, one failed,
// one skipped.
func testInterval(s *metrics.Set, i int) *metrics.Interval {
	r := s.Recorder(0)
	for j := range i + 1 {
		for sc := range 2 {
			r.Record(&metrics.Tx{Script: sc, Outcome: metrics.Committed, Tries: 1,
				Response: int64(1000 * (j + 1)), Service: int64(900 * (j + 1)), Lag: int64(100 * (j + 1))})
		}
	}
	r.Record(&metrics.Tx{Script: 0, Outcome: metrics.FailedSerialization, Tries: 2})
	r.Record(&metrics.Tx{Script: 1, Outcome: metrics.Skipped})
	start := t0.Add(time.Duration(i) * time.Second)
	return s.Tick(start, start.Add(time.Second))
}

// TestCreateWriteInterrupt writes three intervals, does not Finish (the
// process "dies"), and reads the directory back.
func TestCreateWriteInterrupt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "r1") // parents are created
	run := testRun()
	d, err := Create(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	if d.Path() != dir {
		t.Errorf("Path() = %q", d.Path())
	}
	s := metrics.NewSet(1, metrics.Layout{Scripts: 2, LatencyLimit: 50_000})
	ivs := make([]*metrics.Interval, 3)
	for i := range ivs {
		ivs[i] = testInterval(s, i)
		if err := d.WriteInterval(PhaseWarmup, ivs[i], scriptNames); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Event(Event{Kind: EventPhase, Phase: PhaseMeasure, Data: map[string]any{"n": 1}}); err != nil {
		t.Fatal(err)
	}
	// No Finish, no Close: everything must already be in the files.

	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema != Schema || got.Tool != run.Tool || got.Model != run.Model || !got.StartedAt.Equal(t0) ||
		got.Target.Settings["shared_buffers"] != "128MB" || !got.EndedAt.IsZero() || got.Summary != nil {
		t.Errorf("run.json from Create: %+v", got)
	}
	if want := []string{"pgtrial", "run", "--dsn", "host=db dbname=bench", "-c", "4"}; !slices.Equal(got.CommandLine, want) {
		t.Errorf("command line %q, want %q (password removed)", got.CommandLine, want)
	}
	if !slices.Equal(run.CommandLine, testRun().CommandLine) {
		t.Error("Create modified the caller's command line")
	}

	rows, err := ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d timeline rows, want 3", len(rows))
	}
	for i, row := range rows {
		want := NewTimelineRow(t0, PhaseWarmup, ivs[i])
		if row != want {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, row, want)
		}
		if row.Committed != int64(2*(i+1)) || row.Started != row.Committed+1 || row.Skipped != 1 || row.Retried != 1 ||
			row.Elapsed != float64(i+1) || row.TPS != float64(2*(i+1)) {
			t.Errorf("row %d: %+v", i, row)
		}
	}

	entries, err := ReadLatency(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3*9 {
		t.Fatalf("%d latency entries, want 3 intervals × 9 tags", len(entries))
	}
	for i, e := range entries {
		iv := ivs[i/9]
		if !e.Start.Equal(iv.Start) || !e.End.Equal(iv.End) {
			t.Errorf("entry %d %s: %v … %v", i, e.Tag, e.Start, e.End)
		}
	}
	if e := entries[9+6]; e.Tag != "total/response" || e.Hist.TotalCount() != 4 {
		t.Errorf("interval 1 total/response: %q with %d values, want 4", e.Tag, e.Hist.TotalCount())
	}
	if e := entries[3]; e.Tag != "select_only/response" {
		t.Errorf("tag %q", e.Tag)
	}

	events, err := ReadEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Kind != EventPhase || events[0].Phase != PhaseMeasure || events[0].Time.IsZero() || events[0].Data["n"] != 1.0 {
		t.Errorf("events: %+v", events)
	}

	// The timeline's header, exactly.
	data, err := os.ReadFile(filepath.Join(dir, TimelineFile))
	if err != nil {
		t.Fatal(err)
	}
	header, first, _ := strings.Cut(string(data), "\n")
	if want := "time,elapsed_s,phase,started,committed,failed,retried,skipped,dropped,tps,response_p50_ms,response_p95_ms,response_p99_ms,response_max_ms,lag_p99_ms,unstarted,unfinished,connected,connected_max,busy,idle"; header != want {
		t.Errorf("header\n%s\nwant\n%s", header, want)
	}
	if want := "2025-03-01T12:00:01.000Z,1.000,warmup,3,2,1,1,1,0,2.000,1.000,1.000,1.000,1.000,0.100,0,0,0,0,0,0\n"; !strings.HasPrefix(first, want) {
		t.Errorf("first row\n%s\nwant\n%s", first, want)
	}

	// Creating again in the same directory is refused.
	if _, err := Create(dir, testRun()); err == nil || !strings.Contains(err.Error(), "already holds a run") {
		t.Errorf("second Create: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := d.WriteInterval(PhaseMeasure, ivs[0], scriptNames); !errors.Is(err, ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
	if err := d.Event(Event{Kind: "x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("event after Close: %v", err)
	}
}

// TestReadersTolerateCutLines: a crash in the middle of a write leaves a
// last line without its newline; readers keep everything before it.
func TestReadersTolerateCutLines(t *testing.T) {
	dir := t.TempDir()
	d, err := Create(dir, testRun())
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.NewSet(1, metrics.Layout{Scripts: 2})
	for i := range 2 {
		if err := d.WriteInterval(PhaseMeasure, testInterval(s, i), scriptNames); err != nil {
			t.Fatal(err)
		}
		if err := d.Event(Event{Kind: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	appendTo := func(name, text string) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	appendTo(TimelineFile, "2025-03-01T12:00:03.000Z,3.0")
	appendTo(EventsFile, `{"time":"2025-03-`)
	appendTo(LatencyFile, "Tag=total/lag,2.000000,1.000000,0.000000,HISTFAAAAC")

	if rows, err := ReadTimeline(dir); err != nil || len(rows) != 2 {
		t.Errorf("timeline: %d rows, %v", len(rows), err)
	}
	if ev, err := ReadEvents(dir); err != nil || len(ev) != 2 {
		t.Errorf("events: %d, %v", len(ev), err)
	}
	if e, err := ReadLatency(dir); err != nil || len(e) != 18 {
		t.Errorf("latency: %d entries, %v", len(e), err)
	}

	// A damaged complete line is an error, with its line number.
	appendTo(EventsFile, "\nnot json\n")
	if _, err := ReadEvents(dir); err == nil || !strings.Contains(err.Error(), "events.jsonl:3") {
		t.Errorf("damaged events: %v", err)
	}
}

func TestFinishReplacesRunAtomically(t *testing.T) {
	dir := t.TempDir()
	run := testRun()
	d, err := Create(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.NewSet(1, metrics.Layout{Scripts: 2})
	phase := metrics.NewInterval(s.Layout())
	for i := range 2 {
		iv := testInterval(s, i)
		phase.Merge(iv)
		if err := d.WriteInterval(PhaseMeasure, iv, scriptNames); err != nil {
			t.Fatal(err)
		}
	}
	sum := Summarize(phase, scriptNames, run.Model.Rate)
	run.Summary = &sum
	run.EndedAt = t0.Add(2 * time.Second)
	run.Phases[0].End = t0
	run.Phases = append(run.Phases, Phase{Name: PhaseMeasure, Start: t0, End: run.EndedAt})
	run.Interrupted, run.InterruptReason = true, "SIGINT"
	run.Warnings = []string{"closed model"}
	if err := d.Finish(run); err != nil {
		t.Fatal(err)
	}

	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !got.EndedAt.Equal(run.EndedAt) || got.Summary == nil || got.Summary.Total.Committed != 6 ||
		len(got.Phases) != 2 || !got.Interrupted || got.InterruptReason != "SIGINT" || got.Warnings[0] != "closed model" {
		t.Errorf("run.json after Finish: %+v", got)
	}
	// Only run.json and the three data files: no temporary file left.
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var list []string
	for _, n := range names {
		list = append(list, n.Name())
	}
	if want := []string{EventsFile, LatencyFile, RunFile, TimelineFile}; !slices.Equal(list, want) {
		t.Errorf("files %q, want %q", list, want)
	}

	if err := d.Finish(run); !errors.Is(err, ErrClosed) {
		t.Errorf("second Finish: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close after Finish: %v", err)
	}
	if rows, err := ReadTimeline(dir); err != nil || len(rows) != 2 {
		t.Errorf("timeline after Finish: %d rows, %v", len(rows), err)
	}
}

func TestFinishFailureKeepsFiles(t *testing.T) {
	dir := t.TempDir()
	d, err := Create(dir, testRun())
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.NewSet(1, metrics.Layout{Scripts: 2})
	if err := d.WriteInterval(PhaseMeasure, testInterval(s, 0), scriptNames); err != nil {
		t.Fatal(err)
	}
	bad := testRun()
	bad.Model.Rate = math.NaN() // JSON cannot encode it: run.json cannot be rewritten
	if err := d.Finish(bad); err == nil || !strings.Contains(err.Error(), "run.json") {
		t.Fatalf("Finish of an unencodable run: %v", err)
	}
	if got, err := Load(dir); err != nil || !got.EndedAt.IsZero() || got.Model.Rate != 100 {
		t.Errorf("run.json of Create should remain: %v", err)
	}
	if rows, err := ReadTimeline(dir); err != nil || len(rows) != 1 {
		t.Errorf("timeline: %d rows, %v", len(rows), err)
	}
	if e, err := ReadLatency(dir); err != nil || len(e) != 9 {
		t.Errorf("latency: %d entries, %v", len(e), err)
	}
	if err := d.Finish(testRun()); !errors.Is(err, ErrClosed) {
		t.Errorf("Finish after a failed Finish: %v", err)
	}
}

func TestCreateRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, TimelineFile), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(dir, testRun()); err == nil {
		t.Fatal("Create used a directory holding another timeline.csv")
	}
	// Nothing of the failed Create is left behind, and the foreign file is intact.
	for _, name := range []string{RunFile, LatencyFile, EventsFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s left behind", name)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, TimelineFile)); string(data) != "x\n" {
		t.Errorf("foreign file changed: %q", data)
	}
}

func TestLoadRejects(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"unknown schema", `{"schema":"pgtrial.run/v2","tool":{"name":"pgtrial"}}`, `unknown schema "pgtrial.run/v2"`},
		{"no schema", `{"tool":{"name":"x"}}`, "not a pgtrial run directory"},
		{"not json", `schema: v1`, "load run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, RunFile), []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of an empty directory succeeded")
	}
}

func TestReadTimelineByName(t *testing.T) {
	// Columns in another order, an unknown (later) column, one missing.
	dir := t.TempDir()
	csv := "phase,time,server_tps,committed\nmeasure,2025-03-01T12:00:01.500Z,17,42\n"
	if err := os.WriteFile(filepath.Join(dir, TimelineFile), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := TimelineRow{Time: t0.Add(1500 * time.Millisecond), Phase: "measure", Committed: 42}
	if len(rows) != 1 || !rows[0].Time.Equal(want.Time) || rows[0].Phase != want.Phase || rows[0].Committed != 42 {
		t.Errorf("rows %+v", rows)
	}
	if err := os.WriteFile(filepath.Join(dir, TimelineFile), []byte("time,committed\nx,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTimeline(dir); err == nil || !strings.Contains(err.Error(), "timeline.csv:2: column time") {
		t.Errorf("bad time: %v", err)
	}
}

func TestRedactArgs(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"nothing to redact", []string{"pgbench", "-c", "4", "bench"}, []string{"pgbench", "-c", "4", "bench"}},
		{"conninfo", []string{"host=db password=secret dbname=x"}, []string{"host=db dbname=x"}},
		{"conninfo password last", []string{"host=db password=secret"}, []string{"host=db"}},
		{"conninfo password only", []string{"password=secret"}, []string{""}},
		{"quoted value with spaces and escapes", []string{`password = 'a b\'c' user=u`}, []string{"user=u"}},
		{"escaped space in unquoted value", []string{`password=a\ b user=u`}, []string{"user=u"}},
		{"sslpassword", []string{"sslpassword=k sslmode=verify-full"}, []string{"sslmode=verify-full"}},
		{"upper case keyword", []string{"PASSWORD=x host=h"}, []string{"host=h"}},
		{"flag with conninfo", []string{"--dsn=host=h password=p"}, []string{"--dsn=host=h"}},
		{"flag whose value is the password word", []string{"--dsn=password=p"}, []string{"--dsn="}},
		{"uri", []string{"postgres://alice:s3cr%40t@db:5432/bench"}, []string{"postgres://alice@db:5432/bench"}},
		{"postgresql uri, multi-host", []string{"postgresql://bob:pw@h1:5432,h2:5433/db?sslmode=require"}, []string{"postgresql://bob@h1:5432,h2:5433/db?sslmode=require"}},
		{"uri user only", []string{"postgres://alice@db/bench"}, []string{"postgres://alice@db/bench"}},
		{"uri password with @", []string{"postgres://u:p@ss@db/x"}, []string{"postgres://u@db/x"}},
		{"uri password parameter", []string{"postgres://db/x?password=p&sslmode=disable"}, []string{"postgres://db/x?sslmode=disable"}},
		{"uri only password parameter", []string{"postgres://db/x?password=p#frag"}, []string{"postgres://db/x#frag"}},
		{"uri inside a flag", []string{"--dsn=POSTGRES://u:p@db"}, []string{"--dsn=POSTGRES://u@db"}},
		{"uri and more text", []string{"see postgres://u:p@db/x and postgres://v:q@e"}, []string{"see postgres://u@db/x and postgres://v@e"}},
		{"--password=value", []string{"run", "--password=secret", "-c", "1"}, []string{"run", "-c", "1"}},
		{"bare -W and --password keep the next argument", []string{"pgbench", "-W", "-c", "4", "--password", "bench"}, []string{"pgbench", "-W", "-c", "4", "--password", "bench"}},
		{"password in a file name is not a conninfo", []string{"-f", "password_reset.sql"}, []string{"-f", "password_reset.sql"}},
		{"empty", []string{}, []string{}},
		{"nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.in)
			got := RedactArgs(tt.in)
			if !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
				t.Errorf("RedactArgs(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !slices.Equal(in, tt.in) {
				t.Error("RedactArgs modified its argument")
			}
			for _, a := range got {
				for _, secret := range []string{"secret", "s3cr", "hunter2"} {
					if strings.Contains(a, secret) {
						t.Errorf("%q still holds %q", a, secret)
					}
				}
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	l := metrics.Layout{Scripts: 2, Commands: []int{2, 1}, LatencyLimit: 3000}
	s := metrics.NewSet(2, l)
	r := s.Recorder(1)
	// Script 0: 100 committed with response 1..100 ms (service = response −
	// 1 ms, lag 1 ms), 5 failed (3 serialization, 2 deadlock), 10 skipped,
	// 20 dropped, 4 retried.
	for i := 1; i <= 100; i++ {
		tries := uint32(1)
		if i <= 4 {
			tries = 2
		}
		r.Record(&metrics.Tx{Script: 0, Outcome: metrics.Committed, Tries: tries, Response: int64(i) * 1000, Service: int64(i-1) * 1000, Lag: 1000})
	}
	for i := range 5 {
		o := metrics.FailedSerialization
		if i >= 3 {
			o = metrics.FailedDeadlock
		}
		r.Record(&metrics.Tx{Script: 0, Outcome: o, Tries: 1})
	}
	for range 10 {
		r.Record(&metrics.Tx{Script: 0, Outcome: metrics.Skipped})
	}
	for range 20 {
		r.Record(&metrics.Tx{Script: 0, Outcome: metrics.Dropped})
	}
	// Script 1: 1 committed, 250 µs.
	r.Record(&metrics.Tx{Script: 1, Outcome: metrics.Committed, Tries: 1, Response: 250, Service: 250})
	r.CommandDone(0, 1, 1500)
	r.CommandDone(0, 1, 2500)
	r.CommandError(0, 1, true)
	r.CommandError(0, 0, false)
	iv := s.Tick(t0, t0.Add(10*time.Second))

	sum := Summarize(iv, []string{"tpcb"}, 12)
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9+math.Abs(want)*1e-3 { // HDR: 0.1 %
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	if sum.Duration != 10 || sum.TargetRate != 12 {
		t.Errorf("duration %v target %v", sum.Duration, sum.TargetRate)
	}
	near("achieved rate", sum.AchievedRate, (101+5)/10.0)
	s0 := sum.Scripts[0]
	if s0.Name != "tpcb" || sum.Scripts[1].Name != "script2" || sum.Total.Name != "total" {
		t.Errorf("names %q %q %q", s0.Name, sum.Scripts[1].Name, sum.Total.Name)
	}
	if s0.Committed != 100 || s0.Failed != 5 || s0.Skipped != 10 || s0.Dropped != 20 || s0.Retried != 4 || s0.Retries != 4 || s0.Late != 97 {
		t.Errorf("counts %+v", s0)
	}
	if s0.FailedBy["serialization"] != 3 || s0.FailedBy["deadlock"] != 2 || s0.FailedBy["other"] != 0 || s0.FailedBy["timeout"] != 0 || len(s0.FailedBy) != 5 {
		t.Errorf("failed by %v", s0.FailedBy)
	}
	near("tps", s0.TPS, 10)
	near("p50", s0.Response.P50, 50)
	near("p90", s0.Response.P90, 90)
	near("p95", s0.Response.P95, 95)
	near("p99", s0.Response.P99, 99)
	near("p99.9", s0.Response.P999, 100)
	near("max", s0.Response.Max, 100)
	near("mean", s0.Response.Mean, 50.5)
	near("service p50", s0.Service.P50, 49)
	near("lag p99", s0.Lag.P99, 1)
	near("stddev", s0.Response.Stddev, math.Sqrt((100*100-1)/12.0))
	taken := 100.0 + 10 + 5
	near("skipped share", s0.SkippedShare, 10/taken)
	near("failed share", s0.FailedShare, 5/taken)
	near("retried share", s0.RetriedShare, 4/taken)
	near("dropped share", s0.DroppedShare, 20/(taken+20))
	near("late share", s0.LateShare, 97/taken)
	near("total p50", sum.Total.Response.P50, 50) // 101 values: the 51st is 50 ms
	near("script 2 max", sum.Scripts[1].Response.Max, 0.25)
	if s0.Response.Count != 100 || s0.Service.Count != 100 || sum.Total.Response.Count != 101 || sum.Scripts[1].Lag.Count != 1 {
		t.Errorf("counts the percentiles rest on: %d %d %d %d", s0.Response.Count, s0.Service.Count, sum.Total.Response.Count, sum.Scripts[1].Lag.Count)
	}
	if got := s0.Response.Beyond(0.99); got != 1 {
		t.Errorf("p99 of 100 rests on %d beyond it, want 1", got)
	}
	if sum.Total.Committed != 101 || sum.Total.Commands != nil {
		t.Errorf("total %+v", sum.Total)
	}
	wantCmds := []CommandSummary{{Index: 0, Failures: 1}, {Index: 1, Count: 2, MeanMs: 2, MaxMs: 2.5, Retries: 1}}
	if !slices.Equal(s0.Commands, wantCmds) {
		t.Errorf("commands %+v, want %+v", s0.Commands, wantCmds)
	}

	// Units and names in JSON.
	data, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"duration_s":10`, `"target_rate":12`, `"response_ms":{"p50":`, `"count":100}`, `"failed_by":{`, `"dropped_share":`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("JSON lacks %s: %s", key, data)
		}
	}
}

// TestSummarizeNearestRank: the summary's percentiles are the nearest-rank
// values ⌈q·n⌉ of the histogram, not HDR's round(q·n): of 7 responses 1…7 ms
// p90 is the 7th (⌈6.3⌉; round gives the 6th) and p50 the 4th; of 13, p95 is
// the 13th (⌈12.35⌉) and p90 the 12th (⌈11.7⌉). Fails with the round rank.
func TestSummarizeNearestRank(t *testing.T) {
	for _, tt := range []struct {
		n                  int
		p50, p90, p95, p99 float64 // ms
	}{
		{7, 4, 7, 7, 7},
		{13, 7, 12, 13, 13},
		{17, 9, 16, 17, 17}, // ⌈15.3⌉ and ⌈16.15⌉; round gives the 15th and 16th
	} {
		s := metrics.NewSet(1, metrics.Layout{Scripts: 1})
		for i := 1; i <= tt.n; i++ {
			s.Recorder(0).Record(&metrics.Tx{Outcome: metrics.Committed, Tries: 1, Response: int64(i) * 1000, Service: int64(i) * 1000})
		}
		r := Summarize(s.Tick(t0, t0.Add(time.Second)), nil, 0).Total.Response
		got := []float64{r.P50, r.P90, r.P95, r.P99}
		want := []float64{tt.p50, tt.p90, tt.p95, tt.p99}
		for i := range got {
			if math.Abs(got[i]-want[i]) > want[i]*1e-3 {
				t.Errorf("n=%d: %s = %v ms, want %v (nearest rank)", tt.n, []string{"p50", "p90", "p95", "p99"}[i], got[i], want[i])
			}
		}
		if r.Count != int64(tt.n) {
			t.Errorf("n=%d: Count %d", tt.n, r.Count)
		}
	}
}

func TestSummarizeEmpty(t *testing.T) {
	sum := Summarize(metrics.NewInterval(metrics.Layout{Scripts: 1}), nil, 0)
	if sum.Duration != 0 || sum.AchievedRate != 0 || sum.Total.TPS != 0 || sum.Total.SkippedShare != 0 ||
		sum.Total.Response.P99 != 0 || len(sum.Scripts) != 1 {
		t.Errorf("%+v", sum)
	}
	for _, v := range []float64{sum.Total.DroppedShare, sum.Total.FailedShare, sum.Total.Response.Mean} {
		if math.IsNaN(v) {
			t.Errorf("NaN in %+v", sum.Total)
		}
	}
}

// TestSummarizeCut: statement timeouts are a failure class of their own;
// slots and transactions cut at the end of the window are counted apart,
// neither committed nor failed nor in the shares, and their lower bounds
// are in the response percentiles (a stall at the end shows in the tail),
// not in the mean.
func TestSummarizeCut(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	s := metrics.NewSet(1, metrics.Layout{Scripts: 1})
	r := s.Recorder(0)
	for range 96 {
		r.Record(&metrics.Tx{Outcome: metrics.Committed, Tries: 1, Response: 1000, Service: 1000})
	}
	r.Record(&metrics.Tx{Outcome: metrics.FailedTimeout, Tries: 1})
	r.Record(&metrics.Tx{Outcome: metrics.FailedOther, Tries: 1})
	// Due 2 s and 3 s before the end; in flight for 4 s at the end.
	r.Record(&metrics.Tx{Outcome: metrics.Unstarted, Response: 2_000_000, Lag: 2_000_000})
	r.Record(&metrics.Tx{Outcome: metrics.Unstarted, Response: 3_000_000, Lag: 3_000_000})
	r.Record(&metrics.Tx{Outcome: metrics.Unfinished, Tries: 1, Response: 4_000_000, Service: 4_000_000})
	sum := Summarize(s.Tick(t0, t0.Add(10*time.Second)), nil, 10)
	tot := sum.Total
	if tot.Committed != 96 || tot.Failed != 2 || tot.FailedBy["timeout"] != 1 || tot.FailedBy["other"] != 1 ||
		tot.Unstarted != 2 || tot.Unfinished != 1 {
		t.Errorf("counts: committed %d, failed %d %v, unstarted %d, unfinished %d", tot.Committed, tot.Failed, tot.FailedBy, tot.Unstarted, tot.Unfinished)
	}
	if want := 2.0 / 98; math.Abs(tot.FailedShare-want) > 1e-12 {
		t.Errorf("failed share %v, want %v (of committed + failed)", tot.FailedShare, want)
	}
	// 99 values in the histogram: p99 is the 98th, 3 s; the max 4 s.
	if tot.Response.P99 < 2990 || tot.Response.Max < 3990 || tot.Service.Max < 3990 || tot.Lag.Max < 2990 {
		t.Errorf("response p99 %v ms, max %v ms; service max %v ms; lag max %v ms: the cut's lower bounds are missing",
			tot.Response.P99, tot.Response.Max, tot.Service.Max, tot.Lag.Max)
	}
	if tot.Response.Mean != 1 {
		t.Errorf("response mean %v ms, want 1 (committed only)", tot.Response.Mean)
	}
	if math.Abs(sum.AchievedRate-9.8) > 1e-9 {
		t.Errorf("achieved rate %v, want (committed + failed) / 10 s", sum.AchievedRate)
	}
}
