// Package capacity finds the highest arrival rate a server holds within a
// latency SLO: the capacity search of an experiment. It is pure: it decides
// which runs to make and what they mean, and a Prober makes them (real load
// in pgtrial, a fake curve in tests).
//
// # The search
//
//  1. Ceiling. CeilingRepeats closed-model runs (default 3);
//     ceiling = median of their committed tx/s. The closed model's latency
//     counts from the actual start, so these runs are never judged against
//     the SLO; they only set the scale.
//  2. Fractions. Open-model runs at rate = f·ceiling for each f of
//     Fractions (default 0.3, 0.6, 0.9), in increasing order, stopping at
//     the first that fails: the rates above it are not run.
//  3. The ceiling itself. When every fraction passes and the last one is
//     below 1, one more open run at 1.0·ceiling (phase "fraction",
//     Fraction 1); when a fraction that failed turns mixed in its repeats
//     (6), the next fraction above it. If the ceiling passes in all its
//     runs, the result is "at least the ceiling" (StopAtCeiling): the
//     search never goes above it, since the closed model with the same
//     clients is the most they commit; find more with more clients.
//  4. Halving. When nothing meets the SLO, the lowest rate tried is halved
//     (phase "halve") until a run passes, MaxSteps are spent or the next
//     rate would be below MinRate (default 1 tx/s). If none passes, Rate is
//     0 and Stopped is StopLowestFails; Fail is a run at the lowest rate.
//  5. Bisection. With low = the highest rate whose runs all passed and
//     high = the lowest whose runs all failed: while a gap next to an end
//     is wider than Precision (default 0.05) — (a − low)/low for a, the
//     first rate above low that is not all-pass, and (high − b)/b for b,
//     the last below high that is not all-fail; a = high and b = low when
//     no rate between them is mixed — and steps are left, one run at the
//     gap's middle (arithmetic). MaxSteps (default 8) bounds the halving
//     and bisection runs together.
//  6. Repeats. Then each end is run again (phase "repeat") until it has
//     BracketRepeats runs (default 3). An end whose repeat goes the other
//     way becomes a mixed rate; the bracket widens to the next rate that
//     is all-pass (all-fail), and the search goes back to 5 (or 3, 4):
//     more bisection where a gap is wide and steps are left, then repeats
//     at the new end. The search ends when both ends have BracketRepeats
//     runs that agree: at most CeilingRepeats + len(Fractions) + 1 +
//     MaxSteps single runs plus BracketRepeats − 1 repeats of every rate
//     that becomes an end.
//
// # The answer: an interval
//
// The capacity is reported as the interval from Low to High: Low met the
// SLO in every one of its BracketRepeats runs, High missed it in every one
// of its runs, and the rates between them, if any, are mixed (some runs
// pass, some fail) or single bisection runs. Let C be the rate at which a
// run meets the SLO half the time (its median p99 is the limit). When a
// run's chance to pass falls with the rate, C lies between Low and High
// unless all of Low's runs passed by luck at a rate above C (or all of
// High's failed below it): with the first run selected by the search, the
// chance is at most ½^(BracketRepeats−1) at C and falls quickly away from
// it. TestSearchCoverage measures it: with p99 noise of σ = 0.1 and 0.2
// (log-normal) and 3 runs per end the interval contains C in 97 % and
// 92 % of 500 searches (Low above C in 3 % and 7 %); with single runs
// (BracketRepeats 1, the former search) in 65 % and 43 %, and the claimed
// rate exceeded C in 28 % and 39 %.
//
// Precision is the resolution of the search: where it stops bisecting.
// It is not the precision of the capacity. The interval's width is what
// the runs can tell apart; noise widens it (mixed rates), and a search
// whose bracket reached Precision with single runs can still be wrong by
// more than Precision. Report the interval, never one end as "the"
// capacity.
//
// # Noise
//
// A noisy run can fail at a rate the server holds, or pass one it does
// not. A new rate is always probed strictly inside (low, high), and a
// repeat can only turn an end mixed, which takes it out of its class, so
// the ends stay ordered: every all-pass rate lies below every all-fail
// rate, Low < High. Mixed rates are the noise made visible; the report
// lists every rate with its runs (Result.Rates).
//
// # Judging a run (Config.Judge)
//
// An open-model run meets the SLO when all of these hold:
//
//   - Quantile ≤ Limit (the SLO's quantile of response time, measured from
//     the intended start, so queueing behind a slow server counts);
//   - the schedule lag is not growing (a server that falls further behind
//     over the window does not hold the rate, whatever its latency so far);
//   - the rate is achieved, by the checklist's rule (stats.RateAchieved):
//     the N transactions started (Probe.Started, else Achieved × WindowS)
//     fall short of the E = Rate × WindowS the window expects by at most
//     max(1 % of E, 3√E) — 3√E is Poisson noise, so a short window at a low
//     rate may fall that short by chance — or 1 % of E with uniform
//     arrivals; without a window, Achieved ≥ 0.99·Rate;
//   - SkippedShare + FailedShare ≤ MaxFailedShare (default 1 %): latency
//     of transactions that never ran or failed is not in the quantile, so
//     too many of them make the quantile flatter than what users see.
//
// A closed-model run is never judged (false, with the reason).
//
// # Ending
//
// Stopped says why the search ended (the Stop… constants). A cancelled
// context or a Prober error ends it at once: Search returns the Result so
// far (the bracket of the runs made, Stopped StopCanceled or StopError) and
// the error wrapped with the step it happened in; errors.Is finds
// context.Canceled and the Prober's error through it. A probe that returns
// an error is not recorded.
package capacity
