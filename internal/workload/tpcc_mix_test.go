package workload_test

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// tpccSim runs the tpcc mix's actual script text with the script package:
// \set and \if are evaluated, each SQL command is a fake step that answers
// the \gset queries as the loaded database would.
type tpccSim struct {
	mixSim

	count        map[string]int
	rollbacks    int
	lines        int
	remoteLines  int
	payments     int
	remotePays   int
	byName       int
	lookups      int
	newOrderCIDs map[int64]int
	itemIDs      map[int64]int
}

func newTPCCSim(t *testing.T) *tpccSim {
	t.Helper()
	m, ok := workload.FindMix("tpcc")
	if !ok {
		t.Fatal("no tpcc mix")
	}
	s := &tpccSim{mixSim: newMixSim(t, m.Scripts), count: map[string]int{}, newOrderCIDs: map[int64]int{}, itemIDs: map[int64]int{}}
	return s
}

// run executes one transaction of script k on client c.
func (s *tpccSim) run(c *script.Client, k int) {
	name := s.names[k]
	s.count[name]++
	s.tx(c, k, func(sql string) {
		switch {
		case strings.HasPrefix(sql, "ROLLBACK"):
			s.rollbacks++
		case strings.Contains(sql, "RETURNING d_next_o_id"):
			s.set(c, "o_id", "3001")
			s.set(c, "d_tax", "0.1000")
			s.newOrderCIDs[s.get(c, "c_id")]++
		case strings.HasPrefix(sql, "SELECT count(*) AS item_found"):
			id := s.get(c, "ol_i_id")
			found := "1"
			if id > workload.TPCCItems {
				found = "0"
			} else {
				s.itemIDs[id]++
			}
			s.set(c, "item_found", found)
			s.set(c, "i_price", "12.34")
		case strings.HasPrefix(sql, "WITH s AS"):
			s.lines++
			if s.get(c, "ol_supply_w_id") != s.get(c, "w_id") {
				s.remoteLines++
			}
		case strings.HasPrefix(sql, "SELECT c_id FROM"):
			s.set(c, "c_id", "1")
		case strings.HasPrefix(sql, "SELECT coalesce(max(o_id)"):
			s.set(c, "o_id", "17")
		case strings.HasPrefix(sql, "UPDATE customer") && name == "payment":
			s.payments++
			if s.get(c, "c_w_id") != s.get(c, "w_id") {
				s.remotePays++
			}
		}
		if (name == "payment" || name == "order-status") && strings.HasPrefix(sql, "SELECT c_balance") || strings.HasPrefix(sql, "UPDATE customer") && name == "payment" {
			s.lookups++
			s.byName += int(s.get(c, "by_name"))
		}
	})
}

// within fails unless got is within 4 binomial SDs of p·n.
func within(t *testing.T, what string, got, n int, p float64) {
	t.Helper()
	sd := math.Sqrt(float64(n) * p * (1 - p))
	if d := math.Abs(float64(got) - p*float64(n)); d > 4*sd {
		t.Errorf("%s: %d of %d (%.4f), want %.4f ± %.4f (4 SD)", what, got, n, float64(got)/float64(n), p, 4*sd/float64(n))
	}
}

// nurandExact is NURand(A, x, y) with constant C's exact distribution,
// by enumeration of both uniform draws: p[v] for v in x..y.
func nurandExact(a, x, y, c int64) map[int64]float64 {
	counts := make([]int64, y-x+1)
	for i := int64(0); i <= a; i++ {
		for j := x; j <= y; j++ {
			counts[((i|j)+c)%(y-x+1)]++
		}
	}
	p := make(map[int64]float64, len(counts))
	all := float64((a + 1) * (y - x + 1))
	for k, n := range counts {
		p[int64(k)+x] = float64(n) / all
	}
	return p
}

// hottestShare is the share of the top 1 % of values by exact probability,
// and those values.
func hottestShare(p map[int64]float64, n int) (float64, []int64) {
	vals := make([]int64, 0, len(p))
	for v := range p {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool { return p[vals[i]] > p[vals[j]] || p[vals[i]] == p[vals[j]] && vals[i] < vals[j] })
	top := vals[:n/100]
	var s float64
	for _, v := range top {
		s += p[v]
	}
	return s, top
}

func TestTPCCMixDistributions(t *testing.T) {
	const txns = 100000
	const cID, cOLIID, cLast = 259, 7911, 157
	sim := newTPCCSim(t)
	var total int64
	for _, w := range sim.weights {
		total += w
	}
	rnd := prng.NewState(42)
	clients := make([]*script.Client, 20)
	for i := range clients {
		c := sim.prog.NewClient(i, prng.NewState(uint64(1000+i)), nil)
		for _, v := range [][2]string{{"warehouses", "10"}, {"c_load_c_id", strconv.Itoa(cID)}, {"c_load_ol_i_id", strconv.Itoa(cOLIID)},
			{"c_load_c_last", strconv.Itoa(cLast)}, {"c_run_c_last", strconv.Itoa(cLast + 70)}, {"all_warehouses", "0"}, {"client_id", strconv.Itoa(i)}} {
			sim.set(c, v[0], v[1])
		}
		clients[i] = c
	}
	for n := range txns {
		// The engine's choice: script k with probability weight/Σweight.
		r, k := rnd.Uniform(0, total-1), 0
		for r >= sim.weights[k] {
			r -= sim.weights[k]
			k++
		}
		sim.run(clients[n%len(clients)], k)
	}
	for k, name := range sim.names {
		within(t, "share of "+name, sim.count[name], txns, float64(sim.weights[k])/float64(total))
	}
	no := sim.count["new-order"]
	within(t, "rolled-back new-orders", sim.rollbacks, no, 0.01)
	within(t, "remote order lines", sim.remoteLines, sim.lines, 0.01)
	within(t, "remote payments", sim.remotePays, sim.payments, 0.15)
	within(t, "by-name lookups", sim.byName, sim.lookups, 0.60)
	// Mean order lines: 10 (5..15), less the rolled-back last lines.
	if mean := float64(sim.lines) / float64(no); math.Abs(mean-10*(1-0.01/10)) > 0.05 {
		t.Errorf("mean order lines per new-order %.3f, want ≈ 10", mean)
	}

	for _, c := range []struct {
		what    string
		a, x, y int64
		c       int64
		seen    map[int64]int
	}{
		{"c_id NURand(1023, 1, 3000)", 1023, 1, 3000, cID, sim.newOrderCIDs},
		{"ol_i_id NURand(8191, 1, 100000)", 8191, 1, 100000, cOLIID, sim.itemIDs},
	} {
		exact := nurandExact(c.a, c.x, c.y, c.c)
		share, top := hottestShare(exact, int(c.y-c.x+1))
		if share < 0.02 {
			t.Errorf("%s: the hottest 1 %% has %.4f of the draws by enumeration: not skewed (uniform: 0.01)", c.what, share)
		}
		var n, hot int
		for _, k := range c.seen {
			n += k
		}
		for _, v := range top {
			hot += c.seen[v]
		}
		within(t, c.what+": share of the hottest 1 %", hot, n, share)
		t.Logf("%s: hottest 1 %% share %.4f observed, %.4f exact, 0.0100 uniform (n=%d)", c.what, float64(hot)/float64(n), share, n)
	}
}

// TestTPCCRunConstant checks the probe's C_RUN rule for every C_LOAD.
func TestTPCCRunConstant(t *testing.T) {
	for load := 0; load <= 255; load++ {
		run := load + 70
		if run > 255 {
			run = load - 70
		}
		d := run - load
		if d < 0 {
			d = -d
		}
		if run < 0 || run > 255 || d < 65 || d > 119 || d == 96 || d == 112 {
			t.Fatalf("C_LOAD %d: C_RUN %d breaks 2.1.6.1", load, run)
		}
	}
	if !strings.Contains(workload.TPCCProbe, "c_load_c_last + 70 <= 255 THEN c_load_c_last + 70 ELSE c_load_c_last - 70") {
		t.Fatal("the probe's C_RUN rule changed: update TestTPCCRunConstant")
	}
}

func TestTPCCLastName(t *testing.T) {
	for n, want := range map[int64]string{0: "BARBARBAR", 371: "PRICALLYOUGHT", 999: "EINGEINGEING"} {
		if got := workload.TPCCLastName(n); got != want {
			t.Errorf("TPCCLastName(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestTPCCSpecMix checks that spec mode's scripts parse, place their \think
// outside the transaction, and keep throughput mode's transaction text.
func TestTPCCSpecMix(t *testing.T) {
	spec, _ := workload.FindMix("tpcc-spec")
	thr, _ := workload.FindMix("tpcc")
	keying := map[string]string{"new-order": "18", "payment": "3", "order-status": "2", "delivery": "2", "stock-level": "2"}
	think := map[string]string{"new-order": "120000", "payment": "120000", "order-status": "100000", "delivery": "50000", "stock-level": "50000"}
	for i, ms := range spec.Scripts {
		p, err := script.Parse(ms.Name, ms.Script)
		if err != nil {
			t.Fatalf("%s: %v", ms.Name, err)
		}
		if err := p.CheckConditionals(); err != nil {
			t.Fatalf("%s: %v", ms.Name, err)
		}
		if start, end := p.TxBounds(); !p.HasThink() || start == 0 || end == len(p.Commands) {
			t.Errorf("%s: transaction commands [%d, %d) of %d: the \\think commands are not outside", ms.Name, start, end, len(p.Commands))
		}
		if !strings.Contains(ms.Script, "\\think "+keying[ms.Name]+" s\n") || !strings.Contains(ms.Script, "random_exponential(0, "+think[ms.Name]+", 10)") {
			t.Errorf("%s: keying %s s or think cap %s ms missing:\n%s", ms.Name, keying[ms.Name], think[ms.Name], ms.Script)
		}
		body := thr.Scripts[i].Script[strings.Index(thr.Scripts[i].Script, "\n"):]
		if !strings.Contains(ms.Script, body) || ms.Weight != thr.Scripts[i].Weight {
			t.Errorf("%s: spec mode's transaction differs from throughput mode's", ms.Name)
		}
	}
}
