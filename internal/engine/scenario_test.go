package engine

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/script"
)

// TestScenarioGroups: each scenario's clients are dealt to its own groups
// in blocks, groups never span scenarios, and the groups take their
// scenario's overload policy.
func TestScenarioGroups(t *testing.T) {
	cfg := &Config{Clients: 7, Groups: 3, Program: script.NewProgram(&script.Script{}, &script.Script{}), Scenarios: []Scenario{
		{Name: "a", Weights: []int{1, 0}, Clients: 4, Groups: 2, Rate: 10, Overload: Drop},
		{Name: "b", Weights: []int{0, 1}, Clients: 3, Groups: 1},
	}}
	if err := validateScenarios(cfg); err != nil {
		t.Fatal(err)
	}
	e := &engine{cfg: cfg}
	groups := []*group{{id: 0}, {id: 1}, {id: 2}}
	of := e.setScenarios(groups)
	want := []int{0, 0, 1, 1, 2, 2, 2}
	for i := range want {
		if of[i] != want[i] {
			t.Fatalf("client groups %v, want %v", of, want)
		}
	}
	if groups[0].overload != Drop || groups[2].overload != Queue {
		t.Errorf("overload per group: %v %v %v", groups[0].overload, groups[1].overload, groups[2].overload)
	}
	if groups[0].scen.only != 0 || groups[2].scen.only != 1 {
		t.Errorf("one-script scenarios choose scripts %d and %d, want 0 and 1", groups[0].scen.only, groups[2].scen.only)
	}
}

// TestScenarioValidate: the errors name the scenario and what is wrong.
func TestScenarioValidate(t *testing.T) {
	prog := script.NewProgram(&script.Script{})
	for _, tc := range []struct {
		scen []Scenario
		c, g int
		want string
	}{
		{[]Scenario{{Name: "r", Weights: []int{1}, Clients: 0, Groups: 1}}, 0, 1, `scenario "r" has no clients`},
		{[]Scenario{{Name: "r", Weights: []int{1}, Clients: 1, Groups: 2}}, 1, 2, `"r" has 2 groups for 1 clients`},
		{[]Scenario{{Name: "r", Weights: []int{0}, Clients: 1, Groups: 1}}, 1, 1, `"r" has no script with a weight`},
		{[]Scenario{{Name: "r", Weights: []int{1, 1}, Clients: 1, Groups: 1}}, 1, 1, `has 2 weights for 1 scripts`},
		{[]Scenario{{Name: "r", Weights: []int{1}, Clients: 2, Groups: 1}}, 3, 1, `the scenarios have 2 clients in 1 groups, the run 3 in 1`},
	} {
		err := validateScenarios(&Config{Program: prog, Clients: tc.c, Groups: tc.g, Scenarios: tc.scen})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.scen, err, tc.want)
		}
	}
}

// TestScenarioChoice: a scenario of weights 5:3:0:2 draws its scripts in
// those shares from its group's stream (200,000 draws: the standard error
// of a share p is √(p(1−p)/n) ≤ 0.0012, the tolerance 5 of them), never
// the script of weight 0.
func TestScenarioChoice(t *testing.T) {
	cfg := &Config{Clients: 1, Groups: 1, Program: script.NewProgram(&script.Script{}, &script.Script{}, &script.Script{}, &script.Script{}),
		Scenarios: []Scenario{{Name: "mix", Weights: []int{5, 3, 0, 2}, Clients: 1, Groups: 1}}}
	e := &engine{cfg: cfg}
	g := &group{choose: prng.Derive(7, 1, 1, false).Threads[0].Choose}
	e.setScenarios([]*group{g})
	const n = 200000
	var count [4]int
	for range n {
		count[e.chooseScript(g)]++
	}
	if count[2] != 0 {
		t.Errorf("the script of weight 0 was chosen %d times", count[2])
	}
	for i, p := range []float64{0.5, 0.3, 0, 0.2} {
		got := float64(count[i]) / n
		if tol := 5 * math.Sqrt(p*(1-p)/n); math.Abs(got-p) > tol+1e-12 {
			t.Errorf("script %d: share %.4f, want %.2f ± %.4f", i, got, p, tol)
		}
	}
}

// TestScenariosRun: against a server, an open-model scenario at 200 tx/s
// and a closed one of 2 clients run at once; each scenario's script runs
// only in its own clients, and the open one's count is its schedule's.
func TestScenariosRun(t *testing.T) {
	conn := setup(t)
	reader := parse(t, "SELECT 1;\n", script.Simple)
	writer := parse(t, "SELECT 2;\n", script.Simple)
	cfg, log := config(conn, 3, 2, script.Simple, reader, writer)
	cfg.Weights = nil
	cfg.Duration = 2 * time.Second
	cfg.CutAtEnd = true
	cfg.Streams = prng.Derive(42, 3, 2, false)
	cfg.Scenarios = []Scenario{
		{Name: "reader", Weights: []int{1, 0}, Clients: 1, Groups: 1, Rate: 200, Arrival: Uniform},
		{Name: "writer", Weights: []int{0, 1}, Clients: 2, Groups: 1},
	}
	res, iv := runToEnd(t, cfg)
	if res.Aborted > 0 {
		t.Fatalf("aborted: %s", log)
	}
	r, w := iv.Scripts[0].Stats.Count, iv.Scripts[1].Stats.Count
	// Uniform slots at 5 ms from the bench start over 2 s: 400, the
	// last one maybe cut.
	if r < 395 || r > 400 {
		t.Errorf("reader committed %d, want 400 (uniform 200 tx/s for 2 s)", r)
	}
	if w < 100 {
		t.Errorf("writer committed %d in 2 s of 2 closed clients, want many more", w)
	}
	if iv.Scripts[0].Lag.TotalCount() == 0 || iv.Scripts[1].Lag.Max() != 0 {
		t.Errorf("lag: reader %d values, writer max %d µs (closed: 0)", iv.Scripts[0].Lag.TotalCount(), iv.Scripts[1].Lag.Max())
	}
}
