// Package explain says what the evidence of runs and experiments shows
// about why: the findings (DESIGN.md §7). It reads run directories only
// (internal/results) and computes, with internal/stats:
//
//   - for one run (Run → results.Findings, kept in run.json): level shifts
//     in the timeline matched to what happened near them (changes.go), why
//     the slowest transactions were slow (tail.go), OS alarms (alarms.go),
//     waits against speed and latency across intervals (associations.go),
//     the Pareto of wait events and statements (pareto.go);
//   - for an experiment (Experiment → ExperimentFindings, kept in
//     experiment.json): the ramp per level and variant with its trends and
//     knee (ramp.go), each variant against the first with intervals and
//     verdicts (variants.go), associations across levels (levels.go), the
//     plans that changed between variants (plans.go).
//
// Every finding names its test, its runs and its interval; an association
// is labelled as one, never as a cause; what the evidence cannot decide is
// said to be undecided. The wording people read is internal/report's.
package explain
