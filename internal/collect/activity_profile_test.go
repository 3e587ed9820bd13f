package collect

import (
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/pgtest"
	"github.com/pgtrial/pgtrial/internal/results"
)

// TestPIDSampler: beside a pg_wait_sampling source, the per-pid sampler
// writes activity.csv alone (a session in pg_sleep is seen by its pid, at
// every sample), and it is not a collector of its own.
func TestPIDSampler(t *testing.T) {
	url, ctx := wtDB(t)
	sleeper := pgtest.Connect(t, ctx, url)
	pid := sleeper.PgConn().PID()
	cfg := wtConfig(t, url, WaitSourceProfile, 50*time.Millisecond, 500*time.Millisecond)
	p, err := newPIDSampler(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := sleeper.Exec(ctx, "SELECT pg_sleep(1)")
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	for range 4 {
		if err := p.sample(ctx, time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := p.close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadActivity(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range rows {
		if r.PID == pid && r.Type == "Timeout" && r.Event == "PgSleep" {
			seen++
		}
	}
	if seen != 4 {
		t.Errorf("the sleeping backend %d in pg_sleep in %d of 4 samples; rows %+v", pid, seen, rows)
	}
	c := &Collector{sources: []runningSource{{kind: KindWaits}, {kind: kindActivity}}}
	if ks := c.Kinds(); len(ks) != 1 || ks[0] != KindWaits {
		t.Errorf("Kinds() = %v, want [waits]: the pid sampler is part of the waits collector", ks)
	}
}
