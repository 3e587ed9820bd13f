// Package age ages a freshly loaded table the way a month of production does: each
// "day" updates a share of its rows chosen at random, a plain VACUUM runs every few
// days, until a target is met (days, size × the starting size, or free space per
// pgstattuple); before and after it measures pages, rows, free and dead space and the
// indexes (seed 001: a third of the rows a day with a weekly VACUUM took 224 pages to
// 399, 49 % free).
//
// Autovacuum is left as the server and table have it (production has it) unless
// Config.NoAutovacuum: the "days" pass in seconds, so autovacuum, which runs on the
// wall clock (autovacuum_naptime), visits a day's dead rows when it happens to wake,
// not once a day; with it off the weekly VACUUM alone cleans up and the same flags
// give the same table. Either way the report says how many autovacuum runs there were.
package age

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/pgerr"
	"github.com/pgtrial/pgtrial/internal/pgsession"
)

// Defaults and limits of Config.
const (
	DefaultDays        = 30
	MaxDays            = 3650
	DefaultDaily       = 1.0 / 3
	DefaultVacuumEvery = 7
	DefaultBatch       = 10000
	DefaultMaxTime     = 24 * time.Hour
)

// Config is one aging.
type Config struct {
	Table string // default pgbench_accounts
	Key   string // the column rows are chosen by (default: the one-column primary key)
	Set   string // the SET list of the update (default for pgbench_accounts: abalance = abalance + 1)
	// Days is the most days to age (default 30); UntilSize (× the starting pages) and
	// UntilFree (pgstattuple's free_percent, %) stop earlier when met, checked after
	// each day (0: not a target).
	Days        int
	UntilSize   float64
	UntilFree   float64
	Daily       float64 // share of the rows updated each day, (0, 1] (default 1/3)
	VacuumEvery int     // a plain VACUUM after every this many days (default 7; -1: never)
	Batch       int     // keys visited per UPDATE statement, each its own transaction (default 10,000)
	Seed        float64 // setseed's base, in [-1, 1]: the same seed picks the same rows for the same plan
	OwnData     bool    // age a table pgtrial did not create (--i-own-this-data)
	// NoAutovacuum turns autovacuum off on the table while aging (ALTER TABLE … SET
	// (autovacuum_enabled = false)) and puts its setting back at the end, error and
	// cancellation included.
	NoAutovacuum bool
	MaxTime      time.Duration // the whole aging's limit (default 24 h)
	Out          io.Writer     // progress; nil: none
	TTY          bool          // Out is a terminal: one line rewritten during a day
}

// Result is what an aging did and found.
type Result struct {
	Table       string  `json:"table"`
	Key         string  `json:"key"`
	Set         string  `json:"set"`
	Daily       float64 `json:"daily"`
	VacuumEvery int     `json:"vacuum_every"`
	Before      State   `json:"before"`
	After       State   `json:"after"`
	Days        int     `json:"days"`       // days aged
	Updated     int64   `json:"updated"`    // row updates, all days
	Vacuums     int     `json:"vacuums"`    // plain VACUUMs run
	Stopped     string  `json:"stopped"`    // which target stopped it, in words
	Reached     bool    `json:"reached"`    // a target (or the days) was met, not the time limit
	Missing     string  `json:"missing"`    // why free space is an estimate ("" when measured)
	Autovacuum  string  `json:"autovacuum"` // "on (server and table settings)" or "off during aging"
	Elapsed     float64 `json:"elapsed_s"`
	ExtCreated  bool    `json:"pgstattuple_created,omitempty"`
}

// Growth is the pages after / the pages before (the "× fresh" of the seed).
func (r *Result) Growth() float64 {
	if r.Before.Pages == 0 {
		return math.NaN()
	}
	return float64(r.After.Pages) / float64(r.Before.Pages)
}

// ErrNotReached is wrapped by Run's error when --days passed before --until-size or
// --until-free was met (the Result is still returned).
var ErrNotReached = errors.New("target not reached")

func (c *Config) defaults() error {
	if c.Table == "" {
		c.Table = PgbenchAccounts
	}
	if c.Days == 0 {
		c.Days = DefaultDays
	}
	if c.Daily == 0 {
		c.Daily = DefaultDaily
	}
	if c.VacuumEvery == 0 {
		c.VacuumEvery = DefaultVacuumEvery
	}
	if c.Batch == 0 {
		c.Batch = DefaultBatch
	}
	if c.MaxTime == 0 {
		c.MaxTime = DefaultMaxTime
	}
	switch {
	case c.Days < 1 || c.Days > MaxDays:
		return fmt.Errorf("age: --days %d: give 1..%d", c.Days, MaxDays)
	case !(c.Daily > 0 && c.Daily <= 1):
		return fmt.Errorf("age: --daily %g: give a share of the rows in (0, 1], e.g. 0.333", c.Daily)
	case c.VacuumEvery < -1:
		return fmt.Errorf("age: --vacuum-every %d: give days (≥ 1), or -1 for never", c.VacuumEvery)
	case c.UntilSize < 0 || (c.UntilSize > 0 && c.UntilSize <= 1):
		return fmt.Errorf("age: --until-size %g: give a growth above 1 (× the starting pages), e.g. 1.5", c.UntilSize)
	case c.UntilFree < 0 || c.UntilFree >= 100:
		return fmt.Errorf("age: --until-free %g: give a percentage of free space below 100, e.g. 40", c.UntilFree)
	case c.Batch < 1:
		return fmt.Errorf("age: batch %d: give at least 1 key per statement", c.Batch)
	case c.Seed < -1 || c.Seed > 1:
		return fmt.Errorf("age: seed %g: give a number in [-1, 1] (setseed's range)", c.Seed)
	}
	return nil
}

// NameAge is the application_name of aging's session.
const NameAge = "pgtrial-age"

// Run ages the table on the server of cc, on one session of pgtrial's own (no
// statement timeout: a VACUUM takes what it takes; ctx and MaxTime bound it). It returns
// the result also when a target was not met within the days (its error then wraps
// ErrNotReached).
func Run(ctx context.Context, cc *pgx.ConnConfig, cfg Config) (_ *Result, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.MaxTime)
	defer cancel()
	cc = cc.Copy()
	pgsession.Own(&cc.Config, NameAge, pgsession.Unbounded)
	connect := func(ctx context.Context) (*pgx.Conn, error) {
		cctx, ccancel := context.WithTimeout(ctx, 60*time.Second)
		defer ccancel()
		c, err := pgx.ConnectConfig(cctx, cc)
		if err != nil {
			return nil, pgerr.Connect(err, &cc.Config)
		}
		return c, nil
	}
	conn, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	t, err := resolveTable(ctx, conn, cfg)
	if err != nil {
		return nil, err
	}
	m := newMeter(ctx, conn, t.name)
	if cfg.UntilFree > 0 && !m.pgstattuple {
		return nil, fmt.Errorf("age: --until-free needs pgstattuple, and %s: install the contrib package or ask for pg_stat_scan_tables, or use --until-size", m.Missing)
	}
	res := &Result{Table: t.name, Key: t.keyName, Set: t.set, Daily: cfg.Daily, VacuumEvery: cfg.VacuumEvery,
		Missing: m.Missing, ExtCreated: m.Created, Autovacuum: "as the server and table set it"}
	if cfg.NoAutovacuum {
		res.Autovacuum = "off on the table during aging" // before p.before prints it
	}
	if res.Before, err = m.full(ctx, conn, 0); err != nil {
		return nil, err
	}
	p := newProgress(cfg.Out, cfg.TTY)
	p.before(res)
	if cfg.NoAutovacuum {
		var restore func() error
		if restore, err = autovacuumOff(ctx, conn, t.name, connect); err != nil {
			return nil, err
		}
		defer func() {
			if rerr := restore(); rerr != nil && (err == nil || errors.Is(err, ErrNotReached)) { // err: Run's result
				err = rerr
			}
		}()
	}
	// The day's batches are bounded by the rows the table can hold: at most
	// MaxHeapTuplesPerPage (291 for 8 kB pages) a page, whatever the estimate says.
	u := newUpdater(t, cfg.Batch, cfg.Daily, max(res.Before.Rows, 291*res.Before.Pages, 1))
	aged := func() error {
		for day := 1; day <= cfg.Days; day++ {
			seed := daySeed(cfg.Seed, day)
			dayStart := time.Now()
			n, err := u.day(ctx, conn, seed, func(scanned int64) { p.during(day, cfg.Days, scanned, res.Before.Rows, time.Since(dayStart)) })
			if err != nil {
				return fmt.Errorf("age: day %d: %w", day, err)
			}
			res.Updated += n
			vacuumed := cfg.VacuumEvery > 0 && day%cfg.VacuumEvery == 0
			if vacuumed {
				if _, err := conn.Exec(ctx, "vacuum "+t.name); err != nil {
					return fmt.Errorf("age: day %d: vacuum %s: %w", day, t.name, err)
				}
				res.Vacuums++
			}
			res.Days = day
			pages, err := m.pages(ctx, conn)
			if err != nil {
				return err
			}
			free := math.NaN()
			if cfg.UntilFree > 0 {
				if free, err = m.free(ctx, conn); err != nil {
					return err
				}
			}
			p.day(day, n, pages, float64(pages)/float64(max(res.Before.Pages, 1)), free, vacuumed, time.Since(dayStart))
			switch {
			case cfg.UntilSize > 0 && float64(pages) >= cfg.UntilSize*float64(res.Before.Pages):
				res.Stopped, res.Reached = fmt.Sprintf("size reached %.2f× the starting pages (target %g×) after %d days", float64(pages)/float64(max(res.Before.Pages, 1)), cfg.UntilSize, day), true
				return nil
			case cfg.UntilFree > 0 && free >= cfg.UntilFree:
				res.Stopped, res.Reached = fmt.Sprintf("free space reached %.1f %% (target %g %%) after %d days", free, cfg.UntilFree, day), true
				return nil
			}
		}
		if cfg.UntilSize > 0 || cfg.UntilFree > 0 {
			res.Stopped = fmt.Sprintf("%d days passed before the target was met", res.Days)
			return nil
		}
		res.Stopped, res.Reached = fmt.Sprintf("%d days aged", res.Days), true
		return nil
	}
	if err = aged(); err != nil {
		return res, err
	}
	if res.After, err = m.full(ctx, conn, res.Days); err != nil {
		return res, err
	}
	res.Elapsed = time.Since(start).Seconds()
	if !res.Reached {
		return res, fmt.Errorf("age: %s (%.2f× the starting pages): raise --days: %w", res.Stopped, res.Growth(), ErrNotReached)
	}
	return res, nil
}

// daySeed is setseed's value for day d: base moved by the day's golden-ratio step,
// folded back into [-1, 1].
func daySeed(base float64, d int) float64 {
	x := math.Mod(base+1+float64(d)*0.6180339887498949, 2) // in [0, 2)
	return x - 1
}
