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
//     Fraction 1). If it passes, the result is the ceiling (StopAtCeiling):
//     the search never goes above it, since the closed model with the same
//     clients is the most they commit; find more with more clients.
//  4. Halving. When the lowest fraction fails, the rate is halved (phase
//     "halve") until a run passes, MaxSteps are spent or the next rate would
//     be below MinRate (default 1 tx/s). If none passes, Rate is 0 and
//     Stopped is StopLowestFails; Fail is the lowest rate tried.
//  5. Bisection. With low = the highest passing rate and high = the lowest
//     failing rate: while (high − low)/low > Precision (default 0.05) and
//     steps are left, run at mid = (low + high)/2 (arithmetic) and move low
//     (pass) or high (fail) to it. MaxSteps (default 8) bounds the halving
//     and bisection runs together, so the search makes at most
//     CeilingRepeats + len(Fractions) + 1 + MaxSteps runs.
//
// The answer is Rate = low, the target rate of the run Pass, and Fail is the
// run at high. Because the true SLO rate r* satisfies low ≤ r* < high when
// the server's latency rises with the rate, a search that ends with
// StopPrecision has r* − low < Precision·low.
//
// # Noise
//
// Every rate is run once and never again. A noisy run can fail at a rate the
// server holds, or pass one it does not; the search takes it as it is, and
// the bracket moves. Every probe lies strictly inside the current bracket
// (fractions stop at the first failure; halving goes below the lowest
// failure while nothing has passed; bisection probes between low and high),
// so the runs always order consistently: every passing run is below every
// failing run, low is the highest passing rate and high the lowest failing
// rate of all runs. What noise changes is where the bracket lands, not its
// consistency: the report shows the two runs so a reader can judge them.
//
// # Judging a run (Config.Judge)
//
// An open-model run meets the SLO when all of these hold:
//
//   - Quantile ≤ Limit (the SLO's quantile of response time, measured from
//     the intended start, so queueing behind a slow server counts);
//   - the schedule lag is not growing (a server that falls further behind
//     over the window does not hold the rate, whatever its latency so far);
//   - Achieved ≥ (1 − tol)·Rate: committed tx/s reach the target, with
//     tol = max(AchievedTolerance (default 5 %), 3/√E) where E = Rate ×
//     WindowS is the number of arrivals the window expects (Poisson noise:
//     a short window at a low rate may fall 3√E short by chance);
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
