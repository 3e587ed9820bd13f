package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Load is the load of a run as a user gives it, before it is resolved:
// `pgtrial run`'s flags, an experiment's load section and each run of the
// experiment (a ramp's level, a search's rate). Validate holds the rules
// that every front end shares, so a value is accepted or refused the same
// way everywhere (k6's executor configs, lib/executor, are the model).
type Load struct {
	Clients      int
	Threads      int           // groups (pgbench's threads); 0: DefaultThreads(Clients)
	Rate         float64       // tx/s of all clients together; 0: the closed model
	Arrival      Arrival       // open model only
	Overload     Overload      // open model only
	LatencyLimit time.Duration // 0: none
}

// Field names of a Load in messages: the experiment file's keys under
// load; `pgtrial run`'s flags are the same with '-' for '_'.
const (
	FieldClients      = "clients"
	FieldThreads      = "threads"
	FieldRate         = "rate"
	FieldArrival      = "arrival"
	FieldOverload     = "overload"
	FieldLatencyLimit = "latency_limit"
)

// FieldError is a Load field's value outside what its Rule allows.
type FieldError struct {
	Field string // one of the Field constants
	Value string // the value as Validate saw it
	Rule  string // what is allowed, e.g. "at least 1 client"
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %s is out of range: %s", e.Field, e.Value, e.Rule)
}

// Flag is the field as `pgtrial run`'s flag: --latency-limit for
// latency_limit.
func (e *FieldError) Flag() string { return "--" + strings.ReplaceAll(e.Field, "_", "-") }

// LoadRule is what a field allows, worded for a message about a value of
// the wrong type ("expected a whole number (at least 1 client)").
func LoadRule(field string) string {
	switch field {
	case FieldClients:
		return "at least 1 client"
	case FieldThreads:
		return "give at least 1, or 0 for min(clients, CPUs)"
	case FieldRate:
		return "transactions per second, above 0 and at most 1e9"
	case FieldArrival:
		return "poisson or uniform"
	case FieldOverload:
		return "queue or drop"
	case FieldLatencyLimit:
		return "a duration of 0 (none) or more"
	}
	return ""
}

// Validate returns every rule the load breaks, each a *FieldError, in the
// order of the fields; nil when it is valid:
//
//	1 ≤ Clients ≤ MaxClients
//	0 ≤ Threads ≤ MaxClients (more threads than clients is not an error: Groups clamps)
//	Rate = 0 (closed), or 0 < Rate ≤ MaxRate and finite
//	Arrival, Overload: a named value
//	LatencyLimit ≥ 0
func (l Load) Validate() []error {
	var errs []error
	bad := func(field, value, rule string) {
		errs = append(errs, &FieldError{Field: field, Value: value, Rule: rule})
	}
	switch {
	case l.Clients < 1:
		bad(FieldClients, strconv.Itoa(l.Clients), LoadRule(FieldClients))
	case l.Clients > MaxClients:
		bad(FieldClients, strconv.Itoa(l.Clients), fmt.Sprintf("at most %d clients", MaxClients))
	}
	switch {
	case l.Threads < 0:
		bad(FieldThreads, strconv.Itoa(l.Threads), LoadRule(FieldThreads))
	case l.Threads > MaxClients:
		bad(FieldThreads, strconv.Itoa(l.Threads), fmt.Sprintf("at most %d threads (never more than the clients are used)", MaxClients))
	}
	if l.Rate != 0 && (!(l.Rate > 0) || l.Rate > MaxRate || math.IsInf(l.Rate, 0)) {
		bad(FieldRate, strconv.FormatFloat(l.Rate, 'g', -1, 64), LoadRule(FieldRate))
	}
	if int(l.Arrival) >= len(ArrivalNames()) {
		bad(FieldArrival, l.Arrival.String(), LoadRule(FieldArrival))
	}
	if int(l.Overload) >= len(OverloadNames()) {
		bad(FieldOverload, l.Overload.String(), LoadRule(FieldOverload))
	}
	if l.LatencyLimit < 0 {
		bad(FieldLatencyLimit, l.LatencyLimit.String(), LoadRule(FieldLatencyLimit))
	}
	return errs
}

// Groups is the number of groups the run uses: Threads, or DefaultThreads
// when 0, at most Clients (and at least 1).
func (l Load) Groups() int {
	g := l.Threads
	if g == 0 {
		g = DefaultThreads(l.Clients)
	}
	return max(1, min(g, l.Clients))
}
