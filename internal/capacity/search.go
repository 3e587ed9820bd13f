package capacity

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// Search runs the capacity search described in the package comment with p
// and returns what it found. An invalid cfg or a nil p is an error with a
// nil Result. A cancelled ctx or an error from p ends the search: the
// Result so far comes back with the error (see the package comment), as
// does a ceiling of 0 tx/s (StopNoCeiling).
func Search(ctx context.Context, p Prober, cfg Config) (*Result, error) {
	if p == nil {
		return nil, errors.New("capacity search: no prober")
	}
	c := cfg.Normalized()
	if err := c.validate(); err != nil {
		return nil, err
	}
	s := &searcher{p: p, cfg: c, res: &Result{Config: c}}
	return s.run(ctx)
}

// searcher is the state of one search.
type searcher struct {
	p   Prober
	cfg Config
	res *Result
	n   int // runs made (the last n passed to the Prober)
	// low is the highest passing open run, high the lowest failing one; nil
	// until there is one.
	low, high *Step
}

func (s *searcher) run(ctx context.Context) (*Result, error) {
	c := s.cfg

	// 1. The ceiling: median committed tx/s of the closed runs.
	for i := 0; i < c.CeilingRepeats; i++ {
		if err := s.closed(ctx, i+1); err != nil {
			return s.res, err
		}
	}
	ceiling := s.res.Ceiling
	if !(ceiling > 0) || math.IsInf(ceiling, 0) {
		s.finish(StopNoCeiling)
		return s.res, fmt.Errorf("capacity search: the closed-model ceiling is %v tx/s (median of %d runs): nothing to search below", ceiling, c.CeilingRepeats)
	}

	// 2. Fractions, increasing, up to the first failure.
	for _, f := range c.Fractions {
		st, err := s.open(ctx, PhaseFraction, f*ceiling)
		if err != nil {
			return s.res, err
		}
		if !st.Pass {
			break
		}
	}

	// 3. Every fraction passed: the ceiling itself, unless it was the last
	// fraction.
	if s.high == nil {
		if c.Fractions[len(c.Fractions)-1] < 1 {
			if _, err := s.open(ctx, PhaseFraction, ceiling); err != nil {
				return s.res, err
			}
		}
		if s.high == nil {
			s.finish(StopAtCeiling)
			return s.res, nil
		}
	}

	steps := 0 // halving and bisection runs, bounded by MaxSteps

	// 4. Nothing passed: halve the lowest failing rate.
	for s.low == nil {
		next := s.high.Probe.Rate / 2
		if steps >= c.MaxSteps || next < c.MinRate {
			s.finish(StopLowestFails)
			return s.res, nil
		}
		steps++
		if _, err := s.open(ctx, PhaseHalve, next); err != nil {
			return s.res, err
		}
	}

	// 5. Bisection between the highest pass and the lowest failure.
	for {
		lo, hi := s.low.Probe.Rate, s.high.Probe.Rate
		if (hi-lo)/lo <= c.Precision {
			s.finish(StopPrecision)
			return s.res, nil
		}
		if steps >= c.MaxSteps {
			s.finish(StopMaxSteps)
			return s.res, nil
		}
		steps++
		if _, err := s.open(ctx, PhaseBisect, (lo+hi)/2); err != nil {
			return s.res, err
		}
	}
}

// closed makes the i-th ceiling run and updates the ceiling.
func (s *searcher) closed(ctx context.Context, i int) error {
	what := fmt.Sprintf("ceiling run %d of %d (closed model)", i, s.cfg.CeilingRepeats)
	if err := s.before(ctx, what); err != nil {
		return err
	}
	s.n++
	pr, err := s.p.Closed(ctx, s.n)
	if err != nil {
		return s.failed(ctx, what, err)
	}
	pr.Kind, pr.Rate = KindClosed, 0
	s.res.CeilingRuns = append(s.res.CeilingRuns, pr)
	achieved := make([]float64, len(s.res.CeilingRuns))
	for j, r := range s.res.CeilingRuns {
		achieved[j] = r.Achieved
	}
	s.res.Ceiling = stats.Median(achieved)
	ok, why := s.cfg.Judge(pr)
	s.notify(Step{N: s.n, Phase: PhaseCeiling, Probe: pr, Pass: ok, Why: why})
	return nil
}

// open makes one open-model run at rate, records it and moves the bracket.
func (s *searcher) open(ctx context.Context, phase string, rate float64) (Step, error) {
	what := fmt.Sprintf("%s step at %s tx/s (%s of the ceiling)", phase, format.Sig3(rate), format.Pct(rate/s.res.Ceiling))
	if err := s.before(ctx, what); err != nil {
		return Step{}, err
	}
	s.n++
	pr, err := s.p.Open(ctx, rate, s.n)
	if err != nil {
		return Step{}, s.failed(ctx, what, err)
	}
	pr.Kind, pr.Rate = KindOpen, rate
	ok, why := s.cfg.Judge(pr)
	st := Step{N: s.n, Phase: phase, Fraction: rate / s.res.Ceiling, Probe: pr, Pass: ok, Why: why}
	s.res.Steps = append(s.res.Steps, st)
	// Every probe lies inside the bracket, so these are always true; the
	// tests keep the search honest about it.
	if ok && (s.low == nil || rate > s.low.Probe.Rate) {
		s.low = &st
	}
	if !ok && (s.high == nil || rate < s.high.Probe.Rate) {
		s.high = &st
	}
	s.notify(st)
	return st, nil
}

// before ends the search when ctx is done, before a run.
func (s *searcher) before(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		s.finish(StopCanceled)
		return fmt.Errorf("capacity search interrupted before the %s: %w", what, err)
	}
	return nil
}

// failed ends the search after the Prober's error in a run.
func (s *searcher) failed(ctx context.Context, what string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		s.finish(StopCanceled)
		if !errors.Is(err, cerr) {
			// The cancellation caused err, most likely: keep both findable.
			return fmt.Errorf("capacity search: run %d, %s: %w (%w)", s.n, what, err, cerr)
		}
	} else {
		s.finish(StopError)
	}
	return fmt.Errorf("capacity search: run %d, %s: %w", s.n, what, err)
}

func (s *searcher) notify(st Step) {
	if s.cfg.OnProbe != nil {
		s.cfg.OnProbe(st)
	}
}

// finish fills the answer from the bracket.
func (s *searcher) finish(stopped string) {
	s.res.Stopped = stopped
	s.res.Rate, s.res.Pass, s.res.Fail = 0, nil, nil
	if s.low != nil {
		st := *s.low
		s.res.Rate, s.res.Pass = st.Probe.Rate, &st
	}
	if s.high != nil {
		st := *s.high
		s.res.Fail = &st
	}
}
