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
	aggStarts  []int64 // an aggregate log's interval starts (epoch s), first few
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
}

type curScript struct {
	stats metrics.Stats
	c     [3]metrics.BucketCounts
	used  bool
}

func newWorker(cfg *Config, sh *shared) *worker {
	return &worker{cfg: cfg, sh: sh, ivUS: cfg.Interval.Microseconds(), cur: -1}
}

// maxOpen bounds the files a worker reads at once.
const maxOpen = 16

// files reads the logs paths, at most maxOpen at a time, into the shared
// intervals, interleaved by interval: each round takes the earliest
// interval any of the files has next and reads from every file the lines
// of that interval, so that the worker packs one interval once for all
// its files (pgbench writes a thread's lines in the order they end).
func (w *worker) files(ctx context.Context, paths []string) ([]*fileInfo, error) {
	var infos []*fileInfo
	for len(paths) > 0 {
		n := min(len(paths), maxOpen)
		in, err := w.group(ctx, paths[:n])
		if err != nil {
			return nil, err
		}
		infos = append(infos, in...)
		paths = paths[n:]
	}
	return infos, nil
}

type source struct {
	f    *os.File
	r    *pgbenchfmt.LogReader
	info *fileInfo
	next int64 // the interval of the line read and not yet counted
	done bool
}

func (w *worker) group(ctx context.Context, paths []string) ([]*fileInfo, error) {
	srcs := make([]*source, 0, len(paths))
	defer func() {
		for _, s := range srcs {
			s.r.Close()
			s.f.Close()
		}
	}()
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("analyze: %w", err)
		}
		r, err := pgbenchfmt.NewLogReader(f, path)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("analyze: %w", err)
		}
		s := &source{f: f, r: r, info: &fileInfo{path: path, compressed: r.Compressed()}}
		srcs = append(srcs, s)
		if err := w.advance(s); err != nil {
			return nil, err
		}
		if !s.done && r.Kind() == pgbenchfmt.LogAggregate {
			// An aggregate log: its few lines are intervals of their own.
			for !s.done {
				w.aggLine(&r.Agg, s.info)
				if err := w.advance(s); err != nil {
					return nil, err
				}
			}
		}
	}
	w.cur = -1
	for lines := 0; ; {
		k, any := int64(0), false
		for _, s := range srcs {
			if !s.done && (!any || s.next < k) {
				k, any = s.next, true
			}
		}
		if !any {
			break
		}
		if k != w.cur {
			w.flush()
			w.cur = k
		}
		for _, s := range srcs {
			for !s.done && s.next == k {
				w.txLine(&s.r.Tx)
				if err := w.advance(s); err != nil {
					return nil, err
				}
				if lines++; lines&0xffff == 0 && ctx.Err() != nil {
					return nil, fmt.Errorf("analyze %s: %w", s.info.path, ctx.Err())
				}
			}
		}
	}
	w.flush()
	infos := make([]*fileInfo, len(srcs))
	for i, s := range srcs {
		s.info.kind, s.info.lines = s.r.Kind(), s.r.Line()
		infos[i] = s.info
	}
	return infos, nil
}

// advance reads s's next line and its interval.
func (w *worker) advance(s *source) error {
	ok, err := s.r.Next()
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	if !ok {
		s.done = true
		return nil
	}
	if s.r.Kind() == pgbenchfmt.LogTransactions {
		end := s.r.Tx.End()
		if end >= s.next && end < s.next+w.ivUS && s.r.Line() > 1 {
			return nil // the same interval as the last line: no division
		}
		k := end - mod(end, w.ivUS)
		if k < s.next {
			w.outOfOrder++
		}
		s.next = k
	}
	return nil
}

// txLine accounts one per-transaction line, of the interval w.cur: the one
// its end (the time of writing) falls in.
func (w *worker) txLine(t *pgbenchfmt.TxLine) {
	end := t.End() // in the interval w.cur (files reads it)
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
