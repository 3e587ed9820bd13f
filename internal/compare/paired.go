package compare

import (
	"fmt"
	"math"
	"strconv"

	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// PairedResult is the primary metric analysed round by round, when the
// variants ran interleaved in rounds (A B, A B, …; Options.Rounds): the
// per-round log ratios d_r = log(B_r/A_r) tested by Wilcoxon's signed-rank
// test, with the Hodges–Lehmann interval of the ratio that inverts it. A
// drift of the machine across rounds moves A_r and B_r together and
// cancels in d_r, so this is additional evidence next to the primary
// verdict (which compares all of A's runs with all of B's). Drift is the
// trend of A's own values over the rounds (stats.SeriesFit against the
// round number), reported in DriftText when its p < α.
type PairedResult struct {
	Metric string `json:"metric"`
	// Rounds is the complete rounds used (both runs have a value), Runs
	// their runs' labels (A's, B's) in round order.
	Rounds int         `json:"rounds"`
	Runs   [][2]string `json:"runs"`
	// Ratio: D holds log(B_r/A_r) and Ratio the typical per-round ratio
	// B/A (exp of the Hodges–Lehmann centre) with its interval at 1 − α.
	// With a value ≤ 0 (no ratio), D holds B_r − A_r and Ratio is not made:
	// Diff is the difference with its interval, in the metric's unit.
	D     []float64              `json:"d"`
	Ratio stats.Interval         `json:"ratio"`
	Diff  stats.Interval         `json:"diff"`
	Test  stats.SignedRankResult `json:"wilcoxon"`
	Alpha float64                `json:"alpha"`
	Drift stats.TrendResult      `json:"drift"` // A's values against the round number 1, 2, …
	Text  string                 `json:"text"`  // the paired line
	// DriftText is "A's tps drifted −6.0 % over 5 rounds (…)" when the
	// drift's p < α, else empty.
	DriftText string `json:"drift_text,omitempty"`
}

// paired analyses metric m (the primary) over the rounds: each round is a
// pair of indexes into m's values of A and of B, in time order; a round in
// which either run has no value is left out.
func paired(o Options, rep *Report, m *Metric, rounds [][2]int) *PairedResult {
	alpha := rep.Alpha
	if !(alpha > 0 && alpha < 1) {
		alpha = stats.DefaultAlpha
	}
	p := &PairedResult{Metric: m.Metric, Alpha: alpha}
	var a, b []float64
	for _, r := range rounds {
		i, j := r[0], r[1]
		if i < 0 || j < 0 || i >= len(m.ValuesA) || j >= len(m.ValuesB) || m.ValuesA[i] == nil || m.ValuesB[j] == nil {
			continue
		}
		a, b = append(a, *m.ValuesA[i]), append(b, *m.ValuesB[j])
		p.Runs = append(p.Runs, [2]string{rep.RunsA[i].Label, rep.RunsB[j].Label})
	}
	p.Rounds = len(a)
	if p.Rounds == 0 {
		return nil
	}
	d, ratio := stats.PairedLogRatios(a, b)
	if !ratio {
		d = make([]float64, len(a))
		for k := range a {
			d[k] = b[k] - a[k]
		}
	}
	p.D = d
	p.Test = stats.WilcoxonSignedRank(d)
	if ratio {
		p.Ratio = stats.PairedLogRatioCI(a, b, 1-alpha)
	} else {
		p.Diff = stats.SignedRankCI(d, 1-alpha)
	}
	p.Text = pairedText(o, p, ratio)
	x := make([]float64, len(a))
	for k := range x {
		x[k] = float64(k + 1)
	}
	p.Drift = stats.SeriesFit(x, a)
	if p.Drift.OK && p.Drift.SESlope > 0 && p.Drift.P < alpha {
		p.DriftText = fmt.Sprintf("drift across rounds: %s's %s drifted %s over %d rounds (%s; a line fitted to the round number, lag-1 autocorrelation allowed for); "+
			"pairing by round cancels a drift shared by both variants, the unpaired verdict does not",
			o.NameA, m.Metric, signedPct(p.Drift.Drift), p.Rounds, pStr(p.Drift.P))
	}
	return p
}

// pairedText is the paired line, e.g. "paired by round (6 rounds): tps
// ratio 1.04, 95 % interval [1.01, 1.07], Wilcoxon signed-rank exact p =
// 0.031".
func pairedText(o Options, p *PairedResult, ratio bool) string {
	t := p.Test
	s := fmt.Sprintf("paired by round (%d rounds): %s ", p.Rounds, p.Metric)
	iv := p.Diff
	point := func(v float64) string { return signedSig(v) }
	if ratio {
		iv = p.Ratio
		point = func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
		s += "ratio " + o.NameB + "/" + o.NameA + " "
	} else {
		s += "difference " + o.NameB + " − " + o.NameA + " "
	}
	s += point(iv.Point)
	if iv.OK {
		s += fmt.Sprintf(", %s interval [%s, %s]", levelStr(iv.Conf), point(iv.Lo), point(iv.Hi))
	} else {
		s += fmt.Sprintf(" (no %s interval with %d rounds)", levelStr(1-p.Alpha), p.Rounds)
	}
	s += fmt.Sprintf(", Wilcoxon signed-rank %s %s", t.Method, pStr(t.P))
	if t.Zeros > 0 {
		s += fmt.Sprintf(" (%d %s with equal values left out of the test)", t.Zeros, format.Plural(t.Zeros, "round", "rounds"))
	}
	// The exact test's smallest p is 2/2^n: below 6 pairs it cannot reach 0.05.
	if t.OK && t.Method == stats.MethodExact && t.N < 50 {
		if best := math.Ldexp(2, -t.N); best >= p.Alpha {
			need := int(math.Ceil(math.Log2(2/p.Alpha) + 1e-9))
			s += fmt.Sprintf("; %d rounds cannot reach p < %s (at best %s): at least %d are needed", t.N,
				strconv.FormatFloat(p.Alpha, 'g', 2, 64), strconv.FormatFloat(best, 'g', 2, 64), need)
		}
	}
	return s
}

func pStr(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return "p = " + strconv.FormatFloat(p, 'g', 2, 64)
}

// signedPct is a fraction as a signed percentage: −0.06 → "−6.0 %".
func signedPct(f float64) string {
	s := strconv.FormatFloat(math.Abs(100*f), 'f', 1, 64) + " %"
	if f < 0 {
		return "−" + s
	}
	return "+" + s
}

func signedSig(v float64) string {
	s := strconv.FormatFloat(v, 'g', 3, 64)
	if v >= 0 {
		s = "+" + s
	}
	return s
}

// levelStr is a confidence level as "95 %" or "96.9 %".
func levelStr(c float64) string {
	pct := c * 100
	if math.Abs(pct-math.Round(pct)) < 0.05 {
		return fmt.Sprintf("%.0f %%", pct)
	}
	return fmt.Sprintf("%.1f %%", pct)
}
