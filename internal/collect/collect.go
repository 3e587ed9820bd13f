// Package collect records what the server and the machine did during a run,
// on the run's clock (DESIGN.md §3, §6): wait events (waits.csv),
// pg_stat_statements deltas (statements.csv), server counters (server.csv),
// OS metrics (os.csv), checkpoint and autovacuum events (events.jsonl), and
// at the start what the server and its host are (run.json).
//
// # One clock
//
// Every source samples on a grid anchored at the run's clock zero, the bench
// start (results.Clock, recorded in run.json as bench_start; also the zero
// of timeline.csv's elapsed_s): t_k = zero + k·period. A row describes the
// interval (t_{k-1}, t_k] and carries "time" = t_k (RFC 3339, UTC, ms) and
// "elapsed_s" = t_k − zero, like timeline.csv, whose intervals end at
// zero + k·interval: a row at elapsed_s = 5 is the same instant in every
// file. The collectors start before the clients connect (they read their
// baselines then), so with Config.Clock their loops wait for the clock to
// start; the first row's counters then cover the time from the baseline to
// t_1 (rates use the real time between the reads). Without a Clock the grid
// is anchored at Config.RunStart.
//
// # Never in the way
//
// Collectors use their own connections (application_name
// "pgtrial-collector", which the wait sampler skips), never reset anyone's
// statistics, and degrade instead of failing: a view that is missing or not
// readable, a lost connection, a node_exporter that does not answer becomes a
// warning (Collector.Warnings, run.json and an events.jsonl "collector"
// event) and the rest of the run goes on. A source whose sample fails tries
// again on its next tick (reconnecting when the connection was lost).
package collect

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
	"github.com/pgtrial/pgtrial/internal/results"
)

// Kinds of collectors (the values of --collect).
const (
	KindWaits      = "waits"
	KindStatements = "statements"
	KindServer     = "server"
	KindOS         = "os"
)

// AllKinds are the collectors in the order they are listed.
var AllKinds = []string{KindWaits, KindStatements, KindServer, KindOS}

// ApplicationName is what the collectors' connections call themselves; the
// wait sampler leaves these sessions out of its counts.
const ApplicationName = "pgtrial-collector"

// Wait sources (--wait-source).
const (
	WaitSourceAuto     = "auto"             // pg_wait_sampling when installed in the target database, else activity
	WaitSourceActivity = "activity"         // sample pg_stat_activity
	WaitSourceProfile  = "pg_wait_sampling" // deltas of pg_wait_sampling_profile
)

// EventSink receives events for events.jsonl (results.Dir implements it).
type EventSink interface {
	Event(e results.Event) error
}

// Config says what to collect and where to write it.
type Config struct {
	// ConnString is the target server and database (URL or key=value). The
	// collectors open their own connections to it with ApplicationName.
	ConnString string
	// Dir is the run directory the CSV files are written into.
	Dir string
	// RunStart anchors the sampling grid and is the zero of elapsed_s,
	// unless Clock is set.
	RunStart time.Time
	// Clock, when set, is the run's clock (results.Dir.Clock): the sampling
	// loops and the phase marks wait for it to start and use its zero (the
	// bench start) as RunStart.
	Clock *results.Clock
	// Interval is the period of server and OS samples and of the waits
	// rows (default 1 s).
	Interval time.Duration
	// WaitInterval is the period of pg_stat_activity samples (default
	// 100 ms, 10 ms to 1 s); WaitSource chooses the wait source.
	WaitInterval time.Duration
	WaitSource   string
	// Kinds are the collectors to run (AllKinds when empty).
	Kinds []string
	// Local says the server runs on this machine (loopback or a unix
	// socket): OS metrics come from /proc. Otherwise they come from
	// NodeExporter (a node_exporter's metrics URL), or are not collected.
	Local        bool
	NodeExporter string
	// Tables are the workload's tables whose sizes go into run.json
	// (ServerInfo.Tables); empty: the pgbench_* tables (and YCSB's usertable) that exist.
	Tables []string
	// Events receives checkpoint, autovacuum and collector events (may be
	// nil).
	Events EventSink
	// CreateExtensions creates pg_stat_statements and pg_wait_sampling in
	// the target database when they are missing there but their libraries
	// are preloaded (CREATE EXTENSION IF NOT EXISTS). Only for a server
	// pgtrial owns (the local cluster, `pgtrial local`): on any other server
	// the collectors never change the database and say what is missing.
	CreateExtensions bool
	// AllStatements keeps every role's and database's statements in
	// statements.csv, each with its text (redacted); by default only the
	// run's role in the run's database has rows of its own, and the others
	// are one "other sessions" row without text (results.SessionsOthers).
	AllStatements bool
	// OnSample, if set, hears each interval's figures as they are written,
	// from the source's goroutine (it must not block or keep the map):
	// KindWaits the average sessions (samples / ticks) by "class:type" of an
	// interval with samples, KindServer the counters' deltas by server.csv
	// column (checkpoints_timed, wal_bytes, …; unknown ones left out). The
	// live metrics (`--metrics-addr`) use it.
	OnSample func(kind string, values map[string]float64)
	// ThisHostOnly makes the collectors those of a generator that is not
	// the one watching the server (a segment other than 0 of `--segment`):
	// only the OS source runs, on this machine's /proc whatever host the
	// server is on, Host describes this machine, and the server is not
	// connected to at all (no server information, waits, statements or
	// counters). Kinds other than KindOS are left out without a warning.
	ThisHostOnly bool
}

// Collector runs the sources of a run.
type Collector struct {
	cfg     Config
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	sources []runningSource
	stmts   *statements // nil without the statements collector

	server *results.ServerInfo
	host   *results.Host

	mu       sync.Mutex
	warnings []string
	stopped  bool
	last     atomic.Int64  // Stop's end (Unix ns): the loops take their last sample at or after it
	marks    chan mark     // to the mark worker (started by the first Mark)
	markDone chan struct{} // closed when the mark worker has finished
	// markCtx bounds the marks' snapshots: Stop cancels it when it gives up
	// waiting (a server that does not answer).
	markCtx    context.Context
	markCancel context.CancelFunc
	// anchored is closed once cfg.RunStart is final: at Start without a
	// Clock, else when the clock has started (or Stop gave up waiting).
	anchored chan struct{}
}

type runningSource struct {
	kind string
	src  source
}

// source is one collector. sample is called on the source's grid (every
// period() from RunStart) with the grid time t it was due at (never
// earlier; later when the machine is busy: sources compute rates from the
// real time between their reads, not from the period); it reads and appends
// the row(s) for the interval ending at t, flushed to the OS. close flushes
// and closes the source's files and connection.
type source interface {
	period() time.Duration
	sample(ctx context.Context, t time.Time) error
	close() error
}

// A randomPhaser is a source that takes each period's sample at a uniformly
// random instant of the period (t_{k-1}, t_k] instead of at its end, and
// records it as t_k's: a snapshot sampler (pg_stat_activity) on a fixed grid
// is phase-locked with a periodic load (uniform arrivals every 20 ms sampled
// every 100 ms see the same instant of every transaction: all busy or all
// idle). Random instants make the expected share of samples that see a
// state equal to the share of time spent in it, whatever the load's period.
type randomPhaser interface {
	randomPhase() bool
}

// Start reads the server and host information, then starts every source
// the configuration asks for. A source that cannot start (a missing
// extension, a view the role may not read) is left out with a warning; Start
// fails only when the server cannot be reached at all.
func Start(ctx context.Context, cfg Config) (*Collector, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.WaitInterval <= 0 {
		cfg.WaitInterval = 100 * time.Millisecond
	}
	if cfg.WaitInterval < 10*time.Millisecond || cfg.WaitInterval > time.Second {
		return nil, fmt.Errorf("wait sampling interval %v: must be between 10ms and 1s", cfg.WaitInterval)
	}
	if cfg.WaitSource == "" {
		cfg.WaitSource = WaitSourceAuto
	}
	switch cfg.WaitSource {
	case WaitSourceAuto, WaitSourceActivity, WaitSourceProfile:
	default:
		return nil, fmt.Errorf("wait source %q: want %s, %s or %s", cfg.WaitSource, WaitSourceAuto, WaitSourceActivity, WaitSourceProfile)
	}
	if len(cfg.Kinds) == 0 {
		cfg.Kinds = AllKinds
	}
	for _, k := range cfg.Kinds {
		if !slices.Contains(AllKinds, k) {
			return nil, fmt.Errorf("collector %q: want some of %s", k, strings.Join(AllKinds, ","))
		}
	}
	if cfg.RunStart.IsZero() {
		cfg.RunStart = time.Now()
	}
	if cfg.ThisHostOnly {
		cfg.Local, cfg.NodeExporter = true, "" // this machine's /proc
		if slices.Contains(cfg.Kinds, KindOS) {
			cfg.Kinds = []string{KindOS}
		} else {
			cfg.Kinds = nil
		}
	}

	c := &Collector{cfg: cfg}
	c.markCtx, c.markCancel = context.WithCancel(context.Background())
	var conn *pgx.Conn
	if !cfg.ThisHostOnly {
		var err error
		if conn, err = connect(ctx, cfg.ConnString); err != nil {
			return nil, fmt.Errorf("collectors: %w", err)
		}
	}

	// The information and the sources start side by side: each opens its
	// own connection and reads its baseline, and the run waits for the
	// slowest, not for their sum.
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if conn == nil {
			return // ThisHostOnly: the server is not read
		}
		var err error
		c.server, err = readServerInfo(ctx, conn, cfg.Tables)
		conn.Close(context.Background())
		if err != nil {
			c.warn("server information: %v", err)
		}
	}()
	go func() {
		defer wg.Done()
		var err error
		c.host, err = readHost(ctx, cfg.Local, cfg.NodeExporter)
		if err != nil {
			c.warn("host information: %v", err)
		}
	}()
	started := make([]source, len(cfg.Kinds))
	errs := make([]error, len(cfg.Kinds))
	for i, k := range cfg.Kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started[i], errs[i] = c.newSource(ctx, k)
		}()
	}
	wg.Wait()
	for i, k := range cfg.Kinds {
		if errs[i] != nil {
			c.warn("%s collector not started: %v", k, errs[i])
			continue
		}
		if k == KindStatements {
			c.stmts = started[i].(*statements)
		}
		c.sources = append(c.sources, runningSource{kind: k, src: started[i]})
		if w, ok := started[i].(*waits); ok && w.source == WaitSourceProfile {
			// activity.csv's per-pid samples, beside the profile.
			if ps, err := newPIDSampler(ctx, &c.cfg); err != nil {
				c.warn("waits: no per-backend samples (activity.csv), so the slow tail cannot be explained: %v", err)
			} else {
				c.sources = append(c.sources, runningSource{kind: kindActivity, src: ps})
			}
		}
	}

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	c.anchored = make(chan struct{})
	if cfg.Clock == nil {
		close(c.anchored)
		c.startLoops(runCtx)
		return c, nil
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(c.anchored)
		zero, err := cfg.Clock.Wait(runCtx)
		if err != nil {
			return // stopped before the clock started
		}
		c.cfg.RunStart = zero // read by the sources only after anchored
		c.startLoops(runCtx)
	}()
	return c, nil
}

// startLoops starts the sampling loop of every periodic source.
func (c *Collector) startLoops(ctx context.Context) {
	for _, s := range c.sources {
		if s.src.period() <= 0 {
			continue // sampled only at marks (statements)
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.loop(ctx, s)
		}()
	}
}

// waitUntil waits until at; false when ctx ends first.
func waitUntil(ctx context.Context, at time.Time) bool {
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// asSource is a new source, or nil with the error (not a typed nil in the
// interface).
func asSource[S source](s S, err error) (source, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// newSource starts the source of kind k.
func (c *Collector) newSource(ctx context.Context, k string) (source, error) {
	switch k {
	case KindWaits:
		return asSource(newWaits(ctx, &c.cfg, c.warn))
	case KindStatements:
		return asSource(newStatements(ctx, &c.cfg, c.warn))
	case KindServer:
		return asSource(newServer(ctx, &c.cfg, c.warn))
	case KindOS:
		return asSource(newOSStats(ctx, &c.cfg, c.warn))
	}
	return nil, fmt.Errorf("unknown collector %q", k)
}

// loop samples s on its grid until ctx is cancelled. Grid points already
// passed when a sample returns are skipped (no burst of catch-up samples).
func (c *Collector) loop(ctx context.Context, s runningSource) {
	p := s.src.period()
	next := c.cfg.RunStart.Add(p)
	for {
		if now := time.Now(); next.Before(now) {
			// Skip grid points already passed, keep the grid.
			next = next.Add(now.Sub(next).Truncate(p))
		}
		at := next
		if rp, ok := s.src.(randomPhaser); ok && rp.randomPhase() {
			at = c.randomInstant(next, p)
		}
		if !waitUntil(ctx, at) {
			return
		}
		if err := s.src.sample(ctx, next); err != nil && ctx.Err() == nil {
			c.warn("%s: %v", s.kind, err)
		}
		if last := c.last.Load(); last != 0 && next.UnixNano() >= last {
			return // the sample at or after the run's end (Stop) is taken
		}
		next = next.Add(p)
	}
}

// randomInstant is a uniformly random instant of the period (next − p,
// next], clamped to the row interval of next ((b, b + Interval] with
// b = RunStart + ⌊(next − RunStart − 1 ns)/Interval⌋·Interval) so that a
// sample recorded as next's is taken inside next's row when Interval is not
// a multiple of p.
func (c *Collector) randomInstant(next time.Time, p time.Duration) time.Time {
	at := next.Add(-time.Duration(rand.Int64N(int64(p))))
	if iv := c.cfg.Interval; iv > 0 {
		d := next.Sub(c.cfg.RunStart)
		b := c.cfg.RunStart.Add((d - 1) / iv * iv)
		if !at.After(b) {
			at = b.Add(1)
		}
	}
	return at
}

// Kinds are the collectors that are running.
func (c *Collector) Kinds() []string {
	var ks []string
	for _, s := range c.sources {
		if s.kind != kindActivity { // part of the waits collector
			ks = append(ks, s.kind)
		}
	}
	return ks
}

// Server is the server information read at the start (nil when it could
// not be read).
func (c *Collector) Server() *results.ServerInfo { return c.server }

// Host is the host information read at the start (nil when unknown).
func (c *Collector) Host() *results.Host { return c.host }

// Mark starts phase at t (the measured window starts with
// results.PhaseMeasure): the statements collector takes the snapshot that
// ends the previous phase and starts this one; statements.csv holds the
// deltas per phase. Mark returns at once (the engine's start calls it): the
// snapshot is taken by a worker, marks in their order. A no-op without the
// statements collector.
func (c *Collector) Mark(phase string, t time.Time) {
	if c.stmts == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	if c.marks == nil {
		c.marks = make(chan mark, 16)
		c.markDone = make(chan struct{})
		go func() {
			defer close(c.markDone)
			<-c.anchored // the rows' elapsed_s count from the clock's zero
			for m := range c.marks {
				ctx, cancel := context.WithTimeout(c.markCtx, 30*time.Second)
				if err := c.stmts.mark(ctx, m.phase, m.t); err != nil {
					c.warn("statements: %v", err)
				}
				cancel()
			}
		}()
	}
	select {
	case c.marks <- mark{phase, t}:
	default:
		go c.warn("statements: too many phase marks queued; phase %q at %s not marked", phase, t.Format(timeFormat))
	}
}

type mark struct {
	phase string
	t     time.Time
}

// Stop ends the sampling loops after one last sample at or after end (the
// end of the run), takes the last statements snapshot (at end) and closes
// every source. It returns the warnings so far; it may be called more than
// once (the later calls return the warnings).
//
// Its waits on the server are bounded by ctx: the last samples (also by
// their period + 5 s), the phase marks still queued and the last statements
// snapshot; what is not done when ctx ends is cut short (its connection's
// query cancelled) with a warning. A cancelled ctx (pgtrial's second signal)
// skips every wait: the sources are closed with what they have. For a
// server that stopped answering, QuickStop is a deadline that gives the
// last samples the time a server that answers needs.
func (c *Collector) Stop(ctx context.Context, end time.Time) []string {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return c.Warnings()
	}
	c.stopped = true
	marks := c.marks
	c.mu.Unlock()
	// One more sample on each grid, at its first point at or after end
	// (at most one period away): the counters then cover the whole run,
	// including what the server flushed at the clients' exit (statistics
	// reach the views up to 1 s late, 0.5 s before PostgreSQL 15). A
	// source that does not get there within its period and 5 s is cut
	// short.
	c.last.Store(end.UnixNano())
	select {
	case <-c.anchored:
	default:
		c.cancel() // the clock never started: no loop is sampling
	}
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	longest := time.Duration(0)
	for _, s := range c.sources {
		longest = max(longest, s.src.period())
	}
	select {
	case <-done:
	case <-time.After(time.Until(end) + longest + 5*time.Second):
		c.warn("the last samples did not come within 5 s of their time: cut short")
	case <-ctx.Done():
		c.warn("the last samples did not come by %s: cut short", time.Now().Format(timeFormat))
	}
	c.cancel()
	<-done
	if marks != nil {
		close(marks)
		go func() {
			select {
			case <-ctx.Done():
				c.markCancel()
			case <-c.markDone:
			}
		}()
		<-c.markDone
	}
	c.markCancel()
	if c.stmts != nil {
		if err := c.stmts.finish(ctx, end); err != nil {
			c.warn("statements: %v", err)
		}
	}
	for _, s := range c.sources {
		if err := s.src.close(); err != nil {
			c.warn("%s: %v", s.kind, err)
		}
	}
	return c.Warnings()
}

// stopSettle and stopLeast: see QuickStop.
const (
	stopSettle = time.Second
	stopLeast  = 250 * time.Millisecond
)

// QuickStop is a deadline for Stop's waits when the server has stopped
// answering (the run's connections had to be closed), called at now:
// stopSettle after the latest of the sources' first grid points at or
// after end (RunStart + k·period), and no earlier than now + stopLeast. A
// server that answers takes its last samples in that time.
func (c *Collector) QuickStop(end, now time.Time) time.Time {
	last := end
	select {
	case <-c.anchored: // RunStart is final
		for _, s := range c.sources {
			p := s.src.period()
			if p <= 0 {
				continue
			}
			k := (end.Sub(c.cfg.RunStart) + p - 1) / p
			if at := c.cfg.RunStart.Add(k * p); at.After(last) {
				last = at
			}
		}
	default:
	}
	return later(last.Add(stopSettle), now.Add(stopLeast))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Warnings are the distinct warnings so far.
func (c *Collector) Warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.warnings)
}

// warn records a warning once (the same text again is dropped, so a source
// failing every second warns once) and writes it as a "collector" event.
func (c *Collector) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.mu.Lock()
	if slices.Contains(c.warnings, msg) {
		c.mu.Unlock()
		return
	}
	c.warnings = append(c.warnings, msg)
	c.mu.Unlock()
	if c.cfg.Events != nil {
		c.cfg.Events.Event(results.Event{Kind: results.EventCollector, Message: msg})
	}
}

// warnFunc is how sources report a degradation that does not fail a sample
// (a column missing in this version, a second source unavailable).
type warnFunc func(format string, args ...any)

// connect opens a collector connection to connString, named
// ApplicationName, with a 10 s connect timeout and pgtrial's own session
// timeouts (pgsession.Own: 30 s statements, not the role's).
func connect(ctx context.Context, connString string) (*pgx.Conn, error) {
	cc, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("connection string: %w", err)
	}
	pgsession.Own(&cc.Config, ApplicationName, pgsession.Short)
	if cc.ConnectTimeout == 0 || cc.ConnectTimeout > 10*time.Second {
		cc.ConnectTimeout = 10 * time.Second
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", pgerr.Cause(err, &cc.Config))
	}
	return conn, nil
}

// lazyConn is a source's connection, reopened on the next use after it was
// lost.
type lazyConn struct {
	connString string
	conn       *pgx.Conn
}

// get returns the connection, connecting when there is none or the last one
// was closed (by an error, a server restart, …).
func (l *lazyConn) get(ctx context.Context) (*pgx.Conn, error) {
	if l.conn != nil && !l.conn.IsClosed() {
		return l.conn, nil
	}
	conn, err := connect(ctx, l.connString)
	if err != nil {
		return nil, err
	}
	l.conn = conn
	return conn, nil
}

// close closes the connection, if any.
func (l *lazyConn) close() {
	if l.conn != nil {
		l.conn.Close(context.Background())
		l.conn = nil
	}
}

// timeFormat is RFC 3339 with milliseconds, UTC (as timeline.csv).
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// rowTime formats the "time" and "elapsed_s" columns of the row ending at t
// (results.FormatTime, results.FormatElapsed from the clock zero runStart).
func rowTime(runStart, t time.Time) (string, string) {
	return results.FormatTime(t), results.FormatElapsed(runStart, t)
}

// inWindow says whether a row of length period ending at t belongs to the
// window (from, to]: results.Window.Holds, the one rule for every file (the
// row's midpoint t − period/2 is in the window; the last row, taken at or
// just after the run's end, still counts).
func inWindow(t, from, to time.Time, period time.Duration) bool {
	return results.Window{From: from, To: to}.Holds(t, period)
}
