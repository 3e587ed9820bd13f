package livemetrics

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// interval is one interval of two scripts: script 0 commits n transactions
// of response 150 µs, 3 ms and 2 s in turn (service = response, lag 0),
// has 2 serialization failures, 1 retried, 1 skipped; script 1 commits one
// of 0 µs.
func interval(start time.Time, n int) *metrics.Interval {
	iv := metrics.NewInterval(metrics.Layout{Scripts: 2})
	iv.Start, iv.End = start, start.Add(time.Second)
	values := []int64{150, 3000, 2_000_000}
	s := &iv.Scripts[0]
	for i := range n {
		v := values[i%len(values)]
		metrics.RecordValue(s.Response, v)
		metrics.RecordValue(s.Service, v)
		metrics.RecordValue(s.Lag, 0)
	}
	s.Stats.Count, s.Stats.Outcome[metrics.Committed] = int64(n), int64(n)
	s.Stats.Outcome[metrics.FailedSerialization] = 2
	s.Stats.Outcome[metrics.Skipped] = 1
	s.Stats.Retried, s.Stats.Retries = 1, 3
	t := &iv.Scripts[1]
	metrics.RecordValue(t.Response, 0)
	metrics.RecordValue(t.Service, 0)
	metrics.RecordValue(t.Lag, 0)
	t.Stats.Count, t.Stats.Outcome[metrics.Committed] = 1, 1
	iv.Total.Stats.Merge(&s.Stats)
	iv.Total.Stats.Merge(&t.Stats)
	return iv
}

// fed is a Metrics after two intervals of 30 and 60 transactions of script
// 0, and collector samples.
func fed() *Metrics {
	m := New()
	m.Begin(Run{ID: "001-base-r1", Variant: "base", Scripts: []string{"tpcb-like", "select-only"}, Rate: 100, Clients: 4})
	t0 := time.Now()
	m.Phase(PhaseWarmup)
	m.Interval(PhaseWarmup, interval(t0, 30))
	m.Interval(PhaseMeasure, interval(t0.Add(time.Second), 60))
	m.Sample(SampleWaits, map[string]float64{"client:Lock": 1.5, "client:CPU": 2, "background:IO": 0.25, "nocolon": 1})
	m.Sample(SampleServer, map[string]float64{"checkpoints_timed": 1, "checkpoints_requested": 0, "wal_bytes": 8192})
	m.Sample(SampleServer, map[string]float64{"checkpoints_timed": 0, "checkpoints_requested": 2, "wal_bytes": 4096, "checkpoints_done": 7})
	return m
}

func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// series is the series of f whose labels include want.
func series(t *testing.T, f *dto.MetricFamily, want map[string]string) *dto.Metric {
	t.Helper()
	if f == nil {
		t.Fatalf("no family")
	}
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
		return m
	}
	t.Fatalf("%s: no series with %v", f.GetName(), want)
	return nil
}

func TestCountersAndGauges(t *testing.T) {
	fams := gather(t, fed())
	s0 := map[string]string{"run_id": "001-base-r1", "variant": "base", "script": "tpcb-like"}
	for name, want := range map[string]float64{
		"pgtrial_transactions_committed_total": 90,
		"pgtrial_transactions_skipped_total":   2,
		"pgtrial_transactions_retried_total":   2,
		"pgtrial_retries_total":                6,
	} {
		if got := series(t, fams[name], s0).GetCounter().GetValue(); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := Total(fams["pgtrial_transactions_committed_total"]); got != 92 {
		t.Errorf("committed over scripts = %v, want 92", got)
	}
	ser := series(t, fams["pgtrial_transactions_failed_total"], map[string]string{"script": "tpcb-like", "class": "serialization"})
	if got := ser.GetCounter().GetValue(); got != 4 {
		t.Errorf("serialization failures = %v, want 4", got)
	}
	if n := len(fams["pgtrial_transactions_failed_total"].GetMetric()); n != 2*5 {
		t.Errorf("failed series = %d, want 2 scripts × 5 classes", n)
	}
	if got := Total(fams["pgtrial_target_rate"]); got != 100 {
		t.Errorf("target rate = %v", got)
	}
	if got := Total(fams["pgtrial_achieved_rate"]); got != 61 {
		t.Errorf("achieved rate = %v, want 61 (the last interval's committed per second)", got)
	}
	if got := series(t, fams["pgtrial_phase"], map[string]string{"phase": "measure"}).GetGauge().GetValue(); got != 1 {
		t.Errorf("phase measure = %v, want 1", got)
	}
	if got := Total(fams["pgtrial_phase"]); got != 1 {
		t.Errorf("phases at 1: %v, want exactly one", got)
	}
	if got := series(t, fams["pgtrial_wait_sessions"], map[string]string{"class": "client", "type": "Lock"}).GetGauge().GetValue(); got != 1.5 {
		t.Errorf("Lock sessions = %v", got)
	}
	if n := len(fams["pgtrial_wait_sessions"].GetMetric()); n != 3 {
		t.Errorf("wait series = %d, want 3 (a key without class:type is ignored)", n)
	}
	if got := Total(fams["pgtrial_checkpoints_total"]); got != 3 {
		t.Errorf("checkpoints = %v, want 1 timed + 2 requested", got)
	}
	if got := Total(fams["pgtrial_wal_bytes_total"]); got != 12288 {
		t.Errorf("WAL bytes = %v", got)
	}
}

func TestHistograms(t *testing.T) {
	fams := gather(t, fed())
	h := series(t, fams["pgtrial_response_seconds"], map[string]string{"script": "tpcb-like"}).GetHistogram()
	if h.GetSampleCount() != 90 {
		t.Fatalf("count = %d, want 90", h.GetSampleCount())
	}
	// 30 of each value: 150 µs, 3 ms, 2 s.
	wantSum := 30 * (150e-6 + 3e-3 + 2)
	if math.Abs(h.GetSampleSum()-wantSum) > wantSum*5e-4 {
		t.Errorf("sum = %v, want %v within HDR's precision", h.GetSampleSum(), wantSum)
	}
	cum := map[float64]uint64{}
	for _, b := range h.GetBucket() {
		cum[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	for le, want := range map[float64]uint64{0.0001: 0, 0.0002: 30, 0.002: 30, 0.005: 60, 1: 60, 2: 90, 60: 90} {
		if cum[le] != want {
			t.Errorf("classic bucket le=%v: %d, want %d", le, cum[le], want)
		}
	}
	// Native: the buckets' counts (deltas) add up to the count, at schema 3.
	if h.GetSchema() != NativeSchema {
		t.Errorf("schema = %d", h.GetSchema())
	}
	var n, c int64
	for _, d := range h.GetPositiveDelta() {
		c += d
		n += c
	}
	if uint64(n)+h.GetZeroCount() != h.GetSampleCount() {
		t.Errorf("native buckets hold %d + zero %d, count %d", n, h.GetZeroCount(), h.GetSampleCount())
	}
	lag := series(t, fams["pgtrial_lag_seconds"], map[string]string{"script": "tpcb-like"}).GetHistogram()
	if lag.GetZeroCount() != 90 || lag.GetSampleSum() != 0 {
		t.Errorf("lag: zero bucket %d, sum %v; want 90 and 0", lag.GetZeroCount(), lag.GetSampleSum())
	}
}

func TestNativeIndex(t *testing.T) {
	base := math.Pow(2, 1.0/8)
	for _, c := range []struct {
		v    float64
		want int
	}{{1, 0}, {1.0001, 1}, {base * 0.9999, 1}, {base * 1.0001, 2}, {0.5, -8}, {0.4999, -8}, {1e-6, -159}} {
		if got := nativeIndex(c.v); got != c.want {
			t.Errorf("nativeIndex(%v) = %d, want %d", c.v, got, c.want)
		}
	}
}

func TestBeginReplacesRun(t *testing.T) {
	m := fed()
	m.Begin(Run{ID: "002-fast-r1", Variant: "fast", Scripts: []string{"tpcb-like"}})
	fams := gather(t, m)
	c := fams["pgtrial_transactions_committed_total"]
	if len(c.GetMetric()) != 1 || Total(c) != 0 {
		t.Fatalf("after Begin: %v", c)
	}
	series(t, c, map[string]string{"run_id": "002-fast-r1", "variant": "fast"})
	if fams["pgtrial_target_rate"] != nil || fams["pgtrial_wal_bytes_total"] != nil {
		t.Errorf("closed model without samples: target rate and WAL bytes are absent")
	}
	m.End()
	fams = gather(t, m)
	if got := series(t, fams["pgtrial_phase"], map[string]string{"phase": "done"}).GetGauge().GetValue(); got != 1 {
		t.Errorf("phase done = %v", got)
	}
}

// A script name that is not UTF-8 fails its series, not the scrape.
func TestBadLabelValue(t *testing.T) {
	m := New()
	m.Begin(Run{ID: "x", Scripts: []string{"bad\xff"}})
	m.Interval(PhaseMeasure, interval(time.Now(), 3))
	if _, err := m.Registry().Gather(); err == nil {
		t.Fatal("a non-UTF-8 label value: want an error from Gather")
	}
	srv, err := Serve("127.0.0.1:0", false, m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	fams, err := Scrape(context.Background(), srv.URL, true)
	if err != nil {
		t.Fatal(err)
	}
	if fams["pgtrial_phase"] == nil {
		t.Errorf("the other series are served: %v", fams)
	}
}

// Before Begin there is nothing; Interval and Sample are ignored.
func TestBeforeBegin(t *testing.T) {
	m := New()
	m.Interval(PhaseMeasure, interval(time.Now(), 3))
	m.Sample(SampleServer, map[string]float64{"wal_bytes": 1})
	if fams := gather(t, m); len(fams) != 0 {
		t.Errorf("before Begin: %v", fams)
	}
}

func TestServeScrape(t *testing.T) {
	m := fed()
	srv, err := Serve("127.0.0.1:0", false, m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if srv.Remote || !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || strings.HasSuffix(srv.URL, ":0/metrics") {
		t.Errorf("URL %s, remote %v", srv.URL, srv.Remote)
	}
	ctx := context.Background()
	for _, text := range []bool{false, true} {
		fams, err := Scrape(ctx, srv.URL, text)
		if err != nil {
			t.Fatal(err)
		}
		h := series(t, fams["pgtrial_response_seconds"], map[string]string{"script": "tpcb-like"}).GetHistogram()
		if h.GetSampleCount() != 90 || len(h.GetBucket()) == 0 {
			t.Errorf("text %v: count %d, %d classic buckets", text, h.GetSampleCount(), len(h.GetBucket()))
		}
		if native := len(h.GetPositiveSpan()) > 0; native == text {
			t.Errorf("text %v: native buckets %v (the protobuf format carries them, the text one cannot)", text, native)
		}
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := Scrape(ctx, srv.URL, true); err == nil {
		t.Errorf("scrape after Close: want an error")
	}
}

func TestServeLoopbackOnly(t *testing.T) {
	m := New()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0"} {
		srv, err := Serve(addr, false, m.Registry())
		if err == nil {
			srv.Close()
			t.Errorf("Serve(%q) without allowRemote: accepted", addr)
			continue
		}
		if !strings.Contains(err.Error(), "--metrics-allow-remote") {
			t.Errorf("Serve(%q): %v; want it to name --metrics-allow-remote", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0"} {
		srv, err := Serve(addr, false, m.Registry())
		if err != nil {
			if addr == "[::1]:0" && strings.Contains(err.Error(), "assign requested address") {
				t.Logf("no IPv6 loopback here: %v", err)
				continue
			}
			t.Errorf("Serve(%q): %v", addr, err)
			continue
		}
		if srv.Remote {
			t.Errorf("Serve(%q): remote", addr)
		}
		srv.Close()
	}
	for _, addr := range []string{"127.0.0.1", "nohost:port:x", "127.0.0.1:99999"} {
		if srv, err := Serve(addr, false, m.Registry()); err == nil {
			srv.Close()
			t.Errorf("Serve(%q): want an error", addr)
		}
	}
	// Allowed on purpose: served, and Remote says so.
	srv, err := Serve("0.0.0.0:0", true, m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !srv.Remote {
		t.Errorf("0.0.0.0 with allowRemote: Remote false")
	}
}
