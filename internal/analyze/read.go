package analyze

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/pgbenchfmt"
)

// maxScripts bounds script_no (pgbench allows 128 scripts).
const maxScripts = 128

// maxClientID bounds the client ids counted as distinct clients.
const maxClientID = 1 << 20

// acc is what all files give for one interval: per script the sums and the
// packed histograms (metrics.Packed: response, service, lag).
type acc struct {
	scripts []accScript
}

type accScript struct {
	stats metrics.Stats
	hists [3][]metrics.Packed // response, service, lag: one per flush of a file
}

// shared is what the workers merge into, under mu.
type shared struct {
	mu        sync.Mutex
	intervals map[int64]*acc // by interval start, epoch µs
}

// fileInfo is what one file told.
type fileInfo struct {
	path       string
	kind       pgbenchfmt.LogKind
	compressed bool
	lines      int64
	cols       map[int]int64 // lines by column count
	aggStarts  []int64       // an aggregate log's interval starts (epoch s), first few
}

// worker reads files one after the other; its state is reused.
type worker struct {
	cfg  *Config
	sh   *shared
	ivUS int64 // per-transaction logs: the interval, µs

	exact exact // committed latencies, µs

	cur     int64 // start of the current interval, epoch µs
	scripts []curScript
	pack    metrics.Packed // Pack's scratch

	// The window: earliest intended start and latest end, epoch µs.
	minStart, maxEnd int64
	seen             bool
	clients          []bool
	lagSeen          bool  // a schedule_lag column was read
	retriesSeen      bool  // a retries column was read
	failedPlain      int64 // "failed" lines (no --failures-detailed)
	outOfOrder       int64 // lines whose end was before the previous line's interval

	// Aggregate logs.
	aggLagNonZero bool
	aggCols       map[int]int64
}

type curScript struct {
	stats metrics.Stats
	c     [3]metrics.BucketCounts
	used  bool
}

func newWorker(cfg *Config, sh *shared) *worker {
	return &worker{cfg: cfg, sh: sh, ivUS: cfg.Interval.Microseconds(), cur: -1, aggCols: map[int]int64{}}
}

// file reads one log into the shared intervals.
func (w *worker) file(ctx context.Context, path string) (*fileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	defer f.Close()
	r, err := pgbenchfmt.NewLogReader(f, path)
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	defer r.Close()
	info := &fileInfo{path: path, compressed: r.Compressed(), cols: map[int]int64{}}
	w.cur = -1
	for n := 0; ; n++ {
		if n&0xffff == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("analyze %s: %w", path, ctx.Err())
		}
		ok, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("analyze: %w", err)
		}
		if !ok {
			break
		}
		if r.Kind() == pgbenchfmt.LogAggregate {
			w.aggLine(&r.Agg, info)
		} else {
			w.txLine(&r.Tx)
			info.cols[r.Tx.Cols]++
		}
	}
	w.flush()
	info.kind, info.lines = r.Kind(), r.Line()
	return info, nil
}

// txLine accounts one per-transaction line: its interval is the one its
// end (the time of writing) falls in.
func (w *worker) txLine(t *pgbenchfmt.TxLine) {
	end := t.End()
	start := end - end%w.ivUS
	if start != w.cur {
		if start < w.cur {
			w.outOfOrder++
		}
		w.flush()
		w.cur = start
	}
	if t.Client < maxClientID {
		if int(t.Client) >= len(w.clients) {
			w.clients = append(w.clients, make([]bool, int(t.Client)+1-len(w.clients))...)
		}
		w.clients[t.Client] = true
	}
	script := int(min(t.Script, maxScripts-1))
	for script >= len(w.scripts) {
		w.scripts = append(w.scripts, curScript{})
	}
	s := &w.scripts[script]
	s.used = true

	// The optional columns: with 8, lag then retries; with 7, the one the
	// user says (default lag: -R is far more common than --max-tries alone).
	var lag, retries int64
	switch t.Cols {
	case 8:
		lag, retries = t.Col7, t.Col8
		w.lagSeen, w.retriesSeen = true, true
	case 7:
		if w.cfg.Col7Retries {
			retries = max(t.Col7, 0)
			w.retriesSeen = true
		} else {
			lag = t.Col7
			w.lagSeen = true
		}
	}
	tx := metrics.Tx{Script: script, Tries: uint32(min(retries, 1<<31)) + 1}
	switch t.Status {
	case pgbenchfmt.TxCommitted:
		tx.Outcome = metrics.Committed
		tx.Response, tx.Lag = t.Latency, max(lag, 0)
		tx.Service = max(t.Latency-tx.Lag, 0) // pgbench's latency includes the lag under -R
		s.c[0].Record(tx.Response)
		s.c[1].Record(tx.Service)
		s.c[2].Record(tx.Lag)
		w.exact.add(t.Latency)
	case pgbenchfmt.TxSkipped:
		tx.Outcome, tx.Tries = metrics.Skipped, 0
	case pgbenchfmt.TxSerialization:
		tx.Outcome = metrics.FailedSerialization
	case pgbenchfmt.TxDeadlock:
		tx.Outcome = metrics.FailedDeadlock
	case pgbenchfmt.TxFailed:
		tx.Outcome = metrics.FailedOther
		w.failedPlain++
	default:
		tx.Outcome = metrics.FailedOther
	}
	s.stats.Add(&tx, 0)
	w.window(end-tx.Response, end)
}

func (w *worker) window(start, end int64) {
	if !w.seen || start < w.minStart {
		w.minStart = start
	}
	if !w.seen || end > w.maxEnd {
		w.maxEnd = end
	}
	w.seen = true
}

// flush merges the current interval into the shared ones.
func (w *worker) flush() {
	if w.cur < 0 {
		return
	}
	w.sh.mu.Lock()
	defer w.sh.mu.Unlock()
	a := w.sh.intervals[w.cur]
	if a == nil {
		a = &acc{}
		w.sh.intervals[w.cur] = a
	}
	for len(a.scripts) < len(w.scripts) {
		a.scripts = append(a.scripts, accScript{})
	}
	for i := range w.scripts {
		s := &w.scripts[i]
		if !s.used {
			continue
		}
		as := &a.scripts[i]
		as.stats.Merge(&s.stats)
		for k := range s.c {
			// Kept apart, merged when the interval is written: merging here
			// would decode the interval's union again for every file.
			if s.c[k].Count() > 0 {
				w.pack = s.c[k].Pack(w.pack[:0])
				as.hists[k] = append(as.hists[k], slices.Clone(w.pack)) // no spare capacity
			}
		}
		*s = curScript{c: s.c}
	}
}

// aggLine accounts one aggregate line: an interval of its own.
func (w *worker) aggLine(a *pgbenchfmt.AggLine, info *fileInfo) {
	w.aggCols[a.Cols]++
	if len(info.aggStarts) < 64 {
		info.aggStarts = append(info.aggStarts, a.Start)
	}
	st := metrics.Stats{Count: a.Count, Retried: a.Retried, Retries: a.Retries}
	st.Outcome[metrics.Committed] = a.Count
	st.Outcome[metrics.Skipped] = a.Skipped
	st.Outcome[metrics.FailedSerialization] = a.Serialization
	st.Outcome[metrics.FailedDeadlock] = a.Deadlock
	st.Outcome[metrics.FailedOther] = a.Other
	if a.Count > 0 {
		st.Latency = metrics.Summary{N: a.Count, Sum: a.SumLat, Sum2: a.Sum2Lat, Min: a.MinLat, Max: a.MaxLat}
		if a.Cols >= 10 {
			st.Lag = metrics.Summary{N: a.Count, Sum: a.SumLag, Sum2: a.Sum2Lag, Min: a.MinLag, Max: a.MaxLag}
			if a.SumLag != 0 || a.MaxLag != 0 {
				w.aggLagNonZero = true
			}
		}
	}
	startUS := a.Start * 1_000_000
	w.window(startUS, startUS)
	w.sh.mu.Lock()
	defer w.sh.mu.Unlock()
	ac := w.sh.intervals[startUS]
	if ac == nil {
		ac = &acc{scripts: make([]accScript, 1)}
		w.sh.intervals[startUS] = ac
	}
	ac.scripts[0].stats.Merge(&st)
}
