package gate

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/compare"
	"github.com/pgtrial/pgtrial/internal/stats"
)

// report is a comparison of the per-run values of tps and p99.
func report(tpsA, tpsB, p99A, p99B []float64) *compare.Report {
	ptrs := func(vs []float64) []*float64 {
		out := make([]*float64, len(vs))
		for i := range vs {
			out[i] = &vs[i]
		}
		return out
	}
	rep := &compare.Report{NameA: "A", NameB: "B", Alpha: 0.05,
		RunsA: make([]compare.RunRef, len(tpsA)), RunsB: make([]compare.RunRef, len(tpsB))}
	rep.Metrics = []compare.Metric{
		{Metric: "tps", Unit: "tx/s", HigherIsBetter: true, ValuesA: ptrs(tpsA), ValuesB: ptrs(tpsB)},
		{Metric: "p99", Unit: "ms", ValuesA: ptrs(p99A), ValuesB: ptrs(p99B)},
	}
	return rep
}

func mustParse(t testing.TB, s string) []Rule {
	t.Helper()
	r, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestEvaluateOutcomes(t *testing.T) {
	a := []float64{1000, 1010, 990, 1005, 995}
	for _, tc := range []struct {
		name    string
		b       []float64
		rules   string
		outcome string
		why     string
	}{
		{"A/A", []float64{1002, 998, 1008, 992, 1001}, "tps<-3%", Pass, "excludes -3.0 %"},
		{"a real 10 % regression", []float64{900, 905, 895, 910, 890}, "tps<-3%", Fail, "a real change beyond -3.0 %"},
		{"a real 1 % regression within -3 %", []float64{990, 991, 989, 992, 988}, "tps<-3%", Pass, "excludes"},
		{"a real improvement", []float64{1100, 1110, 1090, 1105, 1095}, "tps<-3%", Pass, "excludes"},
		{"a 10 % regression judged as an increase", []float64{900, 905, 895, 910, 890}, "tps>+3%", Pass, "excludes"},
		{"noise wider than the threshold", []float64{900, 1100, 960, 1050, 1000}, "tps<-3%", Inconclusive, "reaches -3.0 %"},
		{"beyond, not shown real", []float64{800, 1005, 1008, 700, 930}, "tps<-3%", Inconclusive, "not shown to be real"},
		{"too few runs", []float64{900, 905, 895, 0}, "tps<-3%", Inconclusive, "cannot exclude"},
		{"a zero threshold", []float64{1002, 998, 1008, 992, 1001}, "tps<0%", Inconclusive, "reaches 0 %"},
		{"a metric not compared", []float64{1002, 998, 1008, 992, 1001}, "max>+5%", Inconclusive, "max was not compared"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := a
			if tc.b[len(tc.b)-1] == 0 { // 3 vs 3 runs
				a, tc.b = a[:3], tc.b[:3]
			}
			res := Evaluate(mustParse(t, tc.rules), report(a, tc.b, nil, nil))
			rr := res.Rules[0]
			if rr.Outcome != tc.outcome || res.Outcome != tc.outcome || !strings.Contains(rr.Why, tc.why) {
				t.Errorf("outcome %s (gate %s): %s; want %s, …%s…", rr.Outcome, res.Outcome, rr.Why, tc.outcome, tc.why)
			}
			if !strings.HasPrefix(res.Text(), "gate: "+tc.outcome) {
				t.Errorf("Text = %q, want gate: %s…", res.Text(), tc.outcome)
			}
		})
	}
}

// TestEvaluateDifference: a run with a value of 0 makes no ratio; the rule
// is judged on the difference, its threshold Change·|median(A)|.
func TestEvaluateDifference(t *testing.T) {
	a := []float64{1000, 1010, 990, 1005, 995}
	b := []float64{0, 0, 0, 0, 0} // B's runs measured nothing
	res := Evaluate(mustParse(t, "tps<-3%"), report(a, b, nil, nil))
	rr := res.Rules[0]
	if rr.Outcome != Fail || rr.Ratio || rr.Threshold != -30 {
		t.Errorf("rule = %+v, want a fail on the difference with threshold -30 tx/s", rr)
	}
}

// TestEvaluateTwoRules: the outcome is the worst rule's, and each rule is
// held to Holm's level over the two.
func TestEvaluateTwoRules(t *testing.T) {
	tpsA := []float64{1000, 1010, 990, 1005, 995}
	tpsB := []float64{1002, 998, 1008, 992, 1001}
	p99A := []float64{10, 10.2, 9.9, 10.1, 10}
	p99B := []float64{13, 13.5, 12.8, 13.1, 13.3}
	res := Evaluate(mustParse(t, "tps<-3%,p99>+5%"), report(tpsA, tpsB, p99A, p99B))
	if res.Outcome != Fail || res.Rules[0].Outcome != Pass || res.Rules[1].Outcome != Fail {
		t.Fatalf("outcome %s, rules %s %s; want fail (tps pass, p99 fail)", res.Outcome, res.Rules[0].Outcome, res.Rules[1].Outcome)
	}
	if h := res.Rules[1].Verdict.Holm; h == nil || h.Tests != 2 {
		t.Errorf("p99's verdict Holm = %+v, want a step among 2 tests", h)
	}
	if got := res.Text(); got != "gate: fail: p99>+5% (1 of 2 rules)" {
		t.Errorf("Text = %q", got)
	}
}

// TestGateSimulation measures the gate's error rates on seeded runs whose
// per-run values are lognormal around the true value with a run-to-run
// spread σ (the log's standard deviation), 5 runs a side, rule tps<-3%:
//
//   - A/A (no change), σ = 2 %: a false fail in at most α of the trials
//     (the change must be real and beyond −3 %: far rarer); σ = 1 %: a pass
//     in most;
//   - a true −10 % regression, σ = 2 %: a fail in at least 90 %;
//   - a true change of exactly −3 %, the threshold: a pass (the one-sided
//     test's false "not as bad as the threshold") in at most α;
//   - two rules on independent metrics, A/A: any false fail in at most α.
//
// "At most α" allows three standard errors of the estimated rate over the
// trials (√(α(1−α)/2000) = 0.005): the exact test's level is at most α, and
// a rate within sampling error of it is not a defect.
func TestGateSimulation(t *testing.T) {
	const trials, n = 2000, 5
	rng := rand.New(rand.NewPCG(20, 4))
	draw := func(center, sigma float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = center * math.Exp(sigma*rng.NormFloat64())
		}
		return out
	}
	rules := mustParse(t, "tps<-3%")
	rate := func(ratio, sigma float64, outcome string) float64 {
		k := 0
		for range trials {
			if Evaluate(rules, report(draw(1000, sigma), draw(1000*ratio, sigma), nil, nil)).Outcome == outcome {
				k++
			}
		}
		return float64(k) / trials
	}
	alpha := stats.DefaultAlpha + 3*math.Sqrt(stats.DefaultAlpha*(1-stats.DefaultAlpha)/trials)
	if r := rate(1, 0.02, Fail); r > alpha {
		t.Errorf("A/A, σ 2 %%: false fails in %.3f of the trials, want ≤ %v", r, alpha)
	}
	if r := rate(1, 0.01, Pass); r < 0.8 {
		t.Errorf("A/A, σ 1 %%: passes in %.3f of the trials, want ≥ 0.8", r)
	}
	if r := rate(0.9, 0.02, Fail); r < 0.9 {
		t.Errorf("-10 %%, σ 2 %%: fails in %.3f of the trials, want ≥ 0.9", r)
	}
	if r := rate(0.97, 0.02, Pass); r > alpha {
		t.Errorf("-3 %% (the threshold), σ 2 %%: passes in %.3f of the trials, want ≤ %v", r, alpha)
	}
	two := mustParse(t, "tps<-3%,p99>+5%")
	k := 0
	for range trials {
		if Evaluate(two, report(draw(1000, 0.04), draw(1000, 0.04), draw(10, 0.06), draw(10, 0.06))).Outcome == Fail {
			k++
		}
	}
	if r := float64(k) / trials; r > alpha {
		t.Errorf("two rules, A/A: false fails in %.3f of the trials, want ≤ %v", r, alpha)
	}
}

// FuzzEvaluate: any values give an outcome and a result that encodes as
// JSON (experiment.json holds it); never a panic.
func FuzzEvaluate(f *testing.F) {
	f.Add(1000.0, 1010.0, 990.0, 900.0, 905.0, 895.0, "tps<-3%")
	f.Add(1e308, -1e308, 0.0, 1e-308, 5e-324, 1e308, "p99>+5%,tps<-99%")
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, "max>+0%")
	f.Fuzz(func(t *testing.T, a1, a2, a3, b1, b2, b3 float64, rules string) {
		rs, err := Parse(rules)
		if err != nil {
			return
		}
		a, b := []float64{a1, a2, a3, a1, a2}, []float64{b1, b2, b3, b2, b3}
		res := Evaluate(rs, report(a, b, a, b))
		if res.Outcome != Pass && res.Outcome != Fail && res.Outcome != Inconclusive {
			t.Fatalf("outcome %q", res.Outcome)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("json: %v (%+v)", err, res)
		}
	})
}
