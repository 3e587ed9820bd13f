package experiment

import (
	"errors"
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"

	"github.com/pgtrial/pgtrial/internal/engine"
)

// The load section and its ramp.

// loadSection is load: clients and the load model. The keys decode their
// types; the ranges are engine.Load's rules (check), the same as for
// `pgtrial run`'s flags.
func loadSection() section[LoadSpec] {
	return section[LoadSpec]{name: "load", keys: []key[LoadSpec]{
		{name: engine.FieldClients, doc: "clients (connections), -c", dec: func(d *decoder, l *LoadSpec, e entry, path string, _ *fields) {
			if v, ok := d.loadCount(e.val, path, engine.FieldClients); ok {
				l.Clients = v
			}
		}},
		{name: engine.FieldThreads, doc: "client threads (groups), -j; 0: min(clients, CPUs)", dec: func(d *decoder, l *LoadSpec, e entry, path string, _ *fields) {
			if v, ok := d.loadCount(e.val, path, engine.FieldThreads); ok {
				l.Threads = v
			}
		}},
		{name: engine.FieldRate, doc: "the open model's rate, tx/s (--rate)", dec: func(d *decoder, l *LoadSpec, e entry, path string, _ *fields) {
			l.Rate, _ = d.positive(e.val, path, math.MaxFloat64, engine.LoadRule(engine.FieldRate))
		}},
		{name: "closed", doc: "the closed model (--closed)", dec: func(d *decoder, l *LoadSpec, e entry, path string, _ *fields) {
			l.Closed, _ = d.boolean(e.val, path)
		}},
		{name: "ramp", doc: "steps of clients or rate", dec: func(d *decoder, l *LoadSpec, e entry, path string, _ *fields) {
			l.Ramp = d.ramp(e.val, path)
		}},
		{name: engine.FieldArrival, doc: "the open model's arrivals (--arrival)", dec: func(d *decoder, l *LoadSpec, e entry, path string, _ *fields) {
			if v, ok := d.oneOf(e.val, path, engine.ArrivalNames()...); ok {
				l.Arrival, _ = engine.ParseArrival(v)
			}
		}},
		{name: engine.FieldOverload, doc: "the open model's overload policy (--overload)", dec: func(d *decoder, l *LoadSpec, e entry, path string, _ *fields) {
			if v, ok := d.oneOf(e.val, path, engine.OverloadNames()...); ok {
				l.Overload, _ = engine.ParseOverload(v)
			}
		}},
		{name: engine.FieldLatencyLimit, doc: "the latency limit (-L)", dec: func(d *decoder, l *LoadSpec, e entry, path string, _ *fields) {
			l.LatencyLimit, _ = d.duration(e.val, path)
		}},
		{name: "segments", doc: "each run as n segments sharing its schedule (run --segment i/n), begun at one instant and merged (pgtrial merge); threads a multiple of n", dec: func(d *decoder, l *LoadSpec, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, 1, MaxSegments, fmt.Sprintf("1 to %d", MaxSegments)); ok {
				l.Segments = int(v)
			}
		}},
	}, check: func(d *decoder, l *LoadSpec, f *fields, path string) {
		for _, err := range l.engineLoad().Validate() {
			var fe *engine.FieldError
			if !errors.As(err, &fe) {
				d.problem(f.node, path, "%v", err)
				continue
			}
			n, value := f.node, fe.Value
			if e, ok := f.get(fe.Field); ok {
				n, value = e.val, e.val.Value // as written
			}
			d.problem(n, child(path, fe.Field), "%s is out of range: %s", value, fe.Rule)
			if fe.Field == engine.FieldRate {
				l.Rate = 0 // no rate for the SLOs to be checked against
			}
		}
	}}
}

// MaxSegments bounds load.segments: the segments of a run are that many
// loads in this process.
const MaxSegments = 64

// engineLoad is the load section as engine.Load (a ramp's levels and a
// search's rates are the runs').
func (l *LoadSpec) engineLoad() engine.Load {
	return engine.Load{Clients: l.Clients, Threads: l.Threads, Rate: l.Rate, Arrival: l.Arrival,
		Overload: l.Overload, LatencyLimit: l.LatencyLimit}
}

// rampSection is load.ramp.
func rampSection() section[Ramp] {
	level := func(d *decoder, r *Ramp, e entry, path string) float64 {
		if r.By == RampClients {
			v, _ := d.integer(e.val, path, 1, engine.MaxClients, fmt.Sprintf("clients are 1 to %d", engine.MaxClients))
			return float64(v)
		}
		v, _ := d.positive(e.val, path, engine.MaxRate, engine.LoadRule(engine.FieldRate))
		return v
	}
	const fromTo = "a ramp goes from a start level (from) to a finish level (to)"
	return section[Ramp]{name: "load.ramp", keys: []key[Ramp]{
		{name: "by", doc: "clients (closed model) or rate (open model)", missing: "a ramp steps clients (by: clients) or the rate (by: rate)",
			dec: func(d *decoder, r *Ramp, e entry, path string, _ *fields) {
				switch v, ok := d.oneOf(e.val, path, "clients", "rate"); {
				case !ok:
				case v == "clients":
					r.By = RampClients
				default:
					r.By = RampRate
				}
			}},
		{name: "from", doc: "the start level", missing: fromTo, dec: func(d *decoder, r *Ramp, e entry, path string, _ *fields) {
			r.From = level(d, r, e, path)
		}},
		{name: "to", doc: "the finish level", missing: fromTo, dec: func(d *decoder, r *Ramp, e entry, path string, _ *fields) {
			r.To = level(d, r, e, path)
		}},
		{name: "steps", doc: "levels from start to finish", missing: "give the number of levels from start to finish (at least 2)",
			dec: func(d *decoder, r *Ramp, e entry, path string, _ *fields) {
				v, _ := d.integer(e.val, path, 2, maxRampSteps, fmt.Sprintf("a ramp has 2 to %d steps", maxRampSteps))
				r.Steps = int(v)
			}},
		{name: "spacing", doc: "linear or geometric", dec: func(d *decoder, r *Ramp, e entry, path string, _ *fields) {
			if v, _ := d.oneOf(e.val, path, "linear", "geometric"); v == "geometric" {
				r.Spacing = Geometric
			}
		}},
		{name: "step_duration", doc: "each step's measured time (default: the window)", dec: func(d *decoder, r *Ramp, e entry, path string, _ *fields) {
			r.StepDuration, _ = d.positiveDuration(e.val, path)
		}},
	}, check: func(d *decoder, r *Ramp, f *fields, path string) {
		// Levels are above 0 when they decoded.
		if r.From > 0 && r.To > 0 && r.From >= r.To {
			e, _ := f.get("to")
			d.problem(e.val, e.path(path), "%g is not above from (%g): a ramp goes up from its start level to its finish level", r.To, r.From)
		}
	}}
}

// ramp decodes load.ramp; nil when it is not usable.
func (d *decoder) ramp(n *yaml.Node, path string) *Ramp {
	before := len(d.problems)
	r := &Ramp{}
	f, ok := rampSection().decode(d, n, path, "a mapping {by, from, to, steps, spacing, step_duration}", r)
	if !ok || len(d.problems) > before {
		return nil
	}
	if r.By == RampClients {
		lv := r.Levels()
		for i := 1; i < len(lv); i++ {
			if lv[i] == lv[i-1] {
				e, _ := f.get("steps")
				d.problem(e.val, e.path(path), "%d %s steps from %g to %g clients repeat a level (%g): use fewer steps", r.Steps, r.Spacing, r.From, r.To, lv[i])
				return nil
			}
		}
	}
	return r
}

// loadCount is a clients or threads count (engine field name field): any
// integer decodes, clamped to int32, and engine.Load's rule judges its
// range later (check), as for `pgtrial run`'s flags.
func (d *decoder) loadCount(n *yaml.Node, path, field string) (int, bool) {
	v, ok := d.integer(n, path, math.MinInt64, math.MaxInt64, engine.LoadRule(field))
	return int(max(min(v, math.MaxInt32), math.MinInt32)), ok
}
