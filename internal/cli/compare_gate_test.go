package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/experiment"
	"github.com/pgtrial/pgtrial/internal/gate"
	"github.com/pgtrial/pgtrial/internal/results"
)

// TestCompareFailOn: --fail-on's exit status on synthetic runs (open model,
// p99 primary): an A/A pair passes (0), B's p99 30 % higher fails p99>+5%
// (3) with 5 runs a side, 3 runs a side are inconclusive (4); --markdown writes the table; a
// rule that does not parse is refused at its column (1).
func TestCompareFailOn(t *testing.T) {
	root := t.TempDir()
	a, b := fourVsFour()
	a, b = append(a, cmpRun{tps: 803, p99: 20.1}), append(b, cmpRun{tps: 804, p99: 26.2}) // 5 a side: Holm's 0.025 over two rules
	aDirs, bDirs := writeCmpSides(t, filepath.Join(root, "slow"), a, b)
	args := func(rules string, extra ...string) []string {
		out := append([]string{"compare", "--fail-on", rules}, extra...)
		return append(append(append(out, aDirs...), "--"), bDirs...)
	}
	md := filepath.Join(root, "gate.md")
	out, _ := mustRun(t, exitGateFail, args("tps<-3%,p99>+5%", "--markdown", md)...)
	if !strings.Contains(out, "pgtrial gate: ❌ fail") || !strings.Contains(out, "p99>+5%: p99 +30 %") {
		t.Errorf("the gate's table is missing from the output:\n%s", out)
	}
	src, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(src), "# pgtrial gate: ❌ fail: B against A\n") || !strings.Contains(string(src), "| p99&gt;+5% | p99 |") {
		t.Errorf("gate.md:\n%s", src)
	}

	// A/A: A's runs against copies of themselves shifted by under 1 %.
	same := []cmpRun{{tps: 801, p99: 20.1}, {tps: 806, p99: 20.3}, {tps: 799, p99: 19.9}, {tps: 803, p99: 20.0}}
	a, _ = fourVsFour()
	aaA, aaB := writeCmpSides(t, filepath.Join(root, "aa"), a, same)
	aa := append(append(append([]string{"compare", "--fail-on", "tps<-3%,p99>+5%", "--json"}, aaA...), "--"), aaB...)
	out, errOut := mustRun(t, exitOK, aa...)
	if !strings.HasPrefix(out, "{") || !strings.Contains(errOut, "✅ pass") {
		t.Errorf("--json with --fail-on: stdout is not JSON or the gate is not on stderr:\n%s\n%s", out, errOut)
	}

	// 3 vs 3 runs cannot decide.
	few := append(append(append([]string{"compare", "--fail-on", "p99>+5%"}, aDirs[:3]...), "--"), bDirs[:3]...)
	out, _ = mustRun(t, exitGateInconclusive, few...)
	if !strings.Contains(out, "❔ inconclusive") {
		t.Errorf("3 vs 3: want an inconclusive gate:\n%s", out)
	}

	_, errOut = mustRun(t, exitBadInput, args("p99>>5%")...)
	if !strings.Contains(errOut, `--fail-on: "p99>>5%": column 5: expected a number`) {
		t.Errorf("a bad rule: %s", errOut)
	}
	_, errOut = mustRun(t, exitBadInput, append([]string{"compare", "--markdown", md}, append(append(aDirs, "--"), bDirs...)...)...)
	if !strings.Contains(errOut, "--markdown writes the gate's summary") {
		t.Errorf("--markdown without --fail-on: %s", errOut)
	}
}

// TestCompareExperimentGate: compare EXPDIR --markdown alone applies the
// rules of the experiment file's gate: (experiment.json's gate), each
// variant against the first.
func TestCompareExperimentGate(t *testing.T) {
	a, b := fourVsFour()
	c := []cmpRun{{tps: 801, p99: 20.1}, {tps: 806, p99: 20.3}, {tps: 799, p99: 19.9}, {tps: 803, p99: 20.0}}
	exp := filepath.Join(t.TempDir(), "exp")
	writeCmpExperiment(t, exp, []string{"base", "slow", "same"}, map[string][]cmpRun{"base": a, "slow": b, "same": c})
	var rec experiment.Record
	if err := results.ReadExperiment(exp, &rec); err != nil {
		t.Fatal(err)
	}
	rec.Gate = []*gate.Result{{NameA: "base", NameB: "slow", Rules: []gate.RuleResult{{Rule: "p99>+5%"}}}}
	if err := results.WriteExperiment(exp, rec, nil); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(t.TempDir(), "gate.md")
	out, _ := mustRun(t, exitGateFail, "compare", "--markdown", md, exp)
	if !strings.Contains(out, "slow against base: ❌ fail") || !strings.Contains(out, "same against base: ") {
		t.Errorf("want each variant gated against the first:\n%s", out)
	}
	src, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(src), "# pgtrial gate: ❌ fail\n") || !strings.Contains(string(src), "| p99&gt;+5% | p99 |") {
		t.Errorf("gate.md:\n%s", src)
	}
}
