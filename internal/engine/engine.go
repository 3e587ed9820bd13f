// Package engine runs pgbench scripts against PostgreSQL: one connection per
// client; the clients of a group (pgbench's thread, -j) run as coroutines of
// one loop that waits in ppoll(2) for all their sockets (runGroup; with
// Config.NetPoller or off Linux, one goroutine per client); the closed model
// (each client loops) or the open model (clients take intended start times
// from their group's schedule), pgbench's protocol modes, pipelines,
// \gset/\aset, \sleep, \shell, conditionals, retries of serialization
// failures and deadlocks, and its rules for failing, skipping and aborting.
// Every transaction is reported to a metrics.Recorder with its response time
// (from the intended start), service time (from the actual start) and
// schedule lag, so a stalled server shows in the open model's latency
// instead of silently lowering the load.
//
// Times inside the engine are µs on one monotonic clock that starts when
// Run is called.
//
// # The end of a run
//
// As pgbench (the default): -T only stops new transactions from starting;
// the transactions in flight at the end run to their end, however long
// that takes, and slots of the schedule a client did not get to are in no
// count.
//
// With Config.CutAtEnd (pgtrial's own commands) the measured window ends
// at Duration sharp, or at the interruption (ctx cancelled) when that comes
// first, whatever the server does:
//
//   - the window starts at the bench start (all clients connected) and is
//     Duration long; Result.End is its end, so the measured duration
//     equals -T;
//   - at the end, every query in flight is cancelled (cancel requests sent
//     concurrently, each bounded by cancelTimeout), the clients get
//     endGrace to return, and then their sockets are shut down; a second
//     signal (Config.Urgent) skips the grace;
//   - a transaction that had not ended by the window's end is counted as
//     metrics.Unfinished, whether it then committed, failed or was cut,
//     with its response time recorded as the lower bound end − intended
//     start (service time end − actual start, its lag as it was);
//   - a slot of the open model's schedule due before the end that no client
//     started is counted as metrics.Unstarted, with the lower bound end −
//     intended start as its response time and lag;
//   - both are recorded in the response histograms next to the committed
//     transactions (not in the Stats sums, and not in the failures), so a
//     stall at the end shows in the tail percentiles; slots due after the
//     end are not counted.
//
// An interruption without CutAtEnd takes the same bounded path (cancels,
// grace, sockets shut down), and the transactions it cut are not counted.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/script"
)

// Logger receives the engine's messages, already worded as pgbench words
// them ("client 3 aborted in command 2 (SQL) of script 0; …"). Multi-line
// messages (server errors with DETAIL/CONTEXT) are passed whole, without a
// trailing newline.
type Logger interface {
	Error(msg string)
	Info(msg string)
	Debug(msg string) // only called when Config.Debug is set
}

// Config is one run.
type Config struct {
	Program     *script.Program
	ScriptNames []string // pgbench's descriptions, for debug lines
	Weights     []int    // per script; a weight of 0 is never chosen
	Mode        script.Mode
	Conn        *pgconn.Config

	Clients int
	// Groups are pgbench's threads (1 ≤ Groups ≤ Clients), each a block of
	// clients (GroupOf). A group's clients share one arrival schedule (at
	// Rate/Groups) and one stream for script choice.
	Groups int

	Transactions int64         // per client; 0 with Duration
	Duration     time.Duration // 0 with Transactions
	ConnectPerTx bool          // -C: connect and disconnect around every transaction
	MaxTries     uint32        // 0: unlimited (needs Duration or LatencyLimit)
	LatencyLimit time.Duration // -L
	Rate         float64       // total intended transactions per second; 0 = closed model
	// RateOf, if set, says that Rate is that of a larger load of which
	// these Groups are a part (a segment, trial.Segment): each group's slot
	// gap is then 1e6/RateOf.Rate·RateOf.Groups µs, bit for bit the larger
	// load's, rather than 1e6/Rate·Groups.
	RateOf *RateShare
	// StartAt, if set, is the bench start: once connected, the clients wait
	// for it, so that generators started apart share one clock zero (their
	// schedules' slot 0). A generator connected after it starts at once
	// with its clock zero still at StartAt: the slots due since are late,
	// and their lag says so.
	StartAt  time.Time
	Arrival  Arrival
	Overload Overload
	// Scenarios, if any, replace Weights, Rate, Arrival and Overload: the
	// run's clients and groups are theirs (scenario.go).
	Scenarios []Scenario

	ContinueOnError bool // other SQL errors fail the transaction instead of aborting the client
	ExitOnAbort     bool // the first aborted client stops the run
	VerboseErrors   bool
	Debug           bool
	// PrepareFailsCommand: under -M prepared, a failed prepare fails its
	// command with the server's error (a syntax error is what the user sees;
	// retried, counted or aborting like any SQL error) and is tried again on
	// the next execution, instead of only being logged as pgbench does (its
	// next step then fails with `prepared statement "P_0" does not exist`).
	PrepareFailsCommand bool
	// Reconnect: a lost or refused connection fails the transaction
	// (metrics.FailedConnection) and the client connects again for the next
	// one, after a backoff when it fails again (connect.go), instead of
	// aborting as pgbench does.
	Reconnect bool
	// ConnectRate bounds the initial connections: dial k starts no earlier
	// than k/ConnectRate s after the first (connections per second; 0:
	// DefaultConnectRate; negative: no limit). ConnectConcurrency is how
	// many of them may be in flight (0: DefaultConnectConcurrency).
	// ConnectTimeout bounds each dial when the connection string has no
	// connect_timeout (0: DefaultConnectTimeout; negative: none, as libpq).
	ConnectRate        float64
	ConnectConcurrency int
	ConnectTimeout     time.Duration
	PerCommand         bool // per-command latency (-r)
	// NetPoller runs every client as a goroutine with its socket on Go's
	// network poller, instead of each group on one locked OS thread polling
	// its clients' sockets (runGroup, Linux); slower, for comparison.
	NetPoller bool

	Log     Logger
	Stdout  io.Writer // where \shell output goes (pgbench's own stdout)
	Stderr  io.Writer // where debug() lines of expressions go (pgbench's stderr); nil discards
	Streams prng.Streams
	// Setup sets a new client's variables (-D, scale, client_id, seeds).
	Setup   func(c *script.Client) error
	Metrics *metrics.Set
	// OnTx, if set, is called from the client's goroutine after each
	// transaction (committed, failed or skipped) with the client's count of
	// transactions so far (pgbench's 1-based transaction number) and the
	// time it ended.
	OnTx func(client, group int, txNo int64, tx *metrics.Tx, end time.Time)
	// OnNotice receives server notices (pgbench lets libpq print them).
	OnNotice func(*pgconn.Notice)
	// OnStart is called once all initial connections are made, just before
	// the first transaction, with the run's start and the bench start.
	OnStart func(start, benchStart time.Time)
	// ConnectError formats a connection failure for messages (libpq's text);
	// nil uses err.Error().
	ConnectError func(err error) string

	// CutAtEnd ends the measured window at Duration sharp (or at the
	// interruption), cancelling and cutting what is in flight then and
	// counting the slots due before it that never started (see the package
	// comment); Duration then counts from the bench start (all clients
	// connected), so that the window is Duration long. false: pgbench's end
	// of -T, Duration from Run's start.
	CutAtEnd bool
	// Urgent, once closed, makes the end of the run wait for nothing on
	// the server: the clients' sockets are shut down at once instead of
	// after endGrace. nil: never.
	Urgent <-chan struct{}
	// TallyAfter is the time from the bench start after which \tally
	// counts (the warm-up); it counts until the window's end under
	// CutAtEnd, to the end of the run otherwise (think.go).
	TallyAfter time.Duration
	// TallyTop bounds each Result.Tallies' TopCounts (0: all).
	TallyTop int
}

// The bounded end of a run (see the package comment): each cancel request
// may take cancelTimeout (connect, send, wait for the server to close it),
// at most cancelConcurrency are under way at once, and the clients' sockets
// are shut down endGrace after the end if they have not returned by then.
const (
	cancelTimeout     = 500 * time.Millisecond
	cancelConcurrency = 32
	endGrace          = 500 * time.Millisecond
)

// Result is what a run did beyond its metrics.
type Result struct {
	Start      time.Time     // when Run began (before connecting)
	BenchStart time.Time     // when all initial connections were made
	End        time.Time     // when the last client finished
	ConnTime   time.Duration // time spent connecting and disconnecting under -C
	Aborted    int           // clients that aborted
	// AbortedGroup is the group of the first aborted client when ExitOnAbort
	// stopped the run, else -1.
	AbortedGroup int
	Interrupted  bool // the context was cancelled (e.g. SIGINT)
	// Cut: the window was cut at its end (CutAtEnd: the Duration's end or
	// the interruption, which is then End); its unstarted and unfinished
	// transactions are in the metrics.
	Cut bool
	// Closed is the number of connections shut down because their client
	// had not returned endGrace after the end (or at Urgent): the server
	// did not answer the cancel requests in time.
	Closed int
	// Tallies are the \tally counts of all clients, merged (tally.go).
	Tallies []script.Tally
}

// RateShare is the whole load a segment's groups are part of: its rate
// (tx/s) and its groups.
type RateShare struct {
	Rate   float64
	Groups int
}

// GroupOf returns the group (pgbench thread) of client i: pgbench gives
// thread t the clients [t·n/g … (t+1)·n/g) in blocks — nclients_per_thread
// rounded so that the first threads get the extra ones.
func GroupOf(i, clients, groups int) int {
	// pgbench: threads[t].state = &state[nclients_dealt], nstate = (nclients - nclients_dealt + nthreads - t - 1) / (nthreads - t)
	dealt := 0
	for t := 0; t < groups; t++ {
		n := (clients - dealt + groups - t - 1) / (groups - t)
		if i < dealt+n {
			return t
		}
		dealt += n
	}
	return groups - 1
}

// InitialConnectError is returned by Run when a client cannot make its first
// connection (pgbench: "could not create connection for client N").
type InitialConnectError struct {
	Client int
	Err    error
}

func (e *InitialConnectError) Error() string {
	return fmt.Sprintf("could not create connection for client %d", e.Client)
}
func (e *InitialConnectError) Unwrap() error { return e.Err }

type group struct {
	id     int
	sched  *schedule
	mu     sync.Mutex // guards choose
	choose prng.State
	first  *client // records the group's unstarted slots after the run
	n      int     // clients in the group
	// overload is the run's policy, or the group's scenario's; scen is
	// that scenario (nil without Config.Scenarios).
	overload Overload
	scen     *scenarioOf
}

type engine struct {
	cfg      *Config
	epoch    time.Time
	endTime  int64 // µs; 0 without Duration (pgbench's end_time)
	limit    int64 // µs latency limit
	timerHit atomic.Bool
	stopped  atomic.Bool // interrupted or exit-on-abort
	total    int64       // Σ weights
	ncmds    []int
	txFrom   []int // per script: script.TxBounds (think.go)
	txTo     []int
	// tallyFrom is when \tally starts counting (µs, engine time): set
	// before the clients start.
	tallyFrom int64
	connMu    sync.Mutex
	connTime  time.Duration
	abortMu   sync.Mutex
	aborted   int
	abortG    int
	clients   []*client
	stopCh    chan struct{}
	stopOnce  sync.Once
	grouped   bool // groups run as polling loops (runGroup)
	// dialCtx is every dial's context (startDialing): Run's, also
	// cancelled when the engine stops.
	dialCtx context.Context

	// The end of the run (watchEnd). windowEnd is the end of the measured
	// window under CutAtEnd (µs): the Duration's end from the start,
	// lowered to the interruption's time; 0 without a cut. A transaction
	// that ends after it is unfinished, a slot due by it that starts after
	// it unstarted.
	windowEnd   atomic.Int64
	cut         atomic.Bool // the window's end came (the stop is the cut)
	interrupted atomic.Bool
	forced      atomic.Bool   // the sockets are being shut down: clients' errors are the shutdown's
	finished    chan struct{} // closed when every client has returned
	hard        chan struct{} // closed when the sockets are shut down
	closed      atomic.Int64  // connections shut down

	// sessions counts the clients connected, busy and idle (client.setBusy).
	sessions *metrics.Sessions
}

// now is the engine clock in µs.
func (e *engine) now() int64 { return int64(time.Since(e.epoch) / time.Microsecond) }

// wall converts an engine time to a time.Time.
func (e *engine) wall(us int64) time.Time { return e.epoch.Add(time.Duration(us) * time.Microsecond) }

func (e *engine) stop() {
	e.stopOnce.Do(func() {
		e.stopped.Store(true)
		close(e.stopCh)
	})
}

// Run runs the clients until they finish, abort, or ctx is cancelled. On
// cancellation, in-flight queries are cancelled on the server and the
// transactions they belonged to are not counted (under CutAtEnd they are
// counted as unfinished); everything recorded before stays in the metrics.
// The package comment says how a run ends.
func Run(ctx context.Context, cfg *Config) (*Result, error) {
	if cfg.Clients < 1 {
		return nil, errors.New("engine: at least one client is needed")
	}
	if cfg.Groups < 1 || cfg.Groups > cfg.Clients {
		return nil, fmt.Errorf("engine: %d groups for %d clients", cfg.Groups, cfg.Clients)
	}
	if len(cfg.Streams.Clients) < cfg.Clients || len(cfg.Streams.Threads) < cfg.Groups {
		return nil, errors.New("engine: random streams missing for some clients or groups")
	}
	if err := validateScenarios(cfg); err != nil {
		return nil, err
	}
	e := &engine{cfg: cfg, epoch: time.Now(), abortG: -1, stopCh: make(chan struct{}), grouped: groupLoops && !cfg.NetPoller,
		finished: make(chan struct{}), hard: make(chan struct{})}
	e.limit = int64(cfg.LatencyLimit / time.Microsecond)
	if cfg.Metrics == nil {
		return nil, errors.New("engine: Config.Metrics is needed")
	}
	e.sessions = cfg.Metrics.Sessions(cfg.Groups)
	for _, w := range cfg.Weights {
		e.total += int64(w)
	}
	if err := CheckThink(cfg.Program.Scripts, cfg.Rate); err != nil {
		return nil, err
	}
	for _, s := range cfg.Program.Scripts {
		e.ncmds = append(e.ncmds, len(s.Commands))
		from, to := s.TxBounds()
		e.txFrom, e.txTo = append(e.txFrom, from), append(e.txTo, to)
	}
	if cfg.Duration > 0 {
		e.endTime = int64(cfg.Duration / time.Microsecond) // from the bench start under CutAtEnd: see there
	}
	res := &Result{Start: e.epoch, AbortedGroup: -1}

	groups := make([]*group, cfg.Groups)
	for g := range groups {
		groups[g] = &group{id: g, choose: cfg.Streams.Threads[g].Choose, overload: cfg.Overload}
	}
	groupOf := e.setScenarios(groups) // nil without scenarios
	e.clients = make([]*client, cfg.Clients)
	for i := range e.clients {
		var g *group
		if groupOf != nil {
			g = groups[groupOf[i]]
		} else {
			g = groups[GroupOf(i, cfg.Clients, cfg.Groups)]
		}
		c, err := newClient(e, i, g)
		if err != nil {
			return nil, err
		}
		e.clients[i] = c
		if g.first == nil {
			g.first = c
		}
		g.n++
	}

	// The end: interruption, exit-on-abort, or (CutAtEnd) the Duration's
	// end; watchEnd stops new work and cuts what is in flight, bounded.
	endC := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		e.watchEnd(ctx, endC)
	}()
	var unwatchOnce sync.Once
	unwatch := func() {
		unwatchOnce.Do(func() {
			e.stop()
			close(e.finished)
			<-watched
		})
	}
	defer unwatch()

	// Initial connections at a bounded rate and concurrency, each with a
	// timeout; the first failure stops the others (connect.go's
	// connectAll). pgbench connects each thread's clients in turn; the
	// report's "initial connection time" is the time until all are
	// connected.
	defer e.startDialing(ctx)()
	if !cfg.ConnectPerTx {
		i, err := connectAll(ctx, cfg.Clients, e.connectRate(), e.connectConcurrency(), func(ctx context.Context, i int) error {
			c := e.clients[i]
			conn, err := e.dial(ctx, c.waiter())
			if err != nil {
				return err
			}
			c.setConn(conn)
			return nil
		})
		if err != nil {
			for _, c := range e.clients {
				c.closeConn()
			}
			if e.interrupted.Load() || ctx.Err() != nil {
				res.Interrupted = true
				return res, context.Canceled
			}
			return res, &InitialConnectError{Client: i, Err: err}
		}
	}

	// Return the setup's garbage (connections, parsing) to the OS before the
	// clock starts: the resident memory of the run is then its steady state
	// from the first interval on, not a peak the scavenger trims minutes
	// later.
	debug.FreeOSMemory()
	if !cfg.StartAt.IsZero() {
		if d := time.Until(cfg.StartAt); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				for _, c := range e.clients {
					c.closeConn()
				}
				res.Interrupted = true
				return res, context.Canceled
			}
		}
	}
	bench := e.now()
	if !cfg.StartAt.IsZero() {
		// Late: clock zero stays StartAt (no earlier than the engine's own).
		bench = max(bench-int64(max(time.Since(cfg.StartAt), 0)/time.Microsecond), 0)
	}
	res.BenchStart = e.wall(bench)
	if cfg.CutAtEnd && e.endTime > 0 {
		// The window is -T long from the bench start; an interruption
		// during the connections has already ended it.
		e.endTime += bench
		e.windowEnd.CompareAndSwap(0, e.endTime)
	}
	e.tallyFrom = bench + int64(cfg.TallyAfter/time.Microsecond)
	if len(cfg.Scenarios) > 0 {
		e.scheduleScenarios(groups, bench)
	} else if cfg.Rate > 0 {
		// pgbench: throttle_delay = 1e6 / rate · nthreads, per thread.
		delay := 1e6 / cfg.Rate * float64(cfg.Groups)
		if s := cfg.RateOf; s != nil {
			delay = 1e6 / s.Rate * float64(s.Groups)
		}
		for g, gr := range groups {
			rnd := cfg.Streams.Threads[g].Throttle
			gr.sched = newSchedule(cfg.Arrival, delay, bench, &rnd)
		}
	}
	if e.endTime > 0 {
		t := time.AfterFunc(time.Until(e.wall(e.endTime)), func() {
			e.sessions.Freeze() // the counts at the end, before the clients disconnect
			e.timerHit.Store(true)
			if cfg.CutAtEnd {
				close(endC)
			}
		})
		defer t.Stop()
	}
	if cfg.OnStart != nil {
		cfg.OnStart(res.Start, res.BenchStart)
	}

	var wg sync.WaitGroup
	if e.grouped {
		// Each group loop blocks in ppoll on its own thread; a P per group
		// (plus two for the ticker and the rest) lets a loop that wakes up
		// run at once instead of queueing for a P.
		want := cfg.Groups + 2
		if prev := runtime.GOMAXPROCS(0); prev < want {
			runtime.GOMAXPROCS(want)
			defer runtime.GOMAXPROCS(prev)
		}
		members := make([][]*client, cfg.Groups)
		for _, c := range e.clients {
			members[c.g.id] = append(members[c.g.id], c)
		}
		for _, m := range members {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.runGroup(m)
			}()
		}
	} else {
		for _, c := range e.clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.run()
			}()
		}
	}
	wg.Wait()
	res.End = time.Now()
	// The watcher has returned before the result is read: shutdownAll
	// counts a socket as closed after shutting it down, and its client may
	// have returned (the last one ending wg.Wait) before the count.
	unwatch()
	if e.cut.Load() {
		// Every client has returned: what is left of the schedules up to
		// the window's end never started.
		w := e.windowEnd.Load()
		e.drainUnstarted(groups, w)
		res.Cut = true
		if end := e.wall(w); !end.Before(res.BenchStart) {
			res.End = end
		}
	}
	res.Closed = int(e.closed.Load())
	res.Tallies = e.tallies()
	e.connMu.Lock()
	res.ConnTime = e.connTime
	e.connMu.Unlock()
	e.abortMu.Lock()
	res.Aborted = e.aborted
	if cfg.ExitOnAbort && e.aborted > 0 {
		res.AbortedGroup = e.abortG
	}
	e.abortMu.Unlock()
	if ctx.Err() != nil || e.interrupted.Load() {
		res.Interrupted = true
	}
	return res, nil
}

// watchEnd waits for the end of the run — ctx cancelled (an interruption),
// a stop (exit-on-abort), or under CutAtEnd endC (the Duration's end) —
// unless every client returns first; then it stops new work, cancels the
// queries in flight, and shuts down the sockets of the clients that have
// not returned endGrace later (at once when Config.Urgent is closed).
func (e *engine) watchEnd(ctx context.Context, endC <-chan struct{}) {
	select {
	case <-e.finished:
		return
	case <-ctx.Done():
		e.interrupted.Store(true)
		if e.cfg.CutAtEnd {
			// The window ends now, unless the Duration's end came first.
			now := e.now()
			for {
				w := e.windowEnd.Load()
				if (w > 0 && w <= now) || e.windowEnd.CompareAndSwap(w, now) {
					break
				}
			}
			e.cut.Store(true)
		}
	case <-endC:
		e.cut.Store(true)
	case <-e.stopCh:
	}
	e.sessions.Freeze()
	e.stop()
	e.cancelInFlight()
	grace := time.NewTimer(endGrace)
	defer grace.Stop()
	select {
	case <-e.finished:
	case <-grace.C:
	case <-e.cfg.Urgent:
	}
	e.shutdownAll()
}

// cancelInFlight sends a cancel request for every client waiting for the
// server, cancelConcurrency at a time, each bounded by cancelTimeout; it
// returns at once, and what is not sent by the time the sockets are shut
// down (e.hard) is not sent.
func (e *engine) cancelInFlight() {
	go func() {
		sem := make(chan struct{}, cancelConcurrency)
		for _, c := range e.clients {
			req, ok := c.cancelRequest()
			if !ok {
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-e.hard:
				return
			case <-e.finished:
				return
			}
			go func() {
				defer func() { <-sem }()
				req.send(cancelTimeout)
			}()
		}
	}()
}

// shutdownAll shuts down the socket of every client that still has one, so
// that reads and writes on it fail at once, and cancels the connections
// being made; the clients then return.
func (e *engine) shutdownAll() {
	e.forced.Store(true)
	close(e.hard) // the reconnects' dials were cancelled with the stop (startDialing)
	for _, c := range e.clients {
		if c.shutdown() {
			e.closed.Add(1)
		}
	}
}

// drainUnstarted records, after the clients have returned, every slot of
// the groups' schedules due by w (the window's end) as unstarted, with the
// lower bound w − intended start: the slots no client took. With
// Transactions, a group has at most that many slots per client.
func (e *engine) drainUnstarted(groups []*group, w int64) {
	n := 0
	for _, g := range groups {
		if g.sched == nil || g.first == nil {
			continue
		}
		c := g.first
		left := int64(-1)
		if e.cfg.Transactions > 0 {
			left = max(int64(g.n)*e.cfg.Transactions-g.sched.handedOut(), 0)
		}
		for ; left != 0; left-- {
			t := g.sched.next()
			if t > w {
				break
			}
			c.script = e.chooseScript(g)
			c.scheduled = t
			c.recordCut(metrics.Unstarted, w)
			// Hand the records to the interval being built now and then:
			// a long stall leaves many slots.
			if n++; n%(1<<16) == 0 {
				e.cfg.Metrics.Drain()
			}
		}
	}
}

// chooseScript is pgbench's chooseScript: a weighted draw from the group's
// stream, w = getrand(0, total_weight − 1), then the first script whose
// cumulative weight exceeds w.
func (e *engine) chooseScript(g *group) int {
	if g.scen != nil {
		return e.chooseScenarioScript(g)
	}
	n := len(e.cfg.Program.Scripts)
	if n == 1 {
		return 0
	}
	g.mu.Lock()
	w := int64(g.choose.Uint64Range(0, uint64(e.total-1)))
	g.mu.Unlock()
	i := 0
	for {
		w -= int64(e.cfg.Weights[i])
		i++
		if w < 0 || i == n {
			return i - 1
		}
	}
}

func (e *engine) addConnTime(d time.Duration) {
	e.connMu.Lock()
	e.connTime += d
	e.connMu.Unlock()
}

func (e *engine) noteAbort(g int) {
	e.abortMu.Lock()
	e.aborted++
	first := e.abortG < 0
	if first {
		e.abortG = g
	}
	e.abortMu.Unlock()
	if e.cfg.ExitOnAbort && first {
		e.cfg.Log.Error(fmt.Sprintf("Run was aborted due to an error in thread %d", g))
		e.stop() // watchEnd cancels the queries in flight
	}
}
