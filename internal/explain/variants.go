package explain

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// VariantChange is one variant against the first: the change of each
// figure per level and over the ramp, with its interval and verdict.
type VariantChange struct {
	Baseline string `json:"baseline"`
	Variant  string `json:"variant"`
	// Levels are the comparisons level by level (one level, 0, for a fixed
	// load): compare.Build's metrics (tps, latency, waits by type, blocks
	// per call of the top statements; Mann-Whitney, its primary at α, the
	// rest under Holm) and the figures it does not have (speed, vmstat,
	// disk), exploratory under a Holm family of their own.
	Levels []*LevelChange `json:"levels"`
	// OverRamp is every figure over all levels at once: the runs paired by
	// (level, repeat), the Wilcoxon signed-rank test of the pairs'
	// log-ratios (differences for shares), operational speed (calls/s)
	// the primary at α, the rest exploratory under Holm; nil with one level.
	OverRamp []*Change `json:"over_ramp,omitempty"`
	// Statements are the top statements' shared blocks per call, paired
	// as OverRamp (or by repeat for a fixed load), each named with its text.
	Statements []*Change `json:"statements,omitempty"`
	// WaitEvents are the wait events whose share of active time changed:
	// differs by the paired test, or moved by at least a point.
	WaitEvents []*Change `json:"wait_events,omitempty"`
	Notes      []string  `json:"notes,omitempty"`
}

// LevelChange is the variant against the baseline at one level.
type LevelChange struct {
	Level   float64   `json:"level"`
	RunsA   []string  `json:"runs_a"`
	RunsB   []string  `json:"runs_b"`
	Primary string    `json:"primary"` // compare's primary metric
	Changes []*Change `json:"changes"`
}

// overRampPrimary is the primary figure over a ramp: operational speed.
const overRampPrimary = FigCalls

// variants compares each variant with the first.
func variants(in *ExperimentInput, cfg Config) ([]*VariantChange, []string) {
	_ = cfg
	if in == nil || len(in.Variants) < 2 {
		return nil, nil
	}
	var warnings []string
	levels := in.Levels
	if len(levels) == 0 {
		levels = []float64{0}
	}
	figs := measureAll(in)
	byDir := map[string]ExpRun{}
	for _, r := range in.Runs {
		byDir[r.Dir] = r
	}
	base := in.Variants[0]
	var out []*VariantChange
	for _, v := range in.Variants[1:] {
		vc := &VariantChange{Baseline: base, Variant: v}
		for _, level := range levels {
			a, b := sideRuns(in, base, level), sideRuns(in, v, level)
			if len(a) == 0 || len(b) == 0 {
				warnings = append(warnings, fmt.Sprintf("variants: %s against %s at level %s: no runs on one side", v, base, format.Sig3(level)))
				continue
			}
			vc.Levels = append(vc.Levels, levelChange(in, level, base, v, a, b, cellRuns(figs, base, level), cellRuns(figs, v, level)))
		}
		pa, pb := pairRuns(figs[base], figs[v])
		if len(levels) > 1 {
			vc.OverRamp = overRamp(in, pa, pb)
			vc.Notes = append(vc.Notes, fmt.Sprintf("over the ramp: the runs paired by level and repeat (%d pairs), "+
				"the Wilcoxon signed-rank test of the pairs' log-ratios (differences in points for wait shares); "+
				"operational speed (%s) is the primary at α = %s, the other figures exploratory under Holm's correction; "+
				"a level's own verdicts are compare's (Mann-Whitney)", len(pa), overRampPrimary, num(alphaOf())))
		}
		if !in.Interleaved && len(pa) > 0 {
			vc.Notes = append(vc.Notes, "the variants were not interleaved: a pair's runs did not run side by side, so a drift over time falls between the variants, not within a pair")
		}
		vc.Statements = statementChanges(in, pa, pb)
		vc.Notes = append(vc.Notes, updateNotes(vc.Statements)...)
		vc.WaitEvents = waitEventChanges(in, pa, pb)
		if len(vc.Levels) > 0 {
			vc.finiteFields()
			out = append(out, vc)
		}
	}
	return out, warnings
}

// pairsWord says what the pairs are: "level×repeat" over a ramp,
// "repeat" for a fixed load.
func pairsWord(in *ExperimentInput) string {
	if len(in.Levels) > 1 {
		return "level×repeat"
	}
	return "repeat"
}

func alphaOf() float64 { return stats.DefaultAlpha }

func marginOf(in *ExperimentInput) float64 {
	if in.Margin > 0 && in.Margin < 1 {
		return in.Margin
	}
	return stats.DefaultMargin
}

// sideRuns are variant v's runs at level as compare's RunRefs.
func sideRuns(in *ExperimentInput, v string, level float64) []compare.RunRef {
	var out []compare.RunRef
	for _, r := range in.Runs {
		if r.Variant != v || r.Level != level || r.Run == nil || r.Run.Summary == nil {
			continue
		}
		out = append(out, compare.RunRef{Label: fmt.Sprintf("%s#%d", v, len(out)+1), Dir: r.Dir, Run: r.Run,
			StartedAt: r.Run.StartedAt, Interrupted: r.Run.Interrupted, Aborted: r.Run.Aborted})
	}
	return out
}

// levelChange is one level's comparison: compare.Build's metrics, then the
// figures compare does not have as exploratory verdicts (Mann-Whitney,
// Holm over them).
func levelChange(in *ExperimentInput, level float64, base, v string, a, b []compare.RunRef, fa, fb []*runFigures) *LevelChange {
	lc := &LevelChange{Level: level}
	for _, r := range fa {
		lc.RunsA = append(lc.RunsA, r.label)
	}
	for _, r := range fb {
		lc.RunsB = append(lc.RunsB, r.label)
	}
	rep := compare.Build(compare.Options{NameA: base, NameB: v, Seed: in.Seed | 1, Top: compare.DefaultTop,
		Primary: in.Primary, Margin: in.Margin, VariantKnown: true}, a, b)
	lc.Primary = rep.Primary
	for i := range rep.Metrics {
		m := &rep.Metrics[i]
		c := fromVerdict(m.Metric, m.Unit, &m.Verdict)
		c.QueryID, c.Query = m.QueryID, results.RedactSQL(m.Query)
		lc.Changes = append(lc.Changes, c)
	}
	// The figures compare has not: speed, vmstat, disk.
	var extra []string
	for _, n := range figureOrder(append(slices.Clone(fa), fb...)) {
		if n == FigCalls || n == FigRows || n == FigDiskUtil || n == FigDiskAwait || isOSFigure(n) {
			extra = append(extra, n)
		}
	}
	vals := func(runs []*runFigures, n string) []float64 {
		out := make([]float64, len(runs))
		for i, r := range runs {
			out[i] = r.value(n)
		}
		return out
	}
	var ps []float64
	for _, n := range extra {
		ps = append(ps, stats.MannWhitney(vals(fa, n), vals(fb, n)).P)
	}
	steps := stats.Holm(ps, alphaOf())
	for i, n := range extra {
		k := kindOf(fa, fb, n)
		cfg := stats.VerdictConfig{Metric: n, HigherIsBetter: k.higherIsBetter, NameB: v, Margin: in.Margin,
			Role: stats.RoleExploratory, Holm: &steps[i]}
		if k.neutral {
			cfg.Better, cfg.Worse = "lower", "higher"
			cfg.HigherIsBetter = false
		}
		if why, ok := missingEverywhere(fa, fb, n); ok {
			lc.Changes = append(lc.Changes, &Change{Figure: n, Unit: k.unit, Role: stats.RoleExploratory, Outcome: OutcomeMissing,
				Point: math.NaN(), A: math.NaN(), B: math.NaN(), Text: n + ": missing (" + why + ")"})
			continue
		}
		r := stats.Verdict(cfg, vals(fa, n), vals(fb, n))
		lc.Changes = append(lc.Changes, fromVerdict(n, k.unit, &r))
	}
	return lc
}

// missingEverywhere is the reasons figure n is missing when no run of
// either side has it.
func missingEverywhere(fa, fb []*runFigures, n string) (string, bool) {
	var why []string
	for _, r := range append(slices.Clone(fa), fb...) {
		if _, ok := r.values[n]; ok {
			return "", false
		}
		if m := r.missing[n]; m != "" && !slices.Contains(why, m) {
			why = append(why, m)
		}
	}
	if len(why) == 0 {
		why = append(why, "not measured in these runs")
	}
	return strings.Join(why, "; "), true
}

func isOSFigure(n string) bool {
	return slices.ContainsFunc(osFigures, func(c osFigure) bool { return c.name == n })
}

// kindOf is figure n's kind as the runs record it.
func kindOf(fa, fb []*runFigures, n string) figureKind {
	for _, r := range append(slices.Clone(fa), fb...) {
		if k, ok := r.kinds[n]; ok {
			return k
		}
	}
	if strings.HasSuffix(n, " %") {
		return figureKind{unit: "%", points: true, neutral: true}
	}
	return figureKind{neutral: true}
}

// fromVerdict is a level's verdict as a Change; one run a side is
// described, not judged.
func fromVerdict(name, unit string, v *stats.VerdictResult) *Change {
	c := &Change{Figure: name, Unit: unit, Role: v.Role, A: v.A.Median, B: v.B.Median, Test: v.Test, P: v.P,
		Level: v.Level, NA: v.NA, NB: v.NB, Outcome: v.Outcome, Text: v.Text}
	iv := v.Ratio
	c.Ratio = true
	if !v.Ratio.OK && v.Diff.Method != "" { // a value ≤ 0: the verdict rests on the difference
		iv, c.Ratio = v.Diff, false
	}
	c.Point, c.Lo, c.Hi, c.IntervalOK, c.Conf = iv.Point, iv.Lo, iv.Hi, iv.OK, iv.Conf
	if v.NA == 0 || v.NB == 0 {
		c.Outcome = OutcomeMissing // no run of a side has it: "cannot compare"
		return c
	}
	if v.NA == 1 && v.NB == 1 {
		c.Outcome = OutcomeDescribed
		ch := signedNum(v.B.Median - v.A.Median)
		if v.A.Median > 0 && v.B.Median > 0 {
			ch = changeWord(true, v.B.Median/v.A.Median, false)
		}
		c.Text = fmt.Sprintf("described, not judged (1 vs 1 runs): %s %s → %s (%s)", name, num(v.A.Median), num(v.B.Median), ch)
	}
	return c
}

// pairRuns pairs the baseline's and the variant's runs by (level,
// repeat), in the order of the levels then repeats.
func pairRuns(a, b []*runFigures) (pa, pb []*runFigures) {
	type key struct {
		level  float64
		repeat int
	}
	inB := map[key]*runFigures{}
	for _, r := range b {
		inB[key{r.level, r.repeat}] = r
	}
	sorted := slices.Clone(a)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].level != sorted[j].level {
			return sorted[i].level < sorted[j].level
		}
		return sorted[i].repeat < sorted[j].repeat
	})
	for _, r := range sorted {
		if m, ok := inB[key{r.level, r.repeat}]; ok {
			pa, pb = append(pa, r), append(pb, m)
		}
	}
	return pa, pb
}

// pairValues are figure n of the paired runs (a wait share a run with
// samples lacks is 0).
func pairValues(runs []*runFigures, n string) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.value(n)
		if math.IsNaN(out[i]) && (strings.HasPrefix(n, "wait ") || strings.HasPrefix(n, "event ")) && strings.HasSuffix(n, " %") {
			out[i] = r.waitShare(n)
		}
	}
	return out
}

// overRamp is every figure over the paired runs: speed the primary at α,
// the rest exploratory under Holm.
func overRamp(in *ExperimentInput, pa, pb []*runFigures) []*Change {
	if len(pa) == 0 {
		return nil
	}
	var names []string
	for _, n := range figureOrder(append(slices.Clone(pa), pb...)) {
		if strings.HasPrefix(n, "event ") || strings.HasSuffix(n, " sessions") || n == "id" {
			// The wait events have their own list; average sessions are
			// the shares over again, id is 100 − us − sy − wa − st: kept out
			// of Holm's family, which they would only widen.
			continue
		}
		names = append(names, n)
	}
	alpha := alphaOf()
	specs := make([]pairedSpec, len(names))
	var ps []float64
	var expl []int
	var missing []*Change
	for i, n := range names {
		k := kindOf(pa, pb, n)
		if why, ok := missingEverywhere(pa, pb, n); ok && !strings.HasPrefix(n, "wait ") {
			missing = append(missing, &Change{Figure: n, Unit: k.unit, Role: stats.RoleExploratory, Outcome: OutcomeMissing,
				Point: math.NaN(), A: math.NaN(), B: math.NaN(), Text: displayName(n) + ": missing (" + why + ")"})
			continue
		}
		specs[i] = pairedSpec{name: n, pairs: pairsWord(in), unit: k.unit, points: k.points, higherIsBetter: k.higherIsBetter, neutral: k.neutral,
			alpha: alpha, margin: marginOf(in), role: stats.RolePrimary}
		if n != overRampPrimary {
			specs[i].role = stats.RoleExploratory
			ps = append(ps, pairedP(specs[i], pairValues(pa, n), pairValues(pb, n)))
			expl = append(expl, i)
		}
	}
	steps := stats.Holm(ps, alpha)
	for k, i := range expl {
		specs[i].holm, specs[i].alpha = &steps[k], steps[k].Level
	}
	var out []*Change
	for i, n := range names {
		if specs[i].name == "" {
			continue // missing on both sides
		}
		out = append(out, pairedChange(specs[i], pairValues(pa, n), pairValues(pb, n)))
	}
	return append(out, missing...)
}

// pairedP is the signed-rank p of the pairs as pairedChange tests them.
func pairedP(s pairedSpec, a, b []float64) float64 {
	s.alpha, s.holm = alphaOf(), nil
	return pairedChange(s, a, b).P
}

// statementChanges are the top statements (by summed share of execution
// time) that ran on both sides, their shared blocks per call paired by
// (level, repeat), matched by queryid, else by identical text; exploratory
// under Holm over them.
func statementChanges(in *ExperimentInput, pa, pb []*runFigures) []*Change {
	type stmt struct {
		id    int64
		text  string
		share float64
		a, b  []float64
	}
	byKey := map[string]*stmt{}
	var order []*stmt
	key := func(s results.StatementCost) string { return strings.Join(strings.Fields(s.Query), " ") }
	for i := range pa {
		for side, r := range []*runFigures{pa[i], pb[i]} {
			for _, s := range r.stmts {
				if s.Calls <= 0 {
					continue
				}
				st := byKey[key(s)]
				if st == nil {
					st = &stmt{id: s.QueryID, text: s.Query, a: nanSlice(len(pa)), b: nanSlice(len(pa))}
					byKey[key(s)] = st
					order = append(order, st)
				}
				st.share += s.Share
				if side == 0 {
					st.a[i] = s.SharedHitPerCall + s.SharedReadPerCall
				} else {
					st.b[i] = s.SharedHitPerCall + s.SharedReadPerCall
				}
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].share > order[j].share })
	var picked []*stmt
	for _, s := range order {
		both := false
		for i := range s.a {
			if finite(s.a[i]) && finite(s.b[i]) {
				both = true
				break
			}
		}
		if both && len(picked) < compare.DefaultTop {
			picked = append(picked, s)
		}
	}
	if len(picked) == 0 {
		return nil
	}
	alpha := alphaOf()
	var ps []float64
	for _, s := range picked {
		ps = append(ps, pairedP(pairedSpec{name: "blocks/call", pairs: pairsWord(in), alpha: alpha, margin: marginOf(in)}, s.a, s.b))
	}
	steps := stats.Holm(ps, alpha)
	var out []*Change
	for i, s := range picked {
		c := pairedChange(pairedSpec{name: "blocks/call", pairs: pairsWord(in), unit: "blocks/call", alpha: steps[i].Level, margin: marginOf(in),
			role: stats.RoleExploratory, holm: &steps[i]}, s.a, s.b)
		c.QueryID, c.Query = s.id, results.RedactSQL(s.text)
		c.Text += ": " + format.OneLine(c.Query, 90)
		out = append(out, c)
	}
	return out
}

func nanSlice(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}

// waitEventChanges are the wait events whose share of active time
// changed: the paired test on the differences in points, exploratory under
// Holm over every event seen; kept when it differs or the median moved by
// at least 1 point, largest move first.
func waitEventChanges(in *ExperimentInput, pa, pb []*runFigures) []*Change {
	var names []string
	for _, n := range figureOrder(append(slices.Clone(pa), pb...)) {
		if strings.HasPrefix(n, "event ") && strings.HasSuffix(n, " %") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	alpha := alphaOf()
	spec := func(n string) pairedSpec {
		return pairedSpec{name: n, pairs: pairsWord(in), unit: "%", points: true, neutral: true,
			alpha: alpha, margin: marginOf(in), role: stats.RoleExploratory}
	}
	var ps []float64
	for _, n := range names {
		ps = append(ps, pairedP(spec(n), pairValues(pa, n), pairValues(pb, n)))
	}
	steps := stats.Holm(ps, alpha)
	var out []*Change
	for i, n := range names {
		s := spec(n)
		s.alpha, s.holm = steps[i].Level, &steps[i]
		c := pairedChange(s, pairValues(pa, n), pairValues(pb, n))
		if c.Outcome == stats.OutcomeDiffers || math.Abs(c.B-c.A) >= 1 {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].B-out[i].A) > math.Abs(out[j].B-out[j].A) })
	return out
}

// updateNotes say, for the UPDATEs whose blocks per call rose by 10 % or
// more, what usually does that: a hypothesis to check, not a finding.
func updateNotes(cs []*Change) []string {
	var which []string
	for _, c := range cs {
		up := strings.HasPrefix(strings.ToUpper(strings.TrimSpace(c.Query)), "UPDATE")
		if !up || !(c.A > 0) || c.B < 1.1*c.A {
			continue
		}
		which = append(which, fmt.Sprintf("%s (%s → %s blocks/call)", format.OneLine(c.Query, 60), format.Sig3(c.A), format.Sig3(c.B)))
	}
	if len(which) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("more shared blocks per call in %s: each new row version is entered into every index of its table, "+
		"and an index on a column the UPDATE sets stops HOT updates (pg_stat_user_tables.n_tup_hot_upd tells); likely reasons, not tested here",
		strings.Join(which, "; "))}
}

// finiteFields makes every change encodable (Change.finiteFields).
func (vc *VariantChange) finiteFields() {
	for _, l := range vc.Levels {
		for _, c := range l.Changes {
			c.finiteFields()
		}
	}
	for _, list := range [][]*Change{vc.OverRamp, vc.Statements, vc.WaitEvents} {
		for _, c := range list {
			c.finiteFields()
		}
	}
}
