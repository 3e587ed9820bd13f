// Package livemetrics serves a run's figures while it runs, for Prometheus
// (`--metrics-addr` of run, pgbench, experiment and demo): counters of the
// transactions by outcome, response, service and lag as histograms (native
// and classic buckets), the target and achieved rate, the phase, and the
// collectors' gauges (waits by type, checkpoints, WAL bytes). It has its own
// registry (no global state) and is fed by the caller from the run's hooks:
// Begin at a run's start, Interval after each recorded interval, Phase at a
// phase change, Sample from the collectors, End when the run is over. It
// holds one run at a time: an experiment's next run replaces the series of
// the one before (their run_id label changes).
package livemetrics

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/pgtrial/pgtrial/internal/metrics"
)

// Phases of the pgtrial_phase gauge: before the clients are connected, the
// two phases of a run (results.PhaseWarmup, results.PhaseMeasure) and after
// its end.
const (
	PhaseStarting = "starting"
	PhaseWarmup   = "warmup"
	PhaseMeasure  = "measure"
	PhaseDone     = "done"
)

var phases = []string{PhaseStarting, PhaseWarmup, PhaseMeasure, PhaseDone}

// Sample kinds (collect.KindWaits, collect.KindServer).
const (
	SampleWaits  = "waits"
	SampleServer = "server"
)

// failedClasses are the failure classes of pgtrial_transactions_failed_total's
// class label, in metrics.Outcome's order.
var failedClasses = []metrics.Outcome{metrics.FailedSerialization, metrics.FailedDeadlock,
	metrics.FailedOther, metrics.FailedConnection, metrics.FailedTimeout}

// ClassicBuckets are the upper bounds (s) of the histograms' classic
// buckets, for Prometheus servers without native histograms: 100 µs to 60 s
// in 1-2-5 steps.
var ClassicBuckets = []float64{0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05,
	0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 60}

// NativeSchema is the native histograms' schema: bucket boundaries at
// powers of 2^(2^-3) ≈ 1.09, the schema client_golang picks for
// NativeHistogramBucketFactor 1.1.
const NativeSchema = 3

// Run is who a run is, for its labels and gauges.
type Run struct {
	ID      string   // run_id label: the run directory's name
	Variant string   // variant label ("" outside an experiment)
	Scripts []string // script label, by script index
	Rate    float64  // target rate, tx/s; 0: closed model (no pgtrial_target_rate)
	Clients int
}

// Metrics is the live state of the current run and its registry.
type Metrics struct {
	reg *prometheus.Registry
	d   descs

	mu    sync.Mutex
	run   Run
	begun bool
	start time.Time
	phase string
	// per script, cumulative over the run (both phases)
	scripts []scriptState
	// achieved is the committed rate of the last interval, tx/s.
	achieved float64
	// waits are the last waits interval's average sessions by (class, type).
	waits map[waitKey]float64
	// checkpoints (by kind) and wal are the server counters' sums since Begin.
	checkpoints map[string]float64
	wal         float64
	walSeen     bool
}

type waitKey struct{ class, typ string }

type scriptState struct {
	stats                  metrics.Stats
	response, service, lag hist
}

// New is an empty Metrics with its registry.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), d: newDescs()}
	m.reg.MustRegister(collector{m})
	return m
}

// Registry is the registry the server serves.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Begin starts a run: the series of the run before are gone, the counters
// start at 0 and the phase is "starting".
func (m *Metrics) Begin(r Run) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r.Scripts = slices.Clone(r.Scripts)
	m.run, m.begun, m.start, m.phase = r, true, time.Now(), PhaseStarting
	m.scripts = make([]scriptState, len(r.Scripts))
	for i := range m.scripts {
		m.scripts[i] = newScriptState()
	}
	m.achieved = 0
	m.waits = nil
	m.checkpoints = map[string]float64{}
	m.wal, m.walSeen = 0, false
}

func newScriptState() scriptState {
	return scriptState{response: newHist(), service: newHist(), lag: newHist()}
}

// Phase sets the current phase (results.PhaseWarmup, results.PhaseMeasure,
// or one of this package's).
func (m *Metrics) Phase(phase string) {
	m.mu.Lock()
	m.phase = phase
	m.mu.Unlock()
}

// End marks the run over (phase "done"); its series stay until the next
// Begin, so that a last scrape sees the final counts.
func (m *Metrics) End() { m.Phase(PhaseDone) }

// Interval adds one recorded interval (trial.Tick's Interval and Phase): the
// outcome counters and the histograms of every script, and the achieved
// rate. It reads iv only during the call. Cost: one pass over each
// histogram's recorded buckets (hist.add), none per transaction.
func (m *Metrics) Interval(phase string, iv *metrics.Interval) {
	if iv == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.begun {
		return
	}
	if phase != "" {
		m.phase = phase
	}
	for i := range iv.Scripts {
		if i == len(m.scripts) {
			m.scripts = append(m.scripts, newScriptState())
		}
		s, h := &m.scripts[i], &iv.Scripts[i]
		s.stats.Merge(&h.Stats)
		s.response.add(h.Response)
		s.service.add(h.Service)
		s.lag.add(h.Lag)
	}
	if sec := iv.Duration().Seconds(); sec > 0 {
		m.achieved = float64(iv.Total.Stats.Count) / sec
	}
}

// Sample takes a collector's values (collect.Config.OnSample): SampleWaits'
// average sessions by "class:type" of the last interval replace the ones
// before; SampleServer's deltas by server.csv column add up
// (checkpoints_timed, checkpoints_requested, wal_bytes). Other kinds and
// columns are ignored.
func (m *Metrics) Sample(kind string, values map[string]float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.begun {
		return
	}
	switch kind {
	case SampleWaits:
		m.waits = make(map[waitKey]float64, len(values))
		for k, v := range values {
			class, typ, ok := cut(k)
			if !ok || !finite(v) {
				continue
			}
			m.waits[waitKey{class, typ}] += v
		}
	case SampleServer:
		for col, kind := range map[string]string{"checkpoints_timed": "timed", "checkpoints_requested": "requested"} {
			if v, ok := values[col]; ok && finite(v) && v >= 0 {
				m.checkpoints[kind] += v
			}
		}
		if v, ok := values["wal_bytes"]; ok && finite(v) && v >= 0 {
			m.wal += v
			m.walSeen = true
		}
	}
}

func cut(s string) (before, after string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// hist is a histogram's cumulative state in Prometheus' terms, added to
// from HDR histograms. A prometheus.Histogram has no bulk add, and
// observing each recorded value count times costs a call per transaction
// (at 50,000 tx/s, 150,000 calls a second for the three histograms); this
// keeps the native buckets (256 of them cover 1 µs–1 h at schema 3), the classic buckets' counts, count, sum and the zero bucket,
// and the collector emits them as a const histogram at each scrape. Adding
// an interval is one pass over its HDR buckets up to its largest value.
//
// A value is placed in the native and classic buckets by its HDR bucket's
// lowest equivalent value, at most 0.1 % below it at 3 significant digits:
// a value on a boundary (2 s) counts in the boundary's bucket (le = 2), as
// Prometheus counts v ≤ le, and one up to 0.1 % above it may too. The sum
// is Σ count × the HDR bucket's midpoint, within 0.05 %.
// The histograms hold what the run's HDR histograms hold: committed
// transactions and the lower bounds of those cut at the window's end
// (unstarted, unfinished), so their count exceeds the committed counter by
// the cut ones (pgtrial_transactions_cut_total).
type hist struct {
	count   uint64
	sum     float64           // s
	zero    uint64            // values of 0 µs
	native  [nativeSpan]int64 // native bucket nativeMin + i
	classic []uint64          // counts per ClassicBuckets bound (not cumulative); beyond the last: count − Σ
}

// The native buckets of metrics' range, 1 µs to 1 h: ⌈log2(1e-6)·8⌉ = −159
// to ⌈log2(3600)·8⌉ = 95 (indices outside are clamped to the ends).
const (
	nativeMin  = -160
	nativeSpan = 256
)

func newHist() hist {
	return hist{classic: make([]uint64, len(ClassicBuckets))}
}

// add adds x's values. x has metrics' geometry (metrics.NewHistogram), whose
// counts array is read directly (hdrValue); any other is read through its
// Distribution, ~10 times slower (BenchmarkHistAdd).
func (h *hist) add(x *hdrhistogram.Histogram) {
	if x == nil || x.TotalCount() == 0 {
		return
	}
	if !pgtrialGeometry(x) {
		for _, b := range x.Distribution() {
			h.addBucket(b.From, b.To, b.Count)
		}
		return
	}
	total := x.TotalCount()
	var seen int64
	for idx, n := range x.Export().Counts {
		if n <= 0 {
			continue
		}
		from, to := hdrValue(idx)
		h.addBucket(from, to, n)
		if seen += n; seen >= total {
			break
		}
	}
}

// addBucket adds n values of the HDR bucket [from, to] (µs).
func (h *hist) addBucket(from, to, n int64) {
	if n <= 0 {
		return
	}
	v := float64(from) / 1e6 // s
	h.count += uint64(n)
	h.sum += float64(n) * float64(from+to) / 2 / 1e6
	if v <= 0 {
		h.zero += uint64(n)
	} else {
		h.native[min(max(nativeIndex(v)-nativeMin, 0), nativeSpan-1)] += n
	}
	if i, _ := slices.BinarySearch(ClassicBuckets, v); i < len(ClassicBuckets) {
		h.classic[i] += uint64(n)
	}
}

// nativeIndex is the native bucket of v > 0 at NativeSchema: the i with
// base^(i−1) < v ≤ base^i, base = 2^(2^−schema), i.e. ⌈log2(v)·2^schema⌉.
func nativeIndex(v float64) int {
	return int(math.Ceil(math.Log2(v) * (1 << NativeSchema)))
}

// HDR's layout at metrics' geometry (lowest 1, 3 significant digits): unit
// magnitude 0, 2048 sub-buckets, half of them 1024 (2^10). The counts
// index idx < 2048 is the value idx (bucket 0, width 1); above, bucket
// b = idx/1024 − 1 ≥ 1 holds the values (1024 + idx mod 1024)·2^b of
// width 2^b.
const (
	hdrSubBucketHalfMagnitude = 10
	hdrSubBucketHalfCount     = 1 << hdrSubBucketHalfMagnitude
)

func pgtrialGeometry(x *hdrhistogram.Histogram) bool {
	return x.LowestTrackableValue() == metrics.HistLowest && x.SignificantFigures() == metrics.HistSigFigs
}

// hdrValue is the range of values [from, to] (µs) of counts index idx.
func hdrValue(idx int) (from, to int64) {
	if idx < 2*hdrSubBucketHalfCount {
		return int64(idx), int64(idx)
	}
	b := idx>>hdrSubBucketHalfMagnitude - 1
	sub := int64(idx&(hdrSubBucketHalfCount-1) + hdrSubBucketHalfCount)
	from = sub << b
	return from, from + 1<<b - 1
}

// descs are the metrics' descriptions.
type descs struct {
	committed, failed, skipped, dropped, retried, retries, cut *prometheus.Desc
	response, service, lag                                     *prometheus.Desc
	targetRate, achievedRate, clients, phase                   *prometheus.Desc
	waits, checkpoints, wal                                    *prometheus.Desc
}

var (
	runLabels    = []string{"run_id", "variant"}
	scriptLabels = []string{"run_id", "variant", "script"}
)

func newDescs() descs {
	with := func(base []string, more ...string) []string { return append(slices.Clone(base), more...) }
	return descs{
		committed: prometheus.NewDesc("pgtrial_transactions_committed_total", "Committed transactions since the run's start (warm-up included).", scriptLabels, nil),
		failed:    prometheus.NewDesc("pgtrial_transactions_failed_total", "Failed transactions by failure class (serialization, deadlock, other, connection, timeout).", with(scriptLabels, "class"), nil),
		skipped:   prometheus.NewDesc("pgtrial_transactions_skipped_total", "Transactions skipped under the latency limit (-L) of a rate.", scriptLabels, nil),
		dropped:   prometheus.NewDesc("pgtrial_transactions_dropped_total", "Scheduled slots dropped: no client was free (open model, drop policy).", scriptLabels, nil),
		retried:   prometheus.NewDesc("pgtrial_transactions_retried_total", "Transactions tried more than once, committed or failed.", scriptLabels, nil),
		retries:   prometheus.NewDesc("pgtrial_retries_total", "Retries: the sum of tries - 1.", scriptLabels, nil),
		cut:       prometheus.NewDesc("pgtrial_transactions_cut_total", "Transactions cut at the measured window's end (unstarted, unfinished); the histograms hold their lower bounds.", with(scriptLabels, "outcome"), nil),
		response:  prometheus.NewDesc("pgtrial_response_seconds", "Response time from the intended start (committed and cut transactions).", scriptLabels, nil),
		service:   prometheus.NewDesc("pgtrial_service_seconds", "Service time from the actual start (committed and unfinished transactions).", scriptLabels, nil),
		lag:       prometheus.NewDesc("pgtrial_lag_seconds", "Schedule lag: actual start - intended start (0 in the closed model).", scriptLabels, nil),

		targetRate:   prometheus.NewDesc("pgtrial_target_rate", "The open model's target rate, transactions per second (absent in the closed model).", runLabels, nil),
		achievedRate: prometheus.NewDesc("pgtrial_achieved_rate", "Committed transactions per second in the last recorded interval.", runLabels, nil),
		clients:      prometheus.NewDesc("pgtrial_clients", "Clients of the run.", runLabels, nil),
		phase:        prometheus.NewDesc("pgtrial_phase", "1 for the run's current phase (starting, warmup, measure, done), 0 for the others.", with(runLabels, "phase"), nil),

		waits:       prometheus.NewDesc("pgtrial_wait_sessions", "Average sessions in a wait-event type over the collectors' last interval (class client or background; type CPU: active without a wait event).", with(runLabels, "class", "type"), nil),
		checkpoints: prometheus.NewDesc("pgtrial_checkpoints_total", "Checkpoints started on the server since the run's start, by kind (timed, requested).", with(runLabels, "kind"), nil),
		wal:         prometheus.NewDesc("pgtrial_wal_bytes_total", "WAL bytes written by the server since the run's start (pg_stat_wal.wal_bytes).", runLabels, nil),
	}
}

func (d *descs) all() []*prometheus.Desc {
	return []*prometheus.Desc{d.committed, d.failed, d.skipped, d.dropped, d.retried, d.retries, d.cut,
		d.response, d.service, d.lag, d.targetRate, d.achievedRate, d.clients, d.phase,
		d.waits, d.checkpoints, d.wal}
}

// collector emits the current run's state at each scrape.
type collector struct{ m *Metrics }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.m.d.all() {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.begun {
		return
	}
	d := &m.d
	run := []string{m.run.ID, m.run.Variant}
	gauge := func(desc *prometheus.Desc, v float64, labels ...string) {
		ch <- constMetric(desc, prometheus.GaugeValue, v, labels)
	}
	counter := func(desc *prometheus.Desc, v float64, labels ...string) {
		ch <- constMetric(desc, prometheus.CounterValue, v, labels)
	}
	for i := range m.scripts {
		s := &m.scripts[i]
		name := ""
		if i < len(m.run.Scripts) {
			name = m.run.Scripts[i]
		}
		sl := append(slices.Clone(run), name)
		st := &s.stats
		counter(d.committed, float64(st.Count), sl...)
		for _, o := range failedClasses {
			counter(d.failed, float64(st.Outcome[o]), append(slices.Clone(sl), o.String())...)
		}
		counter(d.skipped, float64(st.Skipped()), sl...)
		counter(d.dropped, float64(st.Dropped()), sl...)
		counter(d.retried, float64(st.Retried), sl...)
		counter(d.retries, float64(st.Retries), sl...)
		counter(d.cut, float64(st.Unstarted()), append(slices.Clone(sl), metrics.Unstarted.String())...)
		counter(d.cut, float64(st.Unfinished()), append(slices.Clone(sl), metrics.Unfinished.String())...)
		ch <- s.response.metric(d.response, m.start, sl)
		ch <- s.service.metric(d.service, m.start, sl)
		ch <- s.lag.metric(d.lag, m.start, sl)
	}
	if m.run.Rate > 0 {
		gauge(d.targetRate, m.run.Rate, run...)
	}
	gauge(d.achievedRate, m.achieved, run...)
	gauge(d.clients, float64(m.run.Clients), run...)
	for _, p := range phases {
		v := 0.0
		if p == m.phase {
			v = 1
		}
		gauge(d.phase, v, append(slices.Clone(run), p)...)
	}
	for k, v := range m.waits {
		gauge(d.waits, v, append(slices.Clone(run), k.class, k.typ)...)
	}
	for _, kind := range []string{"timed", "requested"} {
		if v, ok := m.checkpoints[kind]; ok {
			counter(d.checkpoints, v, append(slices.Clone(run), kind)...)
		}
	}
	if m.walSeen {
		counter(d.wal, m.wal, run...)
	}
}

// constMetric is a const metric, or an invalid one saying why (a label
// value that is not UTF-8): a bad name never panics the scrape.
func constMetric(desc *prometheus.Desc, t prometheus.ValueType, v float64, labels []string) prometheus.Metric {
	m, err := prometheus.NewConstMetric(desc, t, v, labels...)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}

// metric is h as a const histogram with both native buckets (schema
// NativeSchema) and classic ones (ClassicBuckets).
func (h *hist) metric(desc *prometheus.Desc, created time.Time, labels []string) prometheus.Metric {
	native := map[int]int64{}
	for i, n := range h.native {
		if n > 0 {
			native[nativeMin+i] = n
		}
	}
	nm, err := prometheus.NewConstNativeHistogram(desc, h.count, h.sum, native, nil, h.zero,
		NativeSchema, prometheus.DefNativeHistogramZeroThreshold, created, labels...)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	buckets := make([]*dto.Bucket, len(ClassicBuckets))
	var cum uint64
	for i, le := range ClassicBuckets {
		cum += h.classic[i]
		buckets[i] = &dto.Bucket{CumulativeCount: new(cum), UpperBound: new(le)}
	}
	return withClassic{Metric: nm, buckets: buckets}
}

// withClassic adds classic buckets to a const native histogram.
type withClassic struct {
	prometheus.Metric
	buckets []*dto.Bucket
}

func (w withClassic) Write(out *dto.Metric) error {
	if err := w.Metric.Write(out); err != nil {
		return err
	}
	if out.Histogram != nil {
		out.Histogram.Bucket = w.buckets
	}
	return nil
}
