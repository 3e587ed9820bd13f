package engine

import (
	"math"
	"sync"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// schedule hands out the intended start times of one group of clients
// (a pgbench thread). Times are µs on the run's clock. A slot's time is a
// function of its index and the seeded stream only — slot k of a Poisson
// schedule is start + Σ_{i≤k} poisson_i, of a uniform one start + k·delay —
// never of when a client asked, so late clients do not shift later slots
// (no coordinated omission, no timer drift).
type schedule struct {
	mu      sync.Mutex
	arrival Arrival
	delay   float64 // mean gap between slots, µs (pgbench's throttle_delay)
	start   int64   // µs
	trigger int64   // time of the last slot handed out (pgbench's throttle_trigger)
	k       int64   // slots handed out
	rnd     *prng.State
}

func newSchedule(arrival Arrival, delay float64, start int64, rnd *prng.State) *schedule {
	return &schedule{arrival: arrival, delay: delay, start: start, trigger: start, rnd: rnd}
}

// next returns the time of the next slot.
func (s *schedule) next() int64 {
	s.mu.Lock()
	s.k++
	if s.arrival == Uniform {
		s.trigger = s.start + int64(math.Round(float64(s.k)*s.delay))
	} else {
		// pgbench: throttle_trigger += getPoissonRand(&ts_throttle_rs, throttle_delay)
		s.trigger += s.rnd.Poisson(s.delay)
	}
	t := s.trigger
	s.mu.Unlock()
	return t
}

// handedOut is the number of slots handed out so far.
func (s *schedule) handedOut() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.k
}
