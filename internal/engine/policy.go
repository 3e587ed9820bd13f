package engine

import (
	"fmt"
	"runtime"
	"strings"
)

// Limits of a run's load, so that bad input does not ask for absurd work.
// Every front end (pgtrial run, the experiment file, pgtrial pgbench for
// MaxScripts) checks against these.
const (
	MaxRate    = 1e9       // tx/s of all clients together
	MaxClients = 1_000_000 // connections
	MaxScripts = 128       // scripts of a run (pgbench's MAX_SCRIPTS)
)

// DefaultThreads is the number of groups (pgbench's threads) when the user
// gives none: min(clients, CPUs), at least 1. One per CPU at most: a single
// group polling every client would cap the load generator at one core.
func DefaultThreads(clients int) int {
	return max(1, min(clients, runtime.NumCPU()))
}

// Arrival is how the open model spaces its slots.
type Arrival uint8

const (
	// Poisson: exponential gaps of mean 1/rate drawn from a seeded stream
	// (pgbench's --rate and sysbench's behaviour).
	Poisson Arrival = iota
	// Uniform: slot k at start + k/rate exactly.
	Uniform
)

// ArrivalNames are the arrivals' names as files and flags write them, in
// the order of their values (Poisson first, the default).
func ArrivalNames() []string { return []string{"poisson", "uniform"} }

// ParseArrival is the arrival named s (case-insensitive); false for a name
// not in ArrivalNames.
func ParseArrival(s string) (Arrival, bool) {
	i, ok := lookup(ArrivalNames(), s)
	return Arrival(i), ok
}

// String is the arrival's name as used in files.
func (a Arrival) String() string { return nameOf(ArrivalNames(), uint8(a), "arrival") }

// Overload is what the open model does with a slot no client was free for.
type Overload uint8

const (
	// Queue: the slot waits for the next free client and its response time
	// includes the wait (lag). With a latency limit a slot already later than
	// the limit when taken is skipped, as pgbench does.
	Queue Overload = iota
	// Drop: a slot whose time passed while every client was busy is dropped
	// and counted.
	Drop
)

// OverloadNames are the overload policies' names as files and flags write
// them, in the order of their values (Queue first, the default).
func OverloadNames() []string { return []string{"queue", "drop"} }

// ParseOverload is the policy named s (case-insensitive); false for a name
// not in OverloadNames.
func ParseOverload(s string) (Overload, bool) {
	i, ok := lookup(OverloadNames(), s)
	return Overload(i), ok
}

// String is the policy's name as used in files.
func (o Overload) String() string { return nameOf(OverloadNames(), uint8(o), "overload") }

// nameOf is names[v], or kind(v) for a value without a name.
func nameOf(names []string, v uint8, kind string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, v)
}

// lookup is the index of s in names, ignoring case.
func lookup(names []string, s string) (int, bool) {
	for i, n := range names {
		if strings.EqualFold(n, s) {
			return i, true
		}
	}
	return 0, false
}
