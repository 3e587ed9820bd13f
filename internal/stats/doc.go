// Package stats holds the statistics pgtrial's experiments, comparisons and
// checks are built on: run-level summaries, pooled quantiles of merged HDR
// histograms, bootstrap confidence intervals that resample runs, the
// Mann-Whitney U test (exact for small samples) and the Hodges–Lehmann
// interval that inverts it, the Wilcoxon signed-rank test of paired runs
// with its Hodges–Lehmann interval (wilcoxon.go: runs paired by round), the
// non-overlap rule with its real error rate, Holm's step-down correction,
// power (the smallest detectable shift, the runs needed), the verdict with
// its three outcomes (differs, equivalent by two one-sided tests,
// inconclusive), MSER-5 steady-state detection, least-squares trends,
// Pearson and Spearman correlation with p-values (for series in time: on an
// effective sample size that allows for autocorrelation), Pareto selection
// and per-interval rates.
//
// The methods follow ../shared/reference/observability-and-statistics.md §4
// (cited below as "reference §4.x"); pg_expecto's analyses are redone here
// without its mistakes (reference pg_expecto.md §4, §6): correlations on
// non-overlapping intervals with real p-values, trends as slopes with units
// and a scale-free drift, calls and rows never added together.
//
// Conventions:
//   - Every function is pure and deterministic; randomness (the bootstrap) is
//     seeded by the caller (math/rand/v2 PCG).
//   - Inputs are run-level values (one number per run) unless said otherwise.
//     Non-finite values (NaN, ±Inf) are ignored as missing: a run whose metric
//     is undefined is not a run. For paired series (x, y) a pair is dropped
//     when either value is non-finite.
//   - Bad input (empty, too short, constant, NaN) never panics: results carry
//     an OK flag or a Reason and finite zero values instead of NaN, so they
//     can be written to run.json and experiment.json as they are.
package stats
