package trial

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/metrics"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/script"
)

func TestConnLimitErrorText(t *testing.T) {
	e := &ConnLimitError{Clients: 100000, Slots: ConnSlots{MaxConnections: 30, SuperuserReserved: 3, InUse: 4, Collectors: 2}}
	want := "-c 100000: the server accepts at most 21 more connections (max_connections 30 − superuser_reserved_connections 3 − 4 in use − 2 for pgtrial's collectors); use fewer clients or raise max_connections"
	if e.Error() != want {
		t.Errorf("got  %s\nwant %s", e.Error(), want)
	}
	e = &ConnLimitError{Clients: 5, Slots: ConnSlots{MaxConnections: 10, SuperuserReserved: 3, Reserved: 2, HasReserved: true, InUse: 6}}
	want = "-c 5: the server accepts no more connections (max_connections 10 − superuser_reserved_connections 3 − reserved_connections 2 − 6 in use); use fewer clients or raise max_connections"
	if e.Error() != want {
		t.Errorf("got  %s\nwant %s", e.Error(), want)
	}
	for _, tc := range []struct {
		c    Config
		want int
	}{
		{Config{Dir: "d"}, 3}, // waits, statements, server; os has none
		{Config{Dir: "d", Collect: Collect{Kinds: []string{"os", "waits"}}}, 1},
		{Config{Dir: "d", Collect: Collect{Off: true}}, 0},
		{Config{}, 0}, // no run directory, no collectors
	} {
		if got := tc.c.collectorConnections(); got != tc.want {
			t.Errorf("%+v: %d collector connections, want %d", tc.c.Collect, got, tc.want)
		}
	}
}

// smallCluster is a cluster of the test's own with max_connections 30
// (filling the shared cluster's slots would break the other tests), and a
// non-superuser role "bench" that owns database "bench".
func smallCluster(t *testing.T) (su, bench string) {
	t.Helper()
	_, su, bench = ownCluster(t)
	return su, bench
}

// ownCluster is smallCluster with the cluster, for tests that stop it.
func ownCluster(t *testing.T) (c *localpg.Cluster, su, bench string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a cluster of its own")
	}
	if _, err := localpg.FindBinaries(localpg.FindOptions{}); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("no PostgreSQL binaries: %v", err)
	}
	// As root, t.TempDir()'s parent is 0700; the server's OS user must
	// reach the directory.
	dir := t.TempDir()
	for _, p := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c, err := localpg.Open(localpg.Config{Name: "connlimit", Dir: filepath.Join(dir, "c"), NoSync: true,
		Settings: map[string]string{"max_connections": "30", "shared_buffers": "32MB", "fsync": "off", "autovacuum": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Destroy(ctx); err != nil && !errors.Is(err, localpg.ErrNoCluster) {
			t.Errorf("destroy the cluster: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	su = c.URL("postgres")
	conn, err := pgx.Connect(ctx, su)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, sql := range []string{"CREATE ROLE bench LOGIN", "CREATE DATABASE bench OWNER bench"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	u, err := pgconn.ParseConfig(c.URL("bench"))
	if err != nil {
		t.Fatal(err)
	}
	return c, su, fmt.Sprintf("postgres://bench@%s:%d/bench?sslmode=disable", u.Host, u.Port)
}

// superuserProbe connects as the superuser every 50 ms until stopped and
// counts the failures: the DBA must be able to log in while a run dials.
type superuserProbe struct {
	ok, failed atomic.Int64
	lastErr    atomic.Value
	stop       chan struct{}
	done       sync.WaitGroup
}

func probeSuperuser(url string) *superuserProbe {
	p := &superuserProbe{stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		for i := 0; i < 2000; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			conn, err := pgx.Connect(ctx, url)
			if err == nil {
				err = conn.Ping(ctx)
				conn.Close(context.Background())
			}
			cancel()
			if err != nil {
				p.failed.Add(1)
				p.lastErr.Store(err.Error())
			} else {
				p.ok.Add(1)
			}
			select {
			case <-p.stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return p
}

func (p *superuserProbe) finish(t *testing.T) {
	t.Helper()
	close(p.stop)
	p.done.Wait()
	if p.failed.Load() > 0 || p.ok.Load() == 0 {
		t.Errorf("the superuser connected %d times, failed %d (%v)", p.ok.Load(), p.failed.Load(), p.lastErr.Load())
	}
}

// Issue 14, defect 2: -c 100000 (and -c 2000) against max_connections 30
// is refused in under 2 s with a message naming the limit, before any run
// directory or dial, and the superuser can connect throughout; a count
// that fits connects at the bounded rate; when the server refuses a dial
// anyway (the check bypassed: the engine alone), the first refusal stops
// the other dials and closes what was opened, and the reserved slots stay
// free for the superuser.
func TestConnectionStorm(t *testing.T) {
	su, bench := smallCluster(t)
	sel := testScript(t, "select1.sql", "SELECT 1;\n")
	base := func(clients int, dir string) *Config {
		return &Config{
			ConnString:   bench,
			Scripts:      []Script{sel},
			Mode:         script.Simple,
			Clients:      clients,
			Threads:      2,
			Transactions: 1,
			Interval:     time.Second,
			MaxTries:     1,
			Seed:         prng.Seed{Value: 42},
			Dir:          dir,
			Tool:         results.Tool{Name: "pgtrial", Version: "test"},
		}
	}

	for _, clients := range []int{100000, 2000} {
		t.Run(fmt.Sprintf("c%d", clients), func(t *testing.T) {
			probe := probeSuperuser(su)
			time.Sleep(100 * time.Millisecond) // a probe before the run
			dir := filepath.Join(t.TempDir(), "run")
			// Bounded: the old engine dialled every client at once and
			// never returned.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			t0 := time.Now()
			_, err := Run(ctx, base(clients, dir))
			took := time.Since(t0)
			time.Sleep(100 * time.Millisecond) // and one after
			probe.finish(t)
			var le *ConnLimitError
			if !errors.As(err, &le) {
				t.Fatalf("Run: %v, want a ConnLimitError", err)
			}
			msg := err.Error()
			for _, want := range []string{fmt.Sprintf("-c %d: the server accepts at most ", clients), "max_connections 30 − superuser_reserved_connections 3 − ",
				" − 3 for pgtrial's collectors", "use fewer clients or raise max_connections"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
			if took >= 2*time.Second {
				t.Errorf("refused after %v, want under 2 s", took)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the refused run left its directory: %v", err)
			}
		})
	}

	t.Run("fits", func(t *testing.T) {
		// 20 clients at 40/s: the last dial starts 19/40 s = 475 ms after
		// the first (the pacing is a lower bound, whatever the machine).
		probe := probeSuperuser(su)
		c := base(20, filepath.Join(t.TempDir(), "run"))
		c.ConnectRate = 40
		c.Collect = Collect{Off: true}
		r, err := Run(context.Background(), c)
		probe.finish(t)
		if err != nil {
			t.Fatal(err)
		}
		connecting := r.Engine.BenchStart.Sub(r.Engine.Start)
		if connecting < 475*time.Millisecond || connecting > 30*time.Second {
			t.Errorf("20 clients at 40/s connected in %v, want at least 475 ms", connecting)
		}
		if got := r.Summary.Total.Committed; got != 20 {
			t.Errorf("committed %d, want 20", got)
		}
	})

	t.Run("engine stops at the first refusal", func(t *testing.T) {
		// The engine alone, as the check would not allow: 60 clients of a
		// non-superuser role, so the 3 reserved slots stay the DBA's.
		probe := probeSuperuser(su)
		c := base(60, "")
		pgcfg, err := pgconn.ParseConfig(bench)
		if err != nil {
			t.Fatal(err)
		}
		streams := prng.Derive(42, c.Clients, c.Threads, false)
		set := metrics.NewSet(c.Clients, metrics.Layout{Scripts: 1})
		rec := NewRecorder(RecorderConfig{Set: set, Interval: time.Second, ScriptNames: []string{sel.Name}})
		log := newRunLog(func(string) {}, rec)
		cfg := c.engineConfig([]*script.Script{sel.Parsed}, []string{sel.Name}, []int{1}, pgcfg, streams, log, rec)
		cfg.Metrics = set
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		t0 := time.Now()
		_, err = engine.Run(ctx, cfg)
		took := time.Since(t0)
		t.Logf("engine.Run: %v after %v", err, took)
		var ice *engine.InitialConnectError
		var pe *pgconn.PgError
		if !errors.As(err, &ice) || !errors.As(err, &pe) || pe.Code != "53300" {
			t.Fatalf("engine.Run: %v, want an InitialConnectError with SQLSTATE 53300", err)
		}
		// Slots 0 … 26 are free (30 − 3 reserved), so about the 28th dial
		// fails. Which client is reported is not fixed: up to 32 dials are
		// in flight (CI saw client 31), and backends of the subtests before
		// this one may still hold slots while they exit (CI saw client 18).
		// The bound is 27 + 32.
		if ice.Client >= 27+32 {
			t.Errorf("client %d failed, want from about 27 (30 slots − 3 reserved) to 27 + 32 dials in flight", ice.Client)
		}
		if took >= 2*time.Second {
			t.Errorf("the refusal ended the dials after %v, want under 2 s", took)
		}
		// What was opened is closed: no session of the role is left.
		conn, err := pgx.Connect(ctx, su)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		var left int
		for i := 0; i < 100; i++ {
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE usename = 'bench'").Scan(&left); err != nil {
				t.Fatal(err)
			}
			if left == 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		probe.finish(t)
		if left != 0 {
			t.Errorf("%d sessions of the run are left after the refusal", left)
		}
	})
}

// countLog counts the engine's error messages.
type countLog struct {
	errors atomic.Int64
	mu     sync.Mutex
	first  []string
}

func (l *countLog) Error(m string) {
	if l.errors.Add(1) <= 5 {
		l.mu.Lock()
		l.first = append(l.first, m)
		l.mu.Unlock()
	}
}
func (l *countLog) Info(string)  {}
func (l *countLog) Debug(string) {}

// Issue 14, defect 2: a reconnecting client backs off instead of dialling
// once per scheduled slot ("repeated 652 more times" in 4 s), logs its
// failure at the first of a series and then every 5 s, and the slots of
// the outage are still counted, as failed connections.
func TestReconnectBacksOff(t *testing.T) {
	cluster, _, bench := ownCluster(t)
	sel := testScript(t, "select1.sql", "SELECT 1;\n")
	const (
		rate    = 300.0
		clients = 4
		dur     = 8 * time.Second
		downAt  = 2 * time.Second
		down    = 3 * time.Second
	)
	c := &Config{ConnString: bench, Scripts: []Script{sel}, Mode: script.Simple, Clients: clients, Threads: 2,
		Rate: rate, Duration: dur, Interval: time.Second, MaxTries: 1, Seed: prng.Seed{Value: 42}}
	pgcfg, err := pgconn.ParseConfig(bench)
	if err != nil {
		t.Fatal(err)
	}
	streams := prng.Derive(42, clients, c.Threads, false)
	set := metrics.NewSet(clients, metrics.Layout{Scripts: 1})
	rec := NewRecorder(RecorderConfig{Set: set, Interval: time.Second, ScriptNames: []string{sel.Name}})
	cfg := c.engineConfig([]*script.Script{sel.Parsed}, []string{sel.Name}, []int{1}, pgcfg, streams, newRunLog(func(string) {}, rec), rec)
	cfg.Metrics = set
	log := &countLog{}
	cfg.Log = log
	if !cfg.Reconnect {
		t.Fatal("pgtrial's engine config does not reconnect")
	}
	var downFrom, downTo time.Time
	outage := make(chan error, 1)
	cfg.OnStart = func(_, bench time.Time) {
		go func() {
			time.Sleep(time.Until(bench.Add(downAt)))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			port := cluster.Port()
			downFrom = time.Now()
			if _, err := cluster.Stop(ctx); err != nil {
				outage <- err
				return
			}
			time.Sleep(down)
			res, err := cluster.Start(ctx)
			downTo = time.Now()
			if err == nil && res.Port != port {
				err = fmt.Errorf("the cluster came back on port %d, not %d", res.Port, port)
			}
			outage <- err
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur+40*time.Second)
	defer cancel()
	res, err := engine.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-outage:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the outage did not end")
	}
	st := set.Tick(res.BenchStart, res.End).Total.Stats
	failed := st.Outcome[metrics.FailedConnection]
	outageS := downTo.Sub(downFrom).Seconds()
	t.Logf("outage %.2f s: committed %d, failed connection %d (%.0f slots in the outage), %d error lines %q, aborted %d",
		outageS, st.Count, failed, rate*outageS, log.errors.Load(), log.first, res.Aborted)
	if res.Aborted != 0 {
		t.Errorf("%d clients aborted", res.Aborted)
	}
	// Every slot of the outage is counted: a failed connection each (the
	// clients were without a server), none left out.
	if want := int64(0.7 * rate * down.Seconds()); failed < want {
		t.Errorf("%d failed connections, want ≥ %d (%.0f/s × %v)", failed, want, rate, down)
	}
	// One error line per client at the outage's start, one more per 5 s
	// of it, and the losses of the connections themselves: a few dozen at
	// most, not one per slot (≈ 900 before the backoff).
	if n := log.errors.Load(); n > 40 {
		t.Errorf("%d error lines during a %.1f s outage, want a few per client", n, outageS)
	}
	if st.Count < int64(rate) {
		t.Errorf("committed %d: the clients did not reconnect after the outage", st.Count)
	}
}
