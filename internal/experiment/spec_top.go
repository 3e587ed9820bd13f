package experiment

import (
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/pgtrial/pgtrial/internal/collect"
	"github.com/pgtrial/pgtrial/internal/localpg"
	"github.com/pgtrial/pgtrial/internal/script"
)

// The top level, the protocol and collect sections, and the rules between
// sections.

// spec decodes the top level and cross-checks the sections. The defaults
// are set first; each key given replaces its part.
func (d *decoder) spec(file string, root *yaml.Node) *Spec {
	s := &Spec{
		File:     file,
		Name:     strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)),
		Target:   Target{Local: localpg.DefaultName},
		Workload: Workload{Builtin: DefaultBuiltin, Protocol: script.Prepared, MaxTries: 1},
		Load:     LoadSpec{Clients: DefaultClients},
		Protocol: Protocol{Warmup: DefaultWarmup, Interleave: true}, // Repeats: see below
		Variants: []Variant{{Name: DefaultVariant}},
		Interval: DefaultInterval,
		Collect:  Collect{WaitInterval: DefaultWaitInterval, WaitSource: collect.WaitSourceAuto},
	}
	if !validName(s.Name) {
		s.Name = "experiment"
	}
	d.marks = map[string]*yaml.Node{}
	if _, ok := topSection().decode(d, root, "", "a mapping", s); !ok {
		return s
	}
	if s.Protocol.Repeats == 0 {
		// Variants compared at a fixed load need runs that can decide: 5 a
		// side (4 is the fewest whose exact test reaches p < 0.05). Ramps
		// and capacity searches keep 3 per level.
		s.Protocol.Repeats = DefaultRepeats
		if len(s.Variants) > 1 && s.Load.Ramp == nil && s.Search == nil {
			s.Protocol.Repeats = DefaultCompareRepeats
		}
	}
	d.crossChecks(s)
	return s
}

// topSection is the file's top level. Its order is the decoding order:
// the target before the variants (restart settings), the load before the
// SLOs (their rates).
func topSection() section[Spec] {
	return section[Spec]{name: "", keys: []key[Spec]{
		{name: "name", doc: "the experiment's name, which names its directory", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			if v, ok := d.nonEmpty(e.val, path, "a name"); ok {
				if validName(v) {
					s.Name = v
				} else {
					d.problem(e.val, path, "%q: use letters, digits, '_', '.' and '-' (at most 64, not starting with '.' or '-'): it names the experiment's directory", v)
				}
			}
		}},
		{name: "description", doc: "a line of text for the reports", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			s.Description, _ = d.str(e.val, path, "a text")
		}},
		{name: "target", doc: "the server: a local cluster or a URL", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			targetSection().decode(d, e.val, path, "a mapping (url or local, restart_command, node_exporter)", &s.Target)
		}},
		{name: "workload", doc: "what the clients run", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			workloadSection().decode(d, e.val, path, "a mapping (builtin or scripts, scale, variables, protocol, …)", &s.Workload)
		}},
		{name: "load", doc: "clients and the load model", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			loadSection().decode(d, e.val, path, "a mapping (clients, threads, rate or closed or ramp, …)", &s.Load)
		}},
		{name: "scenarios", doc: "concurrent scenarios, each with its scripts, clients and model (spec_scenarios.go)", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			d.scenarios(s, e, path)
		}},
		{name: "protocol", doc: "warm-up, measured window, repeats, interleaving", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			if n := e.val; n.Kind == yaml.ScalarNode && !isNull(n) {
				d.problem(n, path, "expected a mapping (warmup, window, repeats, interleave), got %s; the query protocol is workload.protocol", describe(n))
				return
			}
			protocolSection().decode(d, e.val, path, "a mapping (warmup, window, repeats, interleave)", &s.Protocol)
		}},
		{name: "variants", doc: "the configurations to compare", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			d.variants(s, e, path)
		}},
		{name: "injections", doc: "stalls caused during every measured window", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			d.injections(s, e, path)
		}},
		{name: "slo", doc: "latency objectives (open model)", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			d.slos(s, e, path)
		}},
		{name: "search", doc: "a capacity search instead of a load model", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			d.search(s, e, path)
		}},
		{name: "gate", doc: "a CI gate over each variant against the first: rules such as \"tps<-3%,p99>+5%\", or a list of them (spec_gate.go)", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			d.gate(s, e, path)
		}},
		{name: "seed", doc: "the random seed (--random-seed)", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			n := e.val
			var v uint64
			if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
				d.problem(n, path, "expected an unsigned integer (0 to 18446744073709551615), got %s; leave it out to have one chosen and recorded", describe(n))
				return
			}
			s.Seed = &v
		}},
		{name: "interval", doc: "the recorded intervals (--interval)", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			if v, ok := d.durationIn(e.val, path, 10*time.Millisecond, time.Hour, "10ms to 1h (the default is 1s)"); ok {
				s.Interval = v
			}
		}},
		{name: "data", doc: "done to the tables once before the runs: age (spec_data.go)", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			dataSection().decode(d, e.val, path, "a mapping (age)", &s.Data)
		}},
		{name: "collect", doc: "the evidence collected (--collect)", dec: func(d *decoder, s *Spec, e entry, path string, _ *fields) {
			d.collect(&s.Collect, e.val, path)
		}},
	}}
}

// protocolSection is protocol: the experiment's protocol.
func protocolSection() section[Protocol] {
	return section[Protocol]{name: "protocol", keys: []key[Protocol]{
		{name: "warmup", doc: "before every run, excluded", dec: func(d *decoder, p *Protocol, e entry, path string, _ *fields) {
			p.Warmup, _ = d.duration(e.val, path)
		}},
		{name: "window", doc: "the measured window", dec: func(d *decoder, p *Protocol, e entry, path string, _ *fields) {
			if v, ok := d.positiveDuration(e.val, path); ok {
				if v < time.Second {
					d.problem(e.val, path, "%v is too short to measure anything: use at least 1s (the default is max(2 × checkpoint_timeout, 60s))", v)
				} else {
					p.Window = v
				}
			}
		}},
		{name: "repeats", doc: "runs per variant", dec: func(d *decoder, p *Protocol, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, 1, 1000, "at least 1 run per variant (3 or more to see the noise)"); ok {
				p.Repeats = int(v)
			}
		}},
		{name: "interleave", doc: "A B A B … rather than A A … B B …", dec: func(d *decoder, p *Protocol, e entry, path string, _ *fields) {
			if v, ok := d.boolean(e.val, path); ok {
				p.Interleave = v
			}
		}},
		{name: "primary", doc: "the metric the comparison is about (default: the SLO's quantile, else tps closed, p99 open)", dec: func(d *decoder, p *Protocol, e entry, path string, _ *fields) {
			p.Primary, _ = d.oneOf(e.val, path, PrimaryMetrics...)
		}},
		{name: "equivalence", doc: "the equivalence margin δ: a share such as 0.05 (±5 %)", dec: func(d *decoder, p *Protocol, e entry, path string, _ *fields) {
			p.Margin, _ = d.positive(e.val, path, 0.5, "a share such as 0.05 (±5 %), above 0 and at most 0.5")
		}},
		{name: "calibrate", doc: "A/A runs of the first variant before the runs: true (4 runs), a number of runs, or {runs, adjust}", dec: func(d *decoder, p *Protocol, e entry, path string, _ *fields) {
			d.calibrate(&p.Calibrate, e.val, path)
		}},
	}}
}

// calibrateRule is what protocol.calibrate's runs may be.
const calibrateRule = "3 to 100 A/A runs of the first variant (default 4)"

// calibrate decodes protocol.calibrate: true (DefaultCalibrationRuns),
// false (none), a number of runs, or a mapping {runs, adjust}.
func (d *decoder) calibrate(c *Calibrate, n *yaml.Node, path string) {
	n = d.resolve(n)
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		var on bool
		_ = n.Decode(&on)
		*c = Calibrate{}
		if on {
			c.Runs = DefaultCalibrationRuns
		}
	case n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float"):
		if v, ok := d.integer(n, path, MinCalibrationRuns, 100, calibrateRule); ok {
			c.Runs = int(v)
		}
	case n.Kind == yaml.MappingNode:
		*c = Calibrate{Runs: DefaultCalibrationRuns}
		calibrateSection().decode(d, n, path, "a mapping (runs, adjust)", c)
	default:
		d.problem(n, path, "expected true, false, a number of runs (%s) or a mapping (runs, adjust), got %s", calibrateRule, describe(n))
	}
}

// calibrateSection is protocol.calibrate as a mapping.
func calibrateSection() section[Calibrate] {
	return section[Calibrate]{name: "protocol.calibrate", keys: []key[Calibrate]{
		{name: "runs", doc: "A/A runs of the first variant (default 4, at least 3)", dec: func(d *decoder, c *Calibrate, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, MinCalibrationRuns, 100, calibrateRule); ok {
				c.Runs = int(v)
			}
		}},
		{name: "adjust", doc: "raise protocol.repeats to the runs needed (at most 30) instead of only warning", dec: func(d *decoder, c *Calibrate, e entry, path string, _ *fields) {
			if v, ok := d.boolean(e.val, path); ok {
				c.Adjust = v
			}
		}},
	}}
}

// collectSection is collect as a mapping; collect may also be a bool or a
// list of collectors.
func collectSection() section[Collect] {
	return section[Collect]{name: "collect", keys: []key[Collect]{
		{name: "kinds", doc: "the collectors (all by default)", dec: func(d *decoder, c *Collect, e entry, path string, _ *fields) {
			d.collectKinds(c, e.val, path)
		}},
		{name: "wait_interval", doc: "the wait sampler's interval (--wait-interval)", dec: func(d *decoder, c *Collect, e entry, path string, _ *fields) {
			if v, ok := d.durationIn(e.val, path, 10*time.Millisecond, time.Second, "10ms to 1s"); ok {
				c.WaitInterval = v
			}
		}},
		{name: "wait_source", doc: "where waits are sampled from (--wait-source)", dec: func(d *decoder, c *Collect, e entry, path string, _ *fields) {
			if v, ok := d.oneOf(e.val, path, collect.WaitSourceAuto, collect.WaitSourceActivity, collect.WaitSourceProfile, "pg_stat_activity"); ok {
				if v == "pg_stat_activity" {
					v = collect.WaitSourceActivity
				}
				c.WaitSource = v
			}
		}},
	}}
}

// collect decodes collect: false for none, true for all, a list or
// comma-separated collectors, or a mapping.
func (d *decoder) collect(c *Collect, n *yaml.Node, path string) {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		var on bool
		_ = n.Decode(&on)
		c.Off = !on
	case n.Kind == yaml.MappingNode:
		collectSection().decode(d, n, path, "a mapping (kinds, wait_interval, wait_source)", c)
	default:
		d.collectKinds(c, n, path)
	}
}

// collectKinds decodes a list of collectors, or "waits,statements" as
// --collect takes it.
func (d *decoder) collectKinds(c *Collect, n *yaml.Node, path string) {
	var list []*yaml.Node
	switch {
	case n.Kind == yaml.SequenceNode:
		if !d.spend(n, len(n.Content)) {
			return
		}
		list = n.Content
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		for _, part := range strings.Split(n.Value, ",") {
			list = append(list, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.TrimSpace(part), Line: n.Line, Column: n.Column})
		}
	default:
		d.problem(n, path, "expected collectors (a list or comma-separated: %s), got %s", strings.Join(collect.AllKinds, ","), describe(n))
		return
	}
	c.Kinds = []string{}
	for i, it := range list {
		p := path
		if n.Kind == yaml.SequenceNode {
			p = index(path, i)
		}
		if v, ok := d.oneOf(it, p, collect.AllKinds...); ok && !slices.Contains(c.Kinds, v) {
			c.Kinds = append(c.Kinds, v)
		}
	}
	if len(c.Kinds) == 0 {
		c.Kinds = nil
		if len(list) == 0 {
			d.problem(n, path, "no collectors: write collect: false to collect nothing")
		}
	}
}

// crossChecks are the rules between sections: the load model, search,
// SLOs, the window, injections and restarts.
func (d *decoder) crossChecks(s *Spec) {
	d.checkGate(s) // spec_gate.go
	if d.marks["scenarios"] != nil {
		d.checkScenarios(s) // spec_scenarios.go: before the load model's checks
	}
	l := &s.Load
	_, searchGiven := d.marks["search"]
	rateKey, closedKey, rampKey := d.marks["load.rate"], d.marks["load.closed"], d.marks["load.ramp"]
	closedOn := closedKey != nil && l.Closed
	if !closedOn {
		closedKey = nil // closed: false is no model, so it conflicts with nothing
	}
	given := []*yaml.Node{}
	for _, k := range []*yaml.Node{rateKey, closedKey, rampKey} {
		if k != nil {
			given = append(given, k)
		}
	}
	switch {
	case searchGiven:
		why := map[string]string{
			"rate":   "rate and search exclude each other: the search chooses the rates itself",
			"closed": "closed and search exclude each other: the search runs the closed model for the ceiling, then the open model",
			"ramp":   "ramp and search exclude each other: a search finds one rate, a ramp steps through given levels",
		}
		for _, k := range given {
			d.problem(k, child("load", k.Value), "%s", why[k.Value])
		}
	case len(given) == 0 && d.marks["scenarios"] == nil:
		line, col, path := 1, 1, ""
		if k := d.marks["load"]; k != nil {
			line, col, path = k.Line, k.Column, "load"
		}
		d.problemAt(line, col, path, "choose the load model: rate: N (open model: latency counts from the scheduled start), "+
			"closed: true (each client loops; its latency understates what users see), ramp: {…}, or a capacity search (search:)")
	case len(given) > 1:
		names := make([]string, len(given))
		for i, k := range given {
			names[i] = k.Value
		}
		last := given[len(given)-1]
		d.problem(last, child("load", last.Value), "%s exclude each other: choose one load model", strings.Join(names, " and "))
	}
	closedModel := s.Search == nil && (l.Closed || l.Ramp != nil && l.Ramp.By == RampClients)
	if closedModel {
		for _, k := range []string{"arrival", "overload"} {
			if key := d.marks["load."+k]; key != nil {
				d.problem(key, "load."+k, "applies to the open model (rate, ramp by rate or search), not to the closed model")
			}
		}
		if key := d.marks["slo"]; key != nil && len(s.SLOs) > 0 {
			d.problem(key, "slo", "SLOs need the open model (rate, ramp by rate or search): a closed model's latency understates what users see")
		}
	}
	if r := l.Ramp; r != nil && r.By == RampClients {
		if key := d.marks["load.clients"]; key != nil {
			d.problem(key, "load.clients", "a ramp by clients sets the clients of each step: leave clients out")
		}
		l.Clients = 0
	}
	if key := d.marks["protocol.calibrate"]; key != nil && s.Protocol.Calibrate.Runs > 0 && (searchGiven || rampKey != nil) {
		d.problem(key, "protocol.calibrate", "calibration measures the spread of runs at one load (rate or closed): a ramp or a capacity search has no such runs")
	}
	if key := d.marks["protocol.window"]; key != nil && rampKey != nil {
		d.problem(key, "protocol.window", "a ramp measures each step for ramp.step_duration: give that instead of a window")
	}
	if key := d.marks["load.segments"]; key != nil && l.Segments > 1 {
		d.checkSegments(s, key)
	}
	// Injections fit the measured window when it is known now.
	if measured := s.Measured(s.Protocol.Window); measured > 0 {
		d.checkInjections(s, measured)
	}
}

// checkSegments reports what segments cannot run with: concurrent
// scenarios, builtin tpcc's load (its figures are window queries of one
// generator) and threads that do not divide among them.
func (d *decoder) checkSegments(s *Spec, key *yaml.Node) {
	n := s.Load.Segments
	switch {
	case d.marks["scenarios"] != nil:
		d.problem(key, "load.segments", "segments with concurrent scenarios are not supported: give each scenario its own experiment")
	case s.Workload.TPCCMode != "":
		d.problem(key, "load.segments", "segments with builtin tpcc are not supported: its NOPM is read by one generator")
	case s.Load.Threads > 0 && s.Load.Threads%n != 0:
		d.problem(key, "load.segments", "%d segments need threads a multiple of %d (load.threads is %d): each segment runs threads/%d of them", n, n, s.Load.Threads, n)
	case s.Load.Threads == 0:
		d.problem(key, "load.segments", "segments need load.threads (a multiple of %d): each segment runs threads/%d of them", n, n)
	}
}

// checkInjections reports injections that start or end after the measured
// phase of length measured.
func (d *decoder) checkInjections(s *Spec, measured time.Duration) {
	for _, inj := range s.Injections {
		path := index("injections", inj.index)
		switch {
		case inj.At >= measured:
			d.problemAt(inj.atPos.Line, inj.atPos.Column, child(path, "at"), "%v is after the end of the measured window (%v): nothing would measure it", inj.At, measured)
		case inj.End() > measured:
			d.problemAt(inj.durPos.Line, inj.durPos.Column, child(path, "duration"), "the lock would be held until %v, after the end of the measured window (%v)", inj.End(), measured)
		}
	}
}
