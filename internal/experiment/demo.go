package experiment

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/serverctl"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// DemoConfig is `pgtrial demo`: the protocol of the method's first seed
// (seeds/000), scaled down. Full uses its real lengths.
type DemoConfig struct {
	Full    bool
	Scale   int // pgbench scale; default 20 (about 300 MB)
	Clients int // default 8

	short *demoTimes // tests: other lengths
}

// Demo lengths: (warm-up of the first run, warm-up of the others, level
// window, stall window, lock start, lock length).
type demoTimes struct {
	firstWarmup, warmup, window, stallWindow, lockAt, lockFor time.Duration
}

func (c DemoConfig) times() demoTimes {
	if c.short != nil {
		return *c.short
	}
	if c.Full {
		// seeds/000: 120 s warm-up, 120 s windows, a 60 s stall run with a
		// 5 s lock from its 20th second.
		return demoTimes{120 * time.Second, 10 * time.Second, 120 * time.Second, 60 * time.Second, 20 * time.Second, 5 * time.Second}
	}
	// About 3 minutes of runs: 3 closed, 9 open, 2 stall runs.
	return demoTimes{8 * time.Second, 2 * time.Second, 8 * time.Second, 16 * time.Second, 5 * time.Second, 5 * time.Second}
}

// Demo variants, in the order of the report: the closed-model ceiling, the
// open levels (DemoLevel of each of DemoFractions), the stall in the closed
// and in the open model.
const (
	DemoClosed      = "closed"
	DemoStallClosed = "stall-closed"
	DemoStallOpen   = "stall-open"
)

// demoFractions are the open levels as fractions of the closed ceiling.
var demoFractions = []float64{0.3, 0.6, 0.9}

// DemoFractions are the demo's open levels as fractions of the closed
// ceiling (0.3, 0.6, 0.9), a copy.
func DemoFractions() []float64 { return slices.Clone(demoFractions) }

// DemoLevel is the variant of the open level at fraction f of the ceiling:
// 0.3 → "open-30%".
func DemoLevel(f float64) string { return fmt.Sprintf("open-%.0f%%", 100*f) }

// DemoSpec is the demo as an experiment spec (its runs are made by Demo).
func DemoSpec(c DemoConfig) *Spec {
	if c.Scale <= 0 {
		c.Scale = 20
	}
	if c.Clients <= 0 {
		c.Clients = 8
	}
	t := c.times()
	s := &Spec{
		File: "demo", Name: "demo",
		Description: "the honest protocol (seeds/000): closed ceiling ×3; open model at 30, 60, 90 % of it ×3 with a 100 ms latency limit; a 5 s lock, closed vs open",
		Workload:    Workload{Builtin: DefaultBuiltin, Scale: c.Scale, Protocol: script.Prepared, MaxTries: 1},
		Load: LoadSpec{Clients: c.Clients, Closed: true, Arrival: engine.Poisson, Overload: engine.Queue,
			LatencyLimit: 100 * time.Millisecond},
		Protocol:   Protocol{Warmup: t.warmup, Window: t.stallWindow, Repeats: 3, Interleave: true},
		Injections: []Injection{{At: t.lockAt, Kind: InjectLock, Table: "pgbench_branches", Duration: t.lockFor}},
		Interval:   time.Second,
		Collect:    Collect{WaitInterval: DefaultWaitInterval, WaitSource: collect.WaitSourceAuto},
	}
	s.Variants = append(s.Variants, Variant{Name: DemoClosed})
	for _, f := range demoFractions {
		s.Variants = append(s.Variants, Variant{Name: DemoLevel(f)})
	}
	s.Variants = append(s.Variants, Variant{Name: DemoStallClosed}, Variant{Name: DemoStallOpen})
	return s
}

// Demo runs the demo: the pgbench tables (loaded when missing), with
// shared_buffers lowered for the demo when the data would fit in it (a
// restart; put back afterwards), then the closed ceiling, the open levels
// interleaved by repeat, and the stall comparison.
func Demo(ctx context.Context, c DemoConfig, env Env) (*Record, error) {
	spec := DemoSpec(c)
	t := c.times()
	r := &runner{spec: spec, env: env, current: -1}
	body := func(ctx context.Context) error {
		r.rec.WindowS, r.rec.WarmupS = t.window.Seconds(), t.warmup.Seconds()
		if err := r.demoMemory(ctx); err != nil {
			return err
		}
		return r.demoRuns(ctx, t)
	}
	return r.execute(ctx, body, r.demoConclusions)
}

// demoConclusions adjusts the analysis to the demo: its variants are
// different loads, not alternatives (no comparisons), and repeats and
// interleaving are about the closed ceiling and the open levels (the stall
// runs are one each by design).
func (r *runner) demoConclusions() {
	r.rec.Comparisons = nil
	r.rec.Model = "demo"
	var counts []checks.VariantRuns
	var order []string
	for _, v := range r.spec.Variants[:1+len(demoFractions)] {
		n := 0
		for _, rr := range r.rec.Runs {
			if rr.Variant == v.Name && rr.Error == "" {
				n++
			}
		}
		counts = append(counts, checks.VariantRuns{Variant: v.Name, Runs: n})
	}
	for _, rr := range r.rec.Runs {
		if rr.Rate > 0 && rr.Variant != DemoStallOpen {
			order = append(order, rr.Variant)
		}
	}
	r.rec.Checks = checks.Replace(r.rec.Checks, checks.RepeatsUncompared(counts), checks.Interleaving(order))
}

// demoMemory lowers shared_buffers for the demo when the database fits in
// it, so that the data is larger than the cache as in the seed's lab.
func (r *runner) demoMemory(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := ownConnect(cctx, r.env.ConnString)
	if err != nil {
		return pgerr.Connect(err, nil)
	}
	var dbBytes, sbBytes int64
	err = conn.QueryRow(cctx, `SELECT pg_database_size(current_database()),
		(SELECT setting::bigint * pg_size_bytes(coalesce(unit, '1')) FROM pg_settings WHERE name = 'shared_buffers')`).Scan(&dbBytes, &sbBytes)
	conn.Close(context.Background())
	if err != nil {
		return fmt.Errorf("read the database and shared_buffers sizes: %w", err)
	}
	const demoBuffers = 128 << 20
	if dbBytes > sbBytes || r.env.Restarter == nil || dbBytes <= demoBuffers {
		return nil
	}
	r.out("pgtrial: the data (%s) fits in shared_buffers (%s): setting shared_buffers = 128MB for the demo (a restart; put back afterwards)", format.Bytes(dbBytes), format.Bytes(sbBytes))
	a, err := serverctl.Apply(ctx, r.env.ConnString, r.env.Restarter, serverctl.Change{Settings: []serverctl.Setting{{Name: "shared_buffers", Value: "128MB"}}})
	if err != nil {
		return fmt.Errorf("lower shared_buffers for the demo: %w", err)
	}
	r.applied, r.current = a, 0
	r.rec.Variants[0].Settings = map[string]string{"shared_buffers": "128MB"}
	r.rec.Variants[0].Effective, r.rec.Variants[0].Restart = a.Effective, a.Restarted
	r.rec.Warnings = append(r.rec.Warnings, fmt.Sprintf("shared_buffers was %s, more than the %s of data: the demo ran with 128MB so that reads reach the operating system, and put it back afterwards", format.Bytes(sbBytes), format.Bytes(dbBytes)))
	return nil
}

// demoRuns makes the demo's runs.
func (r *runner) demoRuns(ctx context.Context, t demoTimes) error {
	s := r.spec
	clients := s.Load.Clients
	vi := func(name string) int {
		for i, v := range s.Variants {
			if v.Name == name {
				return i
			}
		}
		return 0
	}
	// 1. The closed-model ceiling, 3 runs.
	var tps []float64
	for rep := 1; rep <= 3; rep++ {
		w := t.warmup
		if rep == 1 {
			w = t.firstWarmup
		}
		r.out("pgtrial: closed model, run %d of 3 (the ceiling)", rep)
		rr, err := r.run(ctx, runPlan{variant: vi(DemoClosed), repeat: rep, clients: clients, warmup: w, duration: t.window, noLimit: true})
		if err != nil {
			return err
		}
		tps = append(tps, rr.TPS)
	}
	ceiling := stats.Median(tps)
	if !(ceiling > 0) {
		return fmt.Errorf("the closed-model runs committed nothing (tps %v)", tps)
	}
	r.out("pgtrial: ceiling %.0f tx/s (median of %.0f, %.0f, %.0f)", ceiling, tps[0], tps[1], tps[2])
	// 2. Open model at 30, 60, 90 % of it, interleaved by repeat.
	for rep := 1; rep <= 3; rep++ {
		for _, f := range demoFractions {
			rate := math.Round(f * ceiling)
			r.out("pgtrial: open model at %.0f %% of the ceiling (%.0f tx/s, -L 100ms), repeat %d of 3", 100*f, rate, rep)
			if _, err := r.run(ctx, runPlan{variant: vi(DemoLevel(f)), repeat: rep, clients: clients, rate: rate,
				warmup: t.warmup, duration: t.window, level: 0}); err != nil {
				return err
			}
		}
	}
	// 3. The stall: a lock on pgbench_branches, closed model, then open at
	// 60 % without a latency limit.
	r.out("pgtrial: stall: closed model with a %v lock on pgbench_branches at %v", t.lockFor, t.lockAt)
	if _, err := r.run(ctx, runPlan{variant: vi(DemoStallClosed), repeat: 1, clients: clients, warmup: t.warmup,
		duration: t.stallWindow, injections: true, noLimit: true}); err != nil {
		return err
	}
	rate := math.Round(0.6 * ceiling)
	r.out("pgtrial: stall: open model at %.0f tx/s with the same lock", rate)
	if _, err := r.run(ctx, runPlan{variant: vi(DemoStallOpen), repeat: 1, clients: clients, rate: rate, warmup: t.warmup,
		duration: t.stallWindow, injections: true, noLimit: true}); err != nil {
		return err
	}
	return nil
}
