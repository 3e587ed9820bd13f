package prng

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/pgtrial/pgtrial/internal/cnum"
)

// Seed is the base seed of a run (pgbench's set_random_seed).
type Seed struct {
	Value uint64 // the seed; pgbench's random_seed variable is int64(Value)
	// Explicit is true when a seed option was given (--random-seed or
	// PGBENCH_RANDOM_SEED, including "time" and "rand"): pgbench then logs
	// "setting random seed to <Value>".
	Explicit bool
}

// SeedError is a rejected seed option, worded as pgbench words it:
// Msg for its "pgbench: error: " line and Detail for its "pgbench: detail: "
// line.
type SeedError struct {
	Msg    string // unrecognized random seed option "X"
	Detail string // Expecting an unsigned integer, "time" or "rand".
}

func (e *SeedError) Error() string { return e.Msg + ": " + e.Detail }

// ParseSeed parses a --random-seed or PGBENCH_RANDOM_SEED value as pgbench
// does:
//
//   - "time": the monotonic clock in µs (pgbench's pg_time_now(), not the epoch);
//   - "rand": 8 bytes from crypto/rand (pgbench's pg_strong_random);
//   - otherwise a decimal number with the semantics of
//     sscanf(spec, "%lu%c") == 1 under glibc: leading C white space and one
//     sign are accepted, a negative number wraps modulo 2^64 ("-1" is
//     2^64−1), a number beyond 2^64−1 saturates to 2^64−1, and anything after
//     the digits (trailing blanks included) is rejected.
//
// The result is always Explicit. The empty string is an error, as it is for
// pgbench when PGBENCH_RANDOM_SEED is set but empty; callers use TimeSeed when
// no seed option was given at all.
func ParseSeed(spec string) (Seed, error) {
	switch spec {
	case "time":
		return Seed{Value: monotonicMicros(), Explicit: true}, nil
	case "rand":
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return Seed{}, fmt.Errorf("could not generate random seed: %w", err)
		}
		return Seed{Value: binary.LittleEndian.Uint64(b[:]), Explicit: true}, nil
	}
	v, ok := scanUint64(spec)
	if !ok {
		return Seed{}, &SeedError{
			Msg:    fmt.Sprintf("unrecognized random seed option \"%s\"", spec),
			Detail: `Expecting an unsigned integer, "time" or "rand".`,
		}
	}
	return Seed{Value: v, Explicit: true}, nil
}

// TimeSeed is the seed pgbench uses when neither --random-seed nor
// PGBENCH_RANDOM_SEED is given: the monotonic clock in µs, not Explicit.
func TimeSeed() Seed {
	return Seed{Value: monotonicMicros()}
}

// scanUint64 reports whether sscanf(s, "%lu%c", &v, &c) would return exactly
// 1 under glibc, and v. %lu converts with strtoul in base 10.
func scanUint64(s string) (uint64, bool) {
	i, neg := cnum.SignStart(s)
	start := i
	var v uint64
	overflow := false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			overflow = true
		}
		v = v*10 + d
	}
	if i == start || i != len(s) {
		return 0, false // no digits, or a second item for %c
	}
	switch {
	case overflow:
		return math.MaxUint64, true // strtoul: ULONG_MAX, ERANGE, whatever the sign
	case neg:
		return -v, true
	}
	return v, true
}

// ThreadStreams are the streams of one pgbench thread.
type ThreadStreams struct {
	Choose   State // script choice (ts_choose_rs)
	Throttle State // --rate delays (ts_throttle_rs)
	Sample   State // --sampling-rate (ts_sample_rs)
}

// Streams are every stream and seed-derived value a run needs.
type Streams struct {
	Clients     []State // each client's stream for the script's random functions (cs_func_rs)
	DefaultSeed int64   // :default_seed, int64(base.Next()); 0 when -D default_seed was given
	RandomSeed  int64   // :random_seed, the base seed as int64
	Threads     []ThreadStreams
}

// Derive derives a run's streams from the base seed in pgbench's order
// (pgbench.md §9.2 step 3), each stream being NewState(base.Next()) with
// base = NewState(seed):
//
//  1. for each client 0..nclients−1, its script stream;
//  2. default_seed = int64(base.Next()), skipped (no draw) when defaultSeedGiven;
//  3. for each thread 0..nthreads−1, Choose, Throttle and Sample, in that order.
//
// nthreads is the effective thread count (pgbench caps it at nclients).
func Derive(seed uint64, nclients, nthreads int, defaultSeedGiven bool) Streams {
	base := NewState(seed)
	st := Streams{
		Clients:    make([]State, max(nclients, 0)),
		RandomSeed: int64(seed),
		Threads:    make([]ThreadStreams, max(nthreads, 0)),
	}
	for i := range st.Clients {
		st.Clients[i] = NewState(base.Next())
	}
	if !defaultSeedGiven {
		st.DefaultSeed = int64(base.Next())
	}
	for i := range st.Threads {
		t := &st.Threads[i]
		t.Choose = NewState(base.Next())
		t.Throttle = NewState(base.Next())
		t.Sample = NewState(base.Next())
	}
	return st
}
