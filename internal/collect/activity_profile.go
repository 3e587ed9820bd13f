package collect

import (
	"context"
	"time"
)

// kindActivity is the per-pid pg_stat_activity sampler that runs beside a
// pg_wait_sampling wait source. It is part of the waits collector, not a
// collector of its own (Kinds leaves it out): waits.csv comes from the
// profile, activity.csv from these samples.
const kindActivity = "activity"

// pidSampler samples pg_stat_activity once every Config.WaitInterval, at a
// random instant of the period, into activity.csv alone. The
// pg_wait_sampling source counts waits better (every 10 ms, by itself)
// but keeps no instants: the slow tail's join (internal/explain) needs to
// know what one backend was doing while one transaction ran, and that
// takes a snapshot with a time.
type pidSampler struct {
	cfg  *Config
	conn lazyConn
	act  *activity
}

// newPIDSampler opens its own connection and creates activity.csv.
func newPIDSampler(ctx context.Context, cfg *Config) (*pidSampler, error) {
	p := &pidSampler{cfg: cfg, conn: lazyConn{connString: cfg.ConnString}}
	conn, err := p.conn.get(ctx)
	if err != nil {
		return nil, err
	}
	if p.act, err = openActivity(ctx, conn, cfg.Dir); err != nil {
		p.conn.close()
		return nil, err
	}
	return p, nil
}

func (p *pidSampler) period() time.Duration { return p.cfg.WaitInterval }

func (p *pidSampler) randomPhase() bool { return true }

// sample takes one snapshot and writes its client backends (flushed at
// once: this source has no interval to wait for).
func (p *pidSampler) sample(ctx context.Context, _ time.Time) error {
	conn, err := p.conn.get(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, sampleTimeout)
	defer cancel()
	_, instant, err := p.act.sample(ctx, conn)
	if err != nil {
		return err
	}
	if err := p.act.write(instant, p.cfg.RunStart, p.cfg.WaitInterval); err != nil {
		return err
	}
	return p.act.out.Flush()
}

func (p *pidSampler) close() error {
	err := p.act.out.Close()
	p.conn.close()
	return err
}
