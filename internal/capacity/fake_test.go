package capacity

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// ln100 is −ln(0.01): the p99 of an exponential response time is
// ln(100) times its mean.
var ln100 = math.Log(100)

// mm1 is a fake server with an M/M/1-like curve: at ρ = rate/capacity < 1
// the response time's p99 is ln(100)·s/(1 − ρ) for service time s, the
// rate is achieved and lag is steady; at ρ ≥ 1 the lag grows, only the
// capacity is achieved and p99 is huge. Closed runs achieve
// capacity·closedSpread[i] (1 when nil).
type mm1 struct {
	capacity     float64
	service      time.Duration
	closedSpread []float64

	// noise, when set, multiplies each open run's p99 (by run number n).
	noise func(n int) float64
	// flat: p99 is ln(100)·s at every rate up to the capacity, inclusive,
	// and the ceiling is held.
	flat bool
	// failAt: the run with this number returns err.
	failAt int
	err    error
	// cancelAt: the run with this number calls cancel; with ctxAware it
	// then returns ctx.Err(), else it finishes normally.
	cancelAt int
	cancel   context.CancelFunc
	ctxAware bool

	closed, open int       // runs made
	ns           []int     // run numbers received, in order
	rates        []float64 // open rates asked for, in order
}

// sloRate is the true highest rate whose p99 ≤ limit: capacity·(1 − ln(100)·s/limit).
func (f *mm1) sloRate(limit time.Duration) float64 {
	return f.capacity * (1 - ln100*float64(f.service)/float64(limit))
}

func (f *mm1) hook(ctx context.Context, n int) error {
	f.ns = append(f.ns, n)
	if n == f.failAt {
		return f.err
	}
	if n == f.cancelAt {
		f.cancel()
		if f.ctxAware {
			return ctx.Err()
		}
	}
	return nil
}

func (f *mm1) Closed(ctx context.Context, n int) (Probe, error) {
	if err := f.hook(ctx, n); err != nil {
		return Probe{}, err
	}
	spread := 1.0
	if f.closed < len(f.closedSpread) {
		spread = f.closedSpread[f.closed]
	}
	f.closed++
	return Probe{Achieved: f.capacity * spread, Quantile: f.service, Dir: fmt.Sprintf("runs/%03d", n)}, nil
}

func (f *mm1) Open(ctx context.Context, rate float64, n int) (Probe, error) {
	if err := f.hook(ctx, n); err != nil {
		return Probe{}, err
	}
	f.open++
	f.rates = append(f.rates, rate)
	pr := Probe{Achieved: rate, Dir: fmt.Sprintf("runs/%03d", n)}
	rho := rate / f.capacity
	base := ln100 * float64(f.service)
	switch {
	case f.flat && rho <= 1:
		pr.Quantile = time.Duration(base)
	case rho >= 1:
		pr.Quantile = time.Hour
		pr.LagGrowing = true
		pr.Achieved = f.capacity
	default:
		pr.Quantile = time.Duration(base / (1 - rho))
	}
	if f.noise != nil {
		pr.Quantile = time.Duration(float64(pr.Quantile) * f.noise(n))
	}
	return pr, nil
}

// noiseFrom multiplies p99 by a factor uniform in [1 − a, 1 + a], drawn
// from a PCG seeded with seed and the run number.
func noiseFrom(seed uint64, a float64) func(int) float64 {
	return func(n int) float64 {
		r := rand.New(rand.NewPCG(seed, uint64(n)))
		return 1 - a + 2*a*r.Float64()
	}
}
