package trial

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

func TestParseSegment(t *testing.T) {
	for _, tt := range []struct {
		in       string
		i, n     int
		errorHas string
	}{
		{"0/4", 0, 4, ""},
		{" 3/4 ", 3, 4, ""},
		{"0/1", 0, 1, ""},
		{"4/4", 0, 0, "i must be 0 to n−1 = 3"},
		{"-1/4", 0, 0, "i must be"},
		{"1/0", 0, 0, "n must be 1 to 1000"},
		{"1", 0, 0, "want i/n"},
		{"a/b", 0, 0, "want i/n"},
	} {
		i, n, err := ParseSegment(tt.in)
		if tt.errorHas == "" {
			if err != nil || i != tt.i || n != tt.n {
				t.Errorf("%q: %d/%d, %v", tt.in, i, n, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tt.errorHas) {
			t.Errorf("%q: error %v, want %q", tt.in, err, tt.errorHas)
		}
	}
}

// The segments of a load are the one generator's threads and clients, cut
// in order: together every client once, each with its group, stream and
// client id; the rate split evenly; the streams the whole load's.
func TestSegmentsMakeTheWholeLoad(t *testing.T) {
	for _, tc := range []struct {
		clients, threads, n int
		rate                float64
	}{
		{10, 4, 2, 1000}, {10, 4, 4, 1000}, {7, 6, 3, 0}, {2000, 8, 4, 1000}, {5, 5, 5, 37.5}, {4, 8, 4, 100}, // 8 threads capped at 4 clients
	} {
		threads := min(tc.threads, tc.clients)
		whole := prng.Derive(42, tc.clients, threads, false)
		var clients []prng.State
		var threadStreams []prng.ThreadStreams
		var rate float64
		next := 0
		for i := range tc.n {
			s, err := NewSegment(i, tc.n, tc.clients, tc.threads, tc.rate)
			if err != nil {
				t.Fatalf("%+v segment %d: %v", tc, i, err)
			}
			if s.FirstClient != next || s.SegThreads != threads/tc.n || s.FirstThread != i*threads/tc.n {
				t.Errorf("%+v segment %d: %+v", tc, i, s)
			}
			// The segment's clients, dealt to its threads as the engine deals
			// them, are in the same threads as in the whole load.
			for c := range s.SegClients {
				if g, want := engine.GroupOf(c, s.SegClients, s.SegThreads)+s.FirstThread, engine.GroupOf(s.FirstClient+c, tc.clients, threads); g != want {
					t.Errorf("%+v segment %d: client %d in thread %d, the whole load's %d", tc, i, s.FirstClient+c, g, want)
				}
			}
			next += s.SegClients
			st := s.streams(42, false)
			clients = append(clients, st.Clients...)
			threadStreams = append(threadStreams, st.Threads...)
			if st.DefaultSeed != whole.DefaultSeed || st.RandomSeed != whole.RandomSeed {
				t.Errorf("%+v segment %d: seeds differ from the whole load's", tc, i)
			}
			rate += s.SegRate()
		}
		if next != tc.clients || !reflect.DeepEqual(clients, whole.Clients) || !reflect.DeepEqual(threadStreams, whole.Threads) {
			t.Errorf("%+v: the segments' %d clients and streams are not the whole load's", tc, next)
		}
		if d := rate - tc.rate; d > 1e-9 || d < -1e-9 {
			t.Errorf("%+v: rates add to %g", tc, rate)
		}
	}
	if _, err := NewSegment(0, 3, 10, 4, 100); err == nil || !strings.Contains(err.Error(), "give -j a multiple of 3") {
		t.Errorf("4 threads in 3 segments: %v", err)
	}
}

// A segment's client ids are the whole load's: :client_id of its first
// client is the segment's FirstClient.
func TestSegmentClientID(t *testing.T) {
	s, err := NewSegment(1, 2, 10, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.firstClient() != 5 || (*Segment)(nil).firstClient() != 0 {
		t.Errorf("first client %d", s.firstClient())
	}
	if r := s.result(); r.Index != 1 || r.Count != 2 || r.FirstClient != 5 || r.Clients != 10 {
		t.Errorf("run.json's segment %+v", r)
	}
}

// Two segments started apart with one StartAt begin on that instant (their
// bench starts within a millisecond of it), each at half the rate, and
// record which segment they were and the server's clock at their start and
// end.
func TestSegmentsStartTogether(t *testing.T) {
	url := pgtest.ConnString(t)
	tgt, _, err := Inspect(context.Background(), url, false)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	at := time.Now().Add(1500 * time.Millisecond)
	const rate = 200.0
	var wg sync.WaitGroup
	res := make([]*Result, 2)
	errs := make([]error, 2)
	for i := range 2 {
		seg, err := NewSegment(i, 2, 4, 2, rate)
		if err != nil {
			t.Fatal(err)
		}
		seg.StartAt = at
		c := &Config{
			ConnString: url, Target: tgt,
			Scripts: []Script{testScript(t, "select1.sql", "SELECT 1;\n")},
			Mode:    script.Simple, Clients: seg.SegClients, Threads: seg.SegThreads, Rate: seg.SegRate(), Arrival: engine.Uniform,
			Segment:  seg,
			Duration: 2 * time.Second, Interval: 500 * time.Millisecond, MaxTries: 1, Seed: prng.Seed{Value: 7},
			Dir:  filepath.Join(root, strconv.Itoa(i)),
			Tool: results.Tool{Name: "pgtrial", Version: "test"},
		}
		if i == 1 {
			time.Sleep(300 * time.Millisecond) // started apart
		}
		wg.Go(func() { res[i], errs[i] = Run(context.Background(), c) })
	}
	wg.Wait()
	var committed int64
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("segment %d: %v", i, errs[i])
		}
		if d := res[i].Engine.BenchStart.Sub(at); d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("segment %d: bench start %v from StartAt", i, d)
		}
		run, err := results.Load(filepath.Join(root, strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		s := run.Segment
		if s == nil || s.Index != i || s.Count != 2 || s.Clients != 4 || s.FirstClient != 2*i || len(s.Clock) != 2 || !s.StartAt.Equal(at) {
			t.Fatalf("segment %d: run.json's segment %+v (warnings %q)", i, s, run.Warnings)
		}
		for _, off := range s.Clock {
			// The server is on this host: one clock, read within its round trip.
			if off.RTTMs <= 0 || off.RTTMs > 1000 || off.OffsetMs > off.RTTMs/2+5 || off.OffsetMs < -off.RTTMs/2-5 {
				t.Errorf("segment %d: clock reading %+v", i, off)
			}
		}
		if run.Model.Rate != rate/2 || run.Model.Clients != 2 {
			t.Errorf("segment %d: model %+v", i, run.Model)
		}
		committed += run.Summary.Total.Committed
		checkSegmentCollectors(t, filepath.Join(root, strconv.Itoa(i)), run)
	}
	// Together the whole schedule: 200 tx/s over the 2 s window, uniform.
	if committed < 360 || committed > 410 {
		t.Errorf("the segments committed %d together, want ~400", committed)
	}
}

// checkSegmentCollectors checks that only segment 0 watched the server: the
// others have no server information, waits, statements or server counters,
// say why, and record their own machine's OS metrics.
func checkSegmentCollectors(t *testing.T, dir string, run *results.Run) {
	t.Helper()
	i := run.Segment.Index
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	if i == 0 {
		if run.Server == nil || run.Host == nil || run.Segment.Host != nil || !exists(results.WaitsFile) || !exists(results.ServerFile) {
			t.Errorf("segment 0 did not collect: server %v, host %v, segment host %v", run.Server != nil, run.Host != nil, run.Segment.Host != nil)
		}
		return
	}
	if run.Server != nil || run.Host != nil || run.Segment.Host == nil || run.Segment.Host.Hostname == "" {
		t.Errorf("segment %d: server %v, host %v, its own host %+v", i, run.Server != nil, run.Host != nil, run.Segment.Host)
	}
	if !slices.Equal(run.Collectors, []string{collect.KindOS}) {
		t.Errorf("segment %d: collectors %v, want only os", i, run.Collectors)
	}
	for _, f := range []string{results.WaitsFile, results.ServerFile, results.StatementsFile, results.PlansFile} {
		if exists(f) {
			t.Errorf("segment %d wrote %s", i, f)
		}
	}
	if !exists(results.OSFile) {
		t.Errorf("segment %d: no %s of its own machine", i, results.OSFile)
	}
	if run.Evidence == nil || !strings.Contains(run.Evidence.Missing[collect.KindWaits], "segment 0 collects") {
		t.Errorf("segment %d: evidence missing %v", i, run.Evidence)
	}
	for _, w := range run.Warnings {
		if strings.Contains(w, "collector") {
			t.Errorf("segment %d: warning %q", i, w)
		}
	}
}
