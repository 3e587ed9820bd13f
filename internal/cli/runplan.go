package cli

// runplan.go: `pgtrial run`'s options checked into a plan, before anything connects.

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pgtrial/pgtrial/internal/engine"
	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/trial"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// runPlan is a validated run, before connecting.
type runPlan struct {
	scripts      []trial.Script
	workload     string
	mode         script.Mode
	arrival      engine.Arrival
	overload     engine.Overload
	seed         prng.Seed
	vars         [][2]string
	threads      int
	warnings     []string
	needsPgbench bool
	mix, probe   string // a Mix given with -b (tpcc) and its Probe
	// the Mix's definition and where its scripts are in scripts
	// (remakeMix makes them again for the probe's variables)
	mixDef        workload.Mix
	mixAt, mixLen int
	// --scenario (scenario.go)
	scenarios       []trial.Scenario
	scenarioScripts []trial.Script
	scenarioThreads int
}

// planRun checks the options without connecting: everything a user can get
// wrong on the command line is an error here, before anything is created.
func planRun(o *runOptions, changed func(string) bool) (*runPlan, error) {
	p := &runPlan{}
	if err := o.collect.check(); err != nil {
		return nil, err
	}
	if len(o.scenarios) > 0 {
		if err := planScenarios(o, changed, p); err != nil {
			return nil, err
		}
	}
	switch {
	case changed("rate") && o.closed:
		return nil, errors.New("--rate and --closed exclude each other: choose the open model (--rate N) or the closed model (--closed)")
	case !changed("rate") && !o.closed:
		return nil, errors.New("choose the load model: --rate N (open model: transactions arrive at N per second; " +
			"latency counts from the scheduled start) or --closed (each client loops). pgtrial has no default " +
			"because a closed model's latency understates what users see: by Little's law its mean is clients/tps, " +
			"and a stalled server lowers the load instead of showing as latency")
	case changed("rate") && !(o.rate > 0):
		return nil, fmt.Errorf("invalid --rate %v: it must be a positive number of transactions per second", o.rate)
	}
	if o.closed {
		for _, name := range []string{"arrival", "overload"} {
			if changed(name) {
				return nil, fmt.Errorf("--%s applies to the open model (--rate N), not to --closed", name)
			}
		}
	}
	var ok bool
	if p.arrival, ok = engine.ParseArrival(o.arrival); !ok {
		return nil, fmt.Errorf("invalid --arrival %q: expecting %s", o.arrival, quotedList(engine.ArrivalNames()))
	}
	if p.overload, ok = engine.ParseOverload(o.overload); !ok {
		return nil, fmt.Errorf("invalid --overload %q: expecting %s", o.overload, quotedList(engine.OverloadNames()))
	}
	// The load's rules are engine.Load's, shared with the experiment file.
	load := engine.Load{Clients: o.clients, Threads: o.threads, Rate: o.rate, Arrival: p.arrival, Overload: p.overload, LatencyLimit: o.latencyLimit.d}
	if errs := load.Validate(); len(errs) > 0 {
		var fe *engine.FieldError
		if errors.As(errs[0], &fe) {
			return nil, fmt.Errorf("invalid %s %s: %s", fe.Flag(), fe.Value, fe.Rule)
		}
		return nil, errs[0]
	}
	p.threads = load.Groups()
	if !(o.connectRate > 0) || o.connectRate > 1e6 {
		return nil, fmt.Errorf("invalid --connect-rate %v: use a positive number of connections per second (the default is %v)", o.connectRate, engine.DefaultConnectRate)
	}
	if o.threads > o.clients {
		p.warnings = append(p.warnings, fmt.Sprintf("--threads %d is more than --clients %d; using %d threads", o.threads, o.clients, p.threads))
	}
	if changed("duration") && changed("transactions") {
		return nil, errors.New("give either -T/--duration or -t/--transactions, not both")
	}
	if changed("transactions") {
		if o.transactions < 1 {
			return nil, fmt.Errorf("invalid --transactions %d: at least 1 per client is needed", o.transactions)
		}
	} else {
		o.transactions = 0
		if o.duration.d < time.Millisecond {
			return nil, fmt.Errorf("invalid --duration %v: the measured phase needs a positive length, e.g. -T 60s", o.duration.d)
		}
	}
	if o.interval.d < 10*time.Millisecond {
		return nil, fmt.Errorf("invalid --interval %v: use at least 10ms (the default is 1s)", o.interval.d)
	}
	if o.warmup.d > 0 && o.transactions == 0 && o.warmup.d > o.duration.d {
		p.warnings = append(p.warnings, fmt.Sprintf("the warm-up (%v) is longer than the measured phase (%v)", o.warmup.d, o.duration.d))
	}
	if o.maxTries < 0 {
		return nil, fmt.Errorf("invalid --max-tries %d: use 1 or more, or 0 for unlimited", o.maxTries)
	}
	if o.maxTries == 0 && o.transactions > 0 && o.latencyLimit.d == 0 {
		return nil, errors.New("--max-tries 0 (unlimited) needs -T/--duration or -L/--latency-limit: a transaction could retry forever")
	}
	mode, ok := script.ParseMode(strings.ToLower(o.protocol))
	if !ok {
		return nil, fmt.Errorf("invalid --protocol %q: expecting \"simple\", \"extended\" or \"prepared\"", o.protocol)
	}
	p.mode = mode
	for _, d := range o.defines {
		def, err := script.ParseDefine(d)
		if err != nil {
			return nil, err
		}
		p.vars = append(p.vars, [2]string{def.Name, def.Value})
	}
	if o.seed == "" || o.seed == "time" {
		p.seed = prng.TimeSeed()
	} else {
		s, err := runSeed(o.seed)
		if err != nil {
			return nil, err
		}
		p.seed = s
	}

	specs := o.scripts
	if len(specs) == 0 {
		specs = []scriptSpec{{builtin: true, arg: "tpcb-like"}}
	}
	var total int64
	for _, sp := range specs {
		if sp.builtin { // a Mix (-b tpcc) stands for its scripts
			m, ms, ok, err := trial.LoadMix(sp.arg)
			if err != nil {
				return nil, err
			}
			if ok {
				for _, s := range ms {
					total += int64(s.Weight)
				}
				p.mixDef, p.mixAt, p.mixLen = m, len(p.scripts), len(ms)
				p.scripts = append(p.scripts, ms...)
				p.mix, p.probe = m.Name, m.Probe
				continue
			}
		}
		rs, err := trial.ParseScriptArg(sp.builtin, sp.arg)
		if err != nil {
			return nil, err
		}
		total += int64(rs.Weight)
		p.scripts = append(p.scripts, rs)
	}
	p.useScenarios()
	if len(p.scripts) > engine.MaxScripts {
		return nil, fmt.Errorf("at most %d scripts are allowed", engine.MaxScripts)
	}
	if total == 0 {
		return nil, errors.New("the scripts' weights add up to 0: give at least one script a positive @WEIGHT")
	}
	p.needsPgbench = trial.NeedsPgbench(p.scripts)
	p.workload = trial.WorkloadName(p.scripts)
	if p.mix != "" && len(specs) == 1 {
		p.workload = p.mix
	}
	if err := trial.PrepareScripts(p.scripts, p.mode); err != nil {
		return nil, err
	}
	return p, nil
}

// remakeMix makes the plan's mix scripts again for the probe's variables
// as the clients get them (trial.MixForVars: YCSB's update branches over
// ycsb_meta's fields) and prepares the scripts again.
func (p *runPlan) remakeMix(got map[string]string) error {
	if p.mix == "" || got == nil || len(p.scenarios) > 0 {
		return nil
	}
	ss, ok, err := trial.MixForVars(p.mixDef, got)
	if err != nil || !ok {
		return err
	}
	if len(ss) != p.mixLen || p.mixAt+p.mixLen > len(p.scripts) {
		return fmt.Errorf("built-in mix %s: %d scripts made for the probe's variables, %d planned", p.mix, len(ss), p.mixLen)
	}
	copy(p.scripts[p.mixAt:], ss)
	return trial.PrepareScripts(p.scripts, p.mode)
}

// quotedList is `"a" or "b"`, `"a", "b" or "c"`.
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// runSeed is --random-seed of `pgtrial run`: "rand" or a decimal unsigned
// integer that fits in 64 bits. Unlike pgbench (sscanf's %lu: a number past
// 2^64−1 saturates, "-1" wraps), a number out of range is refused rather
// than silently becoming 18446744073709551615.
func runSeed(spec string) (prng.Seed, error) {
	if spec == "rand" {
		return prng.ParseSeed(spec)
	}
	v, err := strconv.ParseUint(spec, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return prng.Seed{}, fmt.Errorf("invalid --random-seed %q: larger than %d, the largest seed; give a smaller unsigned integer, \"time\" or \"rand\"", spec, uint64(math.MaxUint64))
	case err != nil:
		return prng.Seed{}, fmt.Errorf("invalid --random-seed %q: expecting an unsigned integer (0 to %d), \"time\" or \"rand\"", spec, uint64(math.MaxUint64))
	}
	return prng.Seed{Value: v, Explicit: true}, nil
}
