package prng

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// This test replays testdata/pgbench_draws.txt, which gen_pgbench_draws.sh
// recorded from real pgbench (15.18): every debug() value of the draws_*.sql
// scripts, run with several seeds, clients and threads, and which
// transactions --sampling-rate kept. A tiny evaluator below understands
// exactly the expressions those scripts use.

// A drawsRun is one recorded pgbench invocation.
type drawsRun struct {
	header           string
	seed             uint64
	clients, threads int
	xacts            int
	defaultSeed      *int64  // -D default_seed=N
	sampleRate       float64 // --sampling-rate, 0 if none
	scripts          []drawsScript
	debug            []drawsLine    // in stderr order
	logged           map[[2]int]int // (client, transaction) → 1
}

type drawsLine struct {
	script, command int
	value           int64
}

type drawsScript struct {
	name     string
	weight   int64
	commands []drawsCommand
}

// A drawsCommand is `\set name expr` or `\set name debug(expr)`, where expr is
// optionally prefixed by `:client_id * 10000000000 + ` (the client's id
// encoded in the value printed, to attribute lines to clients).
type drawsCommand struct {
	set     string
	debug   bool
	encoded bool
	fn      string   // function name; "" for a plain variable reference
	args    []string // raw argument texts
}

const clientPrefix = ":client_id * 10000000000 + "

func parseDrawsScript(t *testing.T, name string, weight int64) drawsScript {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := drawsScript{name: name, weight: weight}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 || f[0] != `\set` {
			t.Fatalf("%s: unexpected line %q", name, line)
		}
		c := drawsCommand{set: f[1]}
		expr := f[2]
		if inner, ok := strings.CutPrefix(expr, "debug("); ok {
			c.debug = true
			expr = strings.TrimSuffix(inner, ")")
		}
		expr, c.encoded = strings.CutPrefix(expr, clientPrefix)
		if open := strings.IndexByte(expr, '('); open >= 0 {
			c.fn = expr[:open]
			c.args = strings.Split(strings.TrimSuffix(expr[open+1:], ")"), ", ")
		} else {
			c.args = []string{expr}
		}
		s.commands = append(s.commands, c)
	}
	return s
}

// drawsEnv is one client's evaluation state.
type drawsEnv struct {
	rs   State
	vars map[string]int64
}

func (e *drawsEnv) intArg(t *testing.T, a string) int64 {
	if l, r, ok := strings.Cut(a, " * "); ok {
		return e.intArg(t, l) * e.intArg(t, r)
	}
	if name, ok := strings.CutPrefix(a, ":"); ok {
		v, found := e.vars[name]
		if !found {
			t.Fatalf("undefined variable %s", name)
		}
		return v
	}
	v, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		t.Fatalf("bad integer argument %q", a)
	}
	return v
}

func floatArg(t *testing.T, a string) float64 {
	v, err := strconv.ParseFloat(a, 64)
	if err != nil {
		t.Fatalf("bad double argument %q", a)
	}
	return v
}

func (e *drawsEnv) eval(t *testing.T, c drawsCommand) int64 {
	a := c.args
	i := func(k int) int64 { return e.intArg(t, a[k]) }
	var v int64
	switch c.fn {
	case "":
		v = i(0)
	case "random":
		v = e.rs.Uniform(i(0), i(1))
	case "random_exponential":
		v = e.rs.Exponential(i(0), i(1), floatArg(t, a[2]))
	case "random_gaussian":
		v = e.rs.Gaussian(i(0), i(1), floatArg(t, a[2]))
	case "random_zipfian":
		v = e.rs.Zipfian(i(0), i(1), floatArg(t, a[2]))
	case "permute":
		seed := e.vars["default_seed"]
		if len(a) == 3 {
			seed = i(2)
		}
		v = Permute(i(0), i(1), seed)
	case "hash", "hash_murmur2", "hash_fnv1a":
		seed := e.vars["default_seed"]
		if len(a) == 2 {
			seed = i(1)
		}
		if c.fn == "hash_fnv1a" {
			v = HashFNV1a(i(0), seed)
		} else {
			v = HashMurmur2(i(0), seed)
		}
	default:
		t.Fatalf("unknown function %s", c.fn)
	}
	e.vars[c.set] = v
	if c.encoded {
		v += e.vars["client_id"] * 10000000000
	}
	return v
}

func readDrawsRuns(t *testing.T) []*drawsRun {
	f, err := os.Open(filepath.Join("testdata", "pgbench_draws.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []*drawsRun
	var r *drawsRun
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] == "#" {
			continue
		}
		switch fields[0] {
		case "run":
			r = &drawsRun{header: line, logged: map[[2]int]int{}}
			runs = append(runs, r)
			for _, kv := range fields[1:] {
				k, v, _ := strings.Cut(kv, "=")
				var err error
				switch k {
				case "seed":
					r.seed, err = strconv.ParseUint(v, 10, 64)
				case "c":
					r.clients, err = strconv.Atoi(v)
				case "j":
					r.threads, err = strconv.Atoi(v)
				case "t":
					r.xacts, err = strconv.Atoi(v)
				case "default_seed":
					var ds int64
					ds, err = strconv.ParseInt(v, 10, 64)
					r.defaultSeed = &ds
				case "--sampling-rate":
					r.sampleRate, err = strconv.ParseFloat(v, 64)
				case "scripts":
					for _, s := range strings.Split(v, ",") {
						name, w, _ := strings.Cut(s, "@")
						wt, _ := strconv.ParseInt(w, 10, 64)
						r.scripts = append(r.scripts, parseDrawsScript(t, name, wt))
					}
				}
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
			}
		case "d":
			s, _ := strconv.Atoi(fields[1])
			c, _ := strconv.Atoi(fields[2])
			v, err := strconv.ParseInt(fields[3], 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			r.debug = append(r.debug, drawsLine{s, c, v})
		case "log":
			c, _ := strconv.Atoi(fields[1])
			x, _ := strconv.Atoi(fields[2])
			r.logged[[2]int{c, x}] = 1
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return runs
}

// threadOf returns the thread pgbench gives client k: contiguous blocks, thread
// i taking ceil(remaining clients / remaining threads).
func threadOf(k, nclients, nthreads int) int {
	dealt := 0
	for i := range nthreads {
		n := (nclients - dealt + nthreads - i - 1) / (nthreads - i)
		if k < dealt+n {
			return i
		}
		dealt += n
	}
	return nthreads - 1
}

func TestPgbenchDraws(t *testing.T) {
	runs := readDrawsRuns(t)
	if len(runs) == 0 {
		t.Fatal("no runs in testdata/pgbench_draws.txt")
	}
	values := 0
	for _, r := range runs {
		n := checkDrawsRun(t, r)
		values += n
	}
	t.Logf("%d runs, %d values reproduced", len(runs), values)
}

func checkDrawsRun(t *testing.T, r *drawsRun) int {
	fail := func(format string, args ...any) int {
		t.Helper()
		t.Errorf("%s: %s", r.header, fmt.Sprintf(format, args...))
		return 0
	}
	st := Derive(r.seed, r.clients, r.threads, r.defaultSeed != nil)
	defaultSeed := st.DefaultSeed
	if r.defaultSeed != nil {
		defaultSeed = *r.defaultSeed
	}
	envs := make([]*drawsEnv, r.clients)
	for k := range envs {
		envs[k] = &drawsEnv{rs: st.Clients[k], vars: map[string]int64{
			"client_id": int64(k), "default_seed": defaultSeed, "random_seed": st.RandomSeed,
		}}
	}

	// Attribute each debug line to a client: all to client 0 with one client,
	// else by the encoded client id. Unencoded lines (:default_seed) are
	// checked here and dropped.
	perClient := make([][]drawsLine, r.clients)
	threadStarts := make([][]int, r.threads) // clients starting a transaction, in thread order
	for _, l := range r.debug {
		if l.script >= len(r.scripts) || l.command < 1 || l.command > len(r.scripts[l.script].commands) {
			return fail("debug line %+v outside the scripts", l)
		}
		c := r.scripts[l.script].commands[l.command-1]
		k := 0
		if r.clients > 1 {
			if !c.encoded {
				if l.value != defaultSeed {
					return fail("unattributed line %+v, want default_seed %d", l, defaultSeed)
				}
				continue
			}
			if l.value < 0 {
				return fail("negative encoded line %+v cmd %+v", l, c)
			}
			k = int(l.value / 10000000000)
			l.value %= 10000000000
			if k >= r.clients {
				return fail("line %+v: client %d out of range", l, k)
			}
			l.value += int64(k) * 10000000000
		}
		perClient[k] = append(perClient[k], l)
		if l.command == 1 {
			th := threadOf(k, r.clients, r.threads)
			threadStarts[th] = append(threadStarts[th], k)
		}
	}

	var totalWeight int64
	for _, s := range r.scripts {
		totalWeight += s.weight
	}
	checked := 0
	cursor := make([]int, r.clients)
	xacts := make([]int, r.clients)
	for th, starts := range threadStarts {
		choose := &st.Threads[th].Choose
		for _, k := range starts {
			// pgbench's chooseScript: no draw with a single script.
			want := 0
			if len(r.scripts) > 1 {
				w := choose.Uniform(0, totalWeight-1)
				for want = 0; ; want++ {
					if w -= r.scripts[want].weight; w < 0 {
						break
					}
				}
			}
			e := envs[k]
			xacts[k]++
			for cmd, c := range r.scripts[want].commands {
				v := e.eval(t, c)
				if !c.debug || (r.clients > 1 && !c.encoded) {
					continue
				}
				if cursor[k] >= len(perClient[k]) {
					return fail("client %d: pgbench printed fewer values than expected", k)
				}
				got := perClient[k][cursor[k]]
				cursor[k]++
				if got.script != want || got.command != cmd+1 || got.value != v {
					return fail("client %d transaction %d: pgbench printed script %d command %d value %d; prng gives script %d command %d value %d",
						k, xacts[k], got.script, got.command, got.value, want, cmd+1, v)
				}
				checked++
			}
		}
	}
	for k := range r.clients {
		if r.debug != nil && xacts[k] != r.xacts {
			return fail("client %d ran %d transactions, want %d", k, xacts[k], r.xacts)
		}
		if cursor[k] != len(perClient[k]) {
			return fail("client %d: %d values left over", k, len(perClient[k])-cursor[k])
		}
	}

	// --sampling-rate: each transaction's end draws from its thread's sample
	// stream; it is logged when the draw is <= the rate. One client per
	// thread here, so the order is deterministic.
	if r.sampleRate > 0 {
		if r.clients != r.threads {
			return fail("sampling runs need one client per thread")
		}
		for k := range r.clients {
			sample := &st.Threads[threadOf(k, r.clients, r.threads)].Sample
			for x := 1; x <= r.xacts; x++ {
				want := sample.Double() <= r.sampleRate
				_, got := r.logged[[2]int{k, x}]
				if got != want {
					return fail("client %d transaction %d: logged %v, prng says %v", k, x, got, want)
				}
				checked++
			}
		}
	}
	return checked
}
