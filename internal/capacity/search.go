package capacity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

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
	p     Prober
	cfg   Config
	res   *Result
	n     int         // runs made (the last n passed to the Prober)
	rates []*rateRuns // every open-model rate tried, in the order first tried
}

// rateRuns is one rate's runs, as indices into res.Steps.
type rateRuns struct {
	rate   float64
	steps  []int
	passed int
}

func (r *rateRuns) allPass() bool { return r.passed == len(r.steps) }
func (r *rateRuns) allFail() bool { return r.passed == 0 }

// bracket is low, the highest rate whose runs all met the SLO, and high,
// the lowest whose runs all missed it; nil when there is none. The search
// keeps low < high: a new rate is always probed strictly inside (low,
// high), and a repeat can only turn an end mixed, which takes it out of
// its class (see the package comment).
func (s *searcher) bracket() (low, high *rateRuns) {
	for _, r := range s.rates {
		if r.allPass() && (low == nil || r.rate > low.rate) {
			low = r
		}
		if r.allFail() && (high == nil || r.rate < high.rate) {
			high = r
		}
	}
	return low, high
}

// inner is the lowest rate above low that is not all-pass, and the highest
// below high that is not all-fail: the gaps the bisection narrows (they
// are high and low themselves when no rate between them is mixed).
func (s *searcher) inner(low, high *rateRuns) (above, below *rateRuns) {
	for _, r := range s.rates {
		if r.rate > low.rate && !r.allPass() && (above == nil || r.rate < above.rate) {
			above = r
		}
		if r.rate < high.rate && !r.allFail() && (below == nil || r.rate > below.rate) {
			below = r
		}
	}
	return above, below
}

// extreme is the lowest (top false) or the highest (top true) rate tried.
func (s *searcher) extreme(top bool) *rateRuns {
	var out *rateRuns
	for _, r := range s.rates {
		if out == nil || (top && r.rate > out.rate) || (!top && r.rate < out.rate) {
			out = r
		}
	}
	return out
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

	steps := 0 // halving and bisection runs, bounded by MaxSteps
	for {
		low, high := s.bracket()
		switch {
		case high == nil:
			// 3. No rate misses in all its runs: the next fraction above
			// the highest rate tried, then the ceiling itself; there,
			// repeat low and stop.
			if next := s.above(s.extreme(true).rate); next > 0 {
				if _, err := s.open(ctx, PhaseFraction, next); err != nil {
					return s.res, err
				}
				continue
			}
			if low != nil {
				if changed, err := s.confirm(ctx, low); err != nil || changed {
					if err != nil {
						return s.res, err
					}
					continue
				}
			}
			s.finish(StopAtCeiling)
			return s.res, nil

		case low == nil:
			// 4. No rate meets the SLO in all its runs: halve the lowest
			// rate tried; at the end, repeat high.
			next := s.extreme(false).rate / 2
			if steps < c.MaxSteps && next >= c.MinRate {
				steps++
				if _, err := s.open(ctx, PhaseHalve, next); err != nil {
					return s.res, err
				}
				continue
			}
			if changed, err := s.confirm(ctx, high); err != nil || changed {
				if err != nil {
					return s.res, err
				}
				continue
			}
			s.finish(StopLowestFails)
			return s.res, nil

		default:
			// 5. Bisection with single runs between low and the first
			// rate above it that is not all-pass, and between the last
			// rate below high that is not all-fail and high; then the
			// repeats at both ends. An end that turns mixed leaves its
			// class, the bracket widens to the next rate that is all-pass
			// (all-fail), and the search goes on.
			above, below := s.inner(low, high)
			if steps < c.MaxSteps {
				mid := 0.0
				switch {
				case (above.rate-low.rate)/low.rate > c.Precision:
					mid = (low.rate + above.rate) / 2
				case (high.rate-below.rate)/below.rate > c.Precision:
					mid = (below.rate + high.rate) / 2
				}
				if mid > 0 {
					steps++
					if _, err := s.open(ctx, PhaseBisect, mid); err != nil {
						return s.res, err
					}
					continue
				}
			}
			changed, err := s.confirm(ctx, low)
			if err == nil && !changed {
				changed, err = s.confirm(ctx, high)
			}
			if err != nil {
				return s.res, err
			}
			if changed {
				continue
			}
			if (above.rate-low.rate)/low.rate <= c.Precision && (high.rate-below.rate)/below.rate <= c.Precision {
				s.finish(StopPrecision)
			} else {
				s.finish(StopMaxSteps)
			}
			return s.res, nil
		}
	}
}

// above is the lowest of the fractions' rates and the ceiling that lies
// above rate; 0 when none does.
func (s *searcher) above(rate float64) float64 {
	for _, f := range s.cfg.Fractions {
		if r := f * s.res.Ceiling; r > rate {
			return r
		}
	}
	if s.res.Ceiling > rate {
		return s.res.Ceiling
	}
	return 0
}

// confirm repeats rr until it has BracketRepeats runs and says whether it
// left its class (all-pass or all-fail): a repeat went the other way.
func (s *searcher) confirm(ctx context.Context, rr *rateRuns) (bool, error) {
	pass, fail := rr.allPass(), rr.allFail()
	for len(rr.steps) < s.cfg.BracketRepeats {
		if _, err := s.open(ctx, PhaseRepeat, rr.rate); err != nil {
			return false, err
		}
	}
	return rr.allPass() != pass || rr.allFail() != fail, nil
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

// open makes one open-model run at rate and records it with its rate.
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
	var rr *rateRuns
	for _, r := range s.rates {
		if r.rate == rate {
			rr = r
		}
	}
	if rr == nil {
		rr = &rateRuns{rate: rate}
		s.rates = append(s.rates, rr)
	}
	st := Step{N: s.n, Phase: phase, Fraction: rate / s.res.Ceiling, Repeat: len(rr.steps) + 1, Probe: pr, Pass: ok, Why: why}
	rr.steps = append(rr.steps, len(s.res.Steps))
	if ok {
		rr.passed++
	}
	s.res.Steps = append(s.res.Steps, st)
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

// finish fills the answer from the rates' verdicts.
func (s *searcher) finish(stopped string) {
	r := s.res
	r.Stopped = stopped
	r.RunsPerRate = s.cfg.BracketRepeats
	r.Rates = make([]RateRuns, 0, len(s.rates))
	for _, rr := range s.rates {
		out := RateRuns{Rate: rr.rate, Passed: rr.passed, Verdict: VerdictMixed}
		switch {
		case rr.allPass():
			out.Verdict = VerdictHolds
		case rr.allFail():
			out.Verdict = VerdictMisses
		}
		for _, i := range rr.steps {
			out.Runs = append(out.Runs, r.Steps[i].N)
		}
		r.Rates = append(r.Rates, out)
	}
	slices.SortFunc(r.Rates, func(a, b RateRuns) int { return cmp.Compare(a.Rate, b.Rate) })
	r.Low, r.High, r.Rate, r.Pass, r.Fail = 0, 0, 0, nil, nil
	low, high := s.bracket()
	// first is a copy of the first run at rr whose Pass is pass (every run
	// of an end is).
	first := func(rr *rateRuns, pass bool) *Step {
		for _, i := range rr.steps {
			if r.Steps[i].Pass == pass {
				st := r.Steps[i]
				return &st
			}
		}
		return nil
	}
	if low != nil {
		r.Low, r.Rate, r.Pass = low.rate, low.rate, first(low, true)
	}
	if high != nil {
		r.High, r.Fail = high.rate, first(high, false)
	}
}
