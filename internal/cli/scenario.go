package cli

// scenario.go: `pgtrial run --scenario 'NAME: OPTIONS'`, concurrent scenarios.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/report"
	"github.com/pgtrial/pgtrial/internal/report/format"
	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/trial"
)

// scenarioHelp is --scenario's part of `pgtrial run --help`.
const scenarioHelp = `Concurrent scenarios (--scenario, repeatable): several workloads at once, each with
its own scripts, clients and load model, reported apart and in total:
  --scenario 'NAME: OPTIONS'
OPTIONS are run's own, separated by blanks: -b NAME[@W] and -f FILE[@W] (repeatable;
default -b tpcb-like), -c N (default 1), -j N, and either --rate N (with --arrival,
--overload) or --closed. With --scenario, -b, -f, -c, -j, --rate, --closed, --arrival
and --overload are not given outside them; the other flags (-T, --warmup, -M, ...)
apply to every scenario. Example, a reader at 300 tx/s and a writer of 2 clients:
  pgtrial run -T 60s --scenario 'reader: -b select-only --rate 300' \
                     --scenario 'writer: -b simple-update -c 2 --closed'`

// scenarioFlags are the run flags a scenario takes instead of the run.
var scenarioFlags = []string{"builtin", "file", "clients", "threads", "rate", "closed", "arrival", "overload"}

// scenarioSpec is one --scenario as given.
type scenarioSpec struct {
	name     string
	scripts  []scriptSpec
	clients  int
	threads  int
	rate     float64
	closed   bool
	arrival  string
	overload string
	hasRate  bool
}

// parseScenario parses 'NAME: OPTIONS' (see scenarioHelp).
func parseScenario(s string) (scenarioSpec, error) {
	sp := scenarioSpec{clients: 1, arrival: "poisson", overload: "queue"}
	name, rest, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return sp, fmt.Errorf("invalid --scenario %q: expecting 'NAME: OPTIONS', e.g. 'reader: -b select-only --rate 300'", s)
	}
	for _, r := range name {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return sp, fmt.Errorf("invalid --scenario name %q: use letters, digits, '-' and '_'", name)
		}
	}
	sp.name = name
	bad := func(format string, a ...any) error {
		return fmt.Errorf("--scenario %s: "+format, append([]any{name}, a...)...)
	}
	words := strings.Fields(rest)
	for i := 0; i < len(words); i++ {
		key, val, hasVal := strings.Cut(words[i], "=")
		if !strings.HasPrefix(key, "--") {
			hasVal = false
			key = words[i]
		}
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 == len(words) || strings.HasPrefix(words[i+1], "-") && len(words[i+1]) > 1 && !isNumber(words[i+1]) {
				return "", bad("%s needs a value", key)
			}
			i++
			return words[i], nil
		}
		number := func() (float64, error) {
			v, err := value()
			if err != nil {
				return 0, err
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, bad("invalid %s %q: expecting a number", key, v)
			}
			return f, nil
		}
		whole := func() (int, error) {
			v, err := value()
			if err != nil {
				return 0, err
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return 0, bad("invalid %s %q: expecting a whole number", key, v)
			}
			return n, nil
		}
		var err error
		switch key {
		case "-b", "--builtin", "-f", "--file":
			var v string
			if v, err = value(); err == nil {
				sp.scripts = append(sp.scripts, scriptSpec{builtin: key == "-b" || key == "--builtin", arg: v})
			}
		case "-c", "--clients":
			sp.clients, err = whole()
		case "-j", "--threads":
			sp.threads, err = whole()
		case "-R", "--rate":
			sp.rate, err = number()
			sp.hasRate = true
		case "--closed":
			if hasVal {
				return sp, bad("--closed takes no value")
			}
			sp.closed = true
		case "--arrival":
			sp.arrival, err = value()
		case "--overload":
			sp.overload, err = value()
		default:
			return sp, bad("unknown option %q: a scenario takes -b, -f, -c, -j, --rate, --closed, --arrival and --overload", words[i])
		}
		if err != nil {
			return sp, err
		}
	}
	switch {
	case sp.hasRate && sp.closed:
		return sp, bad("--rate and --closed exclude each other")
	case !sp.hasRate && !sp.closed:
		return sp, bad("choose its load model: --rate N (open model) or --closed")
	}
	return sp, nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// planScenarios parses o.scenarios into p: each scenario's scripts loaded
// for it (a script two scenarios name is loaded twice), its load checked
// by engine.Load's rules; o.clients and p.threads become the sums.
func planScenarios(o *runOptions, changed func(string) bool, p *runPlan) error {
	for _, f := range scenarioFlags {
		if changed(f) {
			return fmt.Errorf("--%s is given outside --scenario: with scenarios, give it inside each scenario, e.g. --scenario 'reader: -b select-only -c 4 --rate 300'", f)
		}
	}
	p.scenarioScripts, p.scenarios = nil, nil
	seen := map[string]bool{}
	clients, threads := 0, 0
	for _, s := range o.scenarios {
		sp, err := parseScenario(s)
		if err != nil {
			return err
		}
		if seen[sp.name] {
			return fmt.Errorf("--scenario %s is given twice: give each scenario its own name", sp.name)
		}
		seen[sp.name] = true
		arrival, ok := engine.ParseArrival(sp.arrival)
		if !ok {
			return fmt.Errorf("--scenario %s: invalid --arrival %q: expecting %s", sp.name, sp.arrival, quotedList(engine.ArrivalNames()))
		}
		overload, ok := engine.ParseOverload(sp.overload)
		if !ok {
			return fmt.Errorf("--scenario %s: invalid --overload %q: expecting %s", sp.name, sp.overload, quotedList(engine.OverloadNames()))
		}
		rate := sp.rate
		if sp.closed {
			rate = 0
		}
		load := engine.Load{Clients: sp.clients, Threads: sp.threads, Rate: rate, Arrival: arrival, Overload: overload}
		if errs := load.Validate(); len(errs) > 0 {
			var fe *engine.FieldError
			if errors.As(errs[0], &fe) {
				return fmt.Errorf("--scenario %s: invalid %s %s: %s", sp.name, fe.Flag(), fe.Value, fe.Rule)
			}
			return fmt.Errorf("--scenario %s: %w", sp.name, errs[0])
		}
		if sp.hasRate && !(sp.rate > 0) {
			return fmt.Errorf("--scenario %s: invalid --rate %v: it must be a positive number of transactions per second", sp.name, sp.rate)
		}
		specs := sp.scripts
		if len(specs) == 0 {
			specs = []scriptSpec{{builtin: true, arg: "tpcb-like"}}
		}
		first, weight := len(p.scenarioScripts), 0
		for _, ss := range specs {
			rs, err := trial.ParseScriptArg(ss.builtin, ss.arg)
			if err != nil {
				return fmt.Errorf("--scenario %s: %w", sp.name, err)
			}
			weight += rs.Weight
			p.scenarioScripts = append(p.scenarioScripts, rs)
		}
		if weight == 0 {
			return fmt.Errorf("--scenario %s: the scripts' weights add up to 0: give at least one a positive @WEIGHT", sp.name)
		}
		sc := trial.Scenario{Name: sp.name, First: first, N: len(specs), Clients: sp.clients, Threads: load.Groups(),
			Rate: rate, Arrival: arrival, Overload: overload}
		p.scenarios = append(p.scenarios, sc)
		clients += sc.Clients
		threads += sc.Threads
	}
	// The run's model (trial.Scenario): the scenarios' own models are
	// theirs; the run's flags pass planRun's checks as the closed model.
	o.clients, p.scenarioThreads, o.closed = clients, threads, true
	return nil
}

// useScenarios puts the scenarios' scripts and threads in place of the
// run's (planRun, after its own -b/-f).
func (p *runPlan) useScenarios() {
	if len(p.scenarios) > 0 {
		p.scripts, p.threads = p.scenarioScripts, p.scenarioThreads
	}
}

// scenarioModeLine is modeLine for --scenario: "2 concurrent scenarios
// (reader: open 300 tx/s poisson, 1 client, 1 thread; writer: closed, 2
// clients, 2 threads), prepared protocol".
func scenarioModeLine(o *runOptions, p *runPlan) string {
	var parts []string
	for _, s := range p.scenarios {
		sc := results.Scenario{Name: s.Name, Kind: results.ModelClosed, Clients: s.Clients, Threads: s.Threads}
		if s.Rate > 0 {
			sc.Kind, sc.Rate, sc.Arrival, sc.Overload = results.ModelOpen, s.Rate, s.Arrival.String(), s.Overload.String()
		}
		parts = append(parts, s.Name+": "+report.ScenarioLoad(&sc))
	}
	line := fmt.Sprintf("%d concurrent scenarios (%s), %s protocol", len(p.scenarios), strings.Join(parts, "; "), p.mode)
	if o.latencyLimit.d > 0 {
		line += ", latency limit " + format.Duration(o.latencyLimit.d)
	}
	return line
}
