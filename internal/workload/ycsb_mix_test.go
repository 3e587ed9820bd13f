package workload_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// ycsbSim runs a YCSB mix's actual script text with the script package:
// \set, \if and \tally are evaluated, each SQL command is a fake step that
// answers as the loaded database would: the key sequence is one for all
// clients (last), an insert takes its next value, the \gset reads of the
// sequence get last − :off.
type ycsbSim struct {
	mixSim
	clients []*script.Client

	last    int64          // the key sequence's newest key, shared by the clients
	fields  map[int]int    // updates per field number
	updates int            // UPDATE statements
	ops     map[string]int // transactions per script
	keys    []int64        // the keys the reads named, in order (latest tests)
	seqRead int            // statements that read the sequence
}

var ycsbSetField = regexp.MustCompile(`^UPDATE usertable SET field(\d+) = `)

// newYCSBSim makes the mix's scripts for fields fields (Mix.ForVars, as
// `pgtrial run` does after the probe) and n clients with the probe's
// variables and the -D overrides in vars.
func newYCSBSim(t *testing.T, mix string, fields, n int, records int64, vars map[string]string) *ycsbSim {
	t.Helper()
	m, ok := workload.FindMix(mix)
	if !ok || m.ForVars == nil {
		t.Fatalf("no mix %s with ForVars", mix)
	}
	probe := map[string]string{"records": strconv.FormatInt(records, 10), "fields": strconv.Itoa(fields), "field_length": "100",
		"maxkey": strconv.FormatInt(records-1, 10), "uniform": "0", "latest": "0", "scrambled": "1"}
	if strings.HasSuffix(mix, "-d") {
		probe["latest"] = "1"
	}
	for k, v := range vars {
		probe[k] = v
	}
	mss, err := m.ForVars(probe)
	if err != nil {
		t.Fatal(err)
	}
	s := &ycsbSim{mixSim: newMixSim(t, mss), last: records - 1, fields: map[int]int{}, ops: map[string]int{}}
	s.prog.ZipfianBelowOne = true // as `pgtrial run` sets it
	for i := range n {
		c := s.prog.NewClient(i, prng.NewState(uint64(7000+i)), nil)
		for k, v := range probe {
			s.set(c, k, v)
		}
		s.set(c, "default_seed", "12345")
		s.clients = append(s.clients, c)
	}
	return s
}

// run executes one transaction of script k on client c.
func (s *ycsbSim) run(c *script.Client, k int) {
	name := s.names[k]
	s.ops[name]++
	s.tx(c, k, func(sql string) {
		switch {
		case strings.HasPrefix(sql, "INSERT INTO usertable"):
			s.last++
			s.set(c, "maxkey", strconv.FormatInt(s.last, 10))
		case strings.Contains(sql, "FROM ycsb_key_seq"):
			s.seqRead++
			k := s.last - s.get(c, "off")
			s.set(c, "k", strconv.FormatInt(k, 10))
			if strings.HasPrefix(sql, "SELECT s.k, u.*") {
				s.keys = append(s.keys, k)
			}
		case strings.HasPrefix(sql, "SELECT * FROM usertable WHERE ycsb_key = "):
			s.keys = append(s.keys, s.get(c, "k"))
		case strings.HasPrefix(sql, "UPDATE usertable"):
			m := ycsbSetField.FindStringSubmatch(sql)
			if m == nil {
				s.t.Fatalf("%s: update of no single field: %s", name, sql)
			}
			f, _ := strconv.Atoi(m[1])
			s.fields[f]++
			s.updates++
		}
	})
}

// runMix runs txns transactions, the scripts chosen by weight as the
// engine does, round-robin over the clients.
func (s *ycsbSim) runMix(txns int, seed uint64) {
	var total int64
	for _, w := range s.weights {
		total += w
	}
	rnd := prng.NewState(seed)
	for n := range txns {
		r, k := rnd.Uniform(0, total-1), 0
		for r >= s.weights[k] {
			r -= s.weights[k]
			k++
		}
		s.run(s.clients[n%len(s.clients)], k)
	}
}

// chiSquare99 are the chi-square distribution's 99.9th percentiles by
// degrees of freedom (a seeded test's bound: fails 1 in 1000 by chance).
var chiSquare99 = map[int]float64{2: 13.82, 4: 18.47, 9: 27.88}

// TestYCSBUpdateFieldUniform: the update (ycsb-a) and rmw's write (ycsb-f)
// write exactly one field per operation, chosen uniformly among the
// table's F fields (YCSB's writeallfields=false), for the F the scripts
// were made for; a one-field table updates field0 without a branch.
func TestYCSBUpdateFieldUniform(t *testing.T) {
	for _, c := range []struct {
		mix    string
		fields int
		txns   int
	}{{"ycsb-a", 10, 40000}, {"ycsb-f", 10, 40000}, {"ycsb-a", 5, 20000}, {"ycsb-f", 3, 20000}, {"ycsb-a", 1, 2000}} {
		sim := newYCSBSim(t, c.mix, c.fields, 4, 10000, nil)
		sim.runMix(c.txns, 99)
		writer := "update"
		if c.mix == "ycsb-f" {
			writer = "rmw"
		}
		if sim.updates != sim.ops[writer] {
			t.Errorf("%s F=%d: %d UPDATEs for %d %s operations, want one each", c.mix, c.fields, sim.updates, sim.ops[writer], writer)
		}
		if len(sim.fields) != c.fields {
			t.Errorf("%s F=%d: fields written %v, want each of 0..%d", c.mix, c.fields, sim.fields, c.fields-1)
		}
		if c.fields == 1 {
			continue
		}
		// Pearson's chi-square against uniform 1/F over F−1 df.
		e := float64(sim.updates) / float64(c.fields)
		var chi float64
		for f := range c.fields {
			d := float64(sim.fields[f]) - e
			chi += d * d / e
		}
		df := c.fields - 1
		if chi > chiSquare99[df] {
			t.Errorf("%s F=%d: chi-square %.2f > %.2f (%d df, 99.9 %%): %v not uniform", c.mix, c.fields, chi, chiSquare99[df], df, sim.fields)
		}
		t.Logf("%s F=%d: %d updates, chi-square %.2f (%d df), counts %v", c.mix, c.fields, sim.updates, chi, df, sim.fields)
	}
	// A script made for 10 fields names field9; one made for 4 does not.
	if s := workload.YCSBScripts(4)["update"]; strings.Contains(s, "field4") || !strings.Contains(s, "field3") {
		t.Errorf("update for 4 fields:\n%s", s)
	}
}

// TestYCSBForVarsFields: the mixes' scripts are made for the probe's fields
// and refuse a nonsense count.
func TestYCSBForVarsFields(t *testing.T) {
	m, _ := workload.FindMix("ycsb-a")
	for _, bad := range []string{"0", "x", "1001"} {
		if _, err := m.ForVars(map[string]string{"fields": bad}); err == nil || !strings.Contains(err.Error(), "1..1000") {
			t.Errorf("fields %q: err %v", bad, err)
		}
	}
	ss, err := m.ForVars(map[string]string{"fields": "20"})
	if err != nil || len(ss) != 2 || !strings.Contains(ss[1].Script, "field19 = ") {
		t.Fatalf("ForVars(fields 20): %v, %v", ss, err)
	}
	if tm, _ := workload.FindMix("tpcc"); tm.ForVars != nil {
		t.Error("tpcc's scripts do not depend on the probe")
	}
}

// TestYCSBLatestGlobal: under latest (ycsb-d) a client's reads follow the
// newest key whoever inserted it. Client 0 only inserts, client 1 only
// reads: client 1's keys are the shared sequence's newest − a zipfian
// offset, so after client 0's inserts the share of client 1's reads above
// its own probe's maxkey is P(offset < inserts), the offset-0 share is
// Zipf's rank-0 probability, and no read names a key beyond the newest.
func TestYCSBLatestGlobal(t *testing.T) {
	const records, inserts, reads = 10000, 2000, 20000
	sim := newYCSBSim(t, "ycsb-d", 10, 2, records, nil)
	ins, rd := -1, -1
	for k, n := range sim.names {
		switch n {
		case "insert":
			ins = k
		case "read":
			rd = k
		}
	}
	for range inserts {
		sim.run(sim.clients[0], ins)
	}
	if sim.last != records-1+inserts {
		t.Fatalf("newest key %d after %d inserts, want %d", sim.last, inserts, records-1+inserts)
	}
	for range reads {
		sim.run(sim.clients[1], rd)
	}
	if sim.seqRead != reads {
		t.Errorf("%d reads read the sequence %d times, want once each (in the read's own statement)", reads, sim.seqRead)
	}
	// The offset's range is client 1's maxkey (the probe's: records − 1).
	g := prng.NewGrayZipf(records, workload.YCSBTheta)
	var pNew float64
	for r := range int64(inserts) {
		pNew += g.Pmf(r)
	}
	var above, newest int
	for _, k := range sim.keys {
		if k > sim.last {
			t.Fatalf("read key %d beyond the newest %d", k, sim.last)
		}
		if k > records-1 {
			above++
		}
		if k == sim.last {
			newest++
		}
	}
	within(t, "reads of keys inserted by the other client", above, len(sim.keys), pNew)
	within(t, "reads of the newest key", newest, len(sim.keys), g.Pmf(0))
	if above == 0 {
		t.Fatal("client 1 never read a key client 0 inserted: latest is per client")
	}
	t.Logf("latest: %d of %d reads on keys of the other client's inserts (%.4f, P = %.4f), %.4f on the newest (P = %.4f)",
		above, len(sim.keys), float64(above)/float64(len(sim.keys)), pNew, float64(newest)/float64(len(sim.keys)), g.Pmf(0))

	// -D latest=1 on an update mix: the update's key follows the newest too.
	up := newYCSBSim(t, "ycsb-a", 10, 1, records, map[string]string{"latest": "1"})
	up.last += inserts // others inserted since the probe
	up.runMix(2000, 5)
	if up.seqRead != 2000 {
		t.Errorf("ycsb-a with latest=1: %d reads of the sequence for 2000 operations", up.seqRead)
	}
	var mx int64
	for _, k := range up.keys {
		mx = max(mx, k)
	}
	if mx <= records-1 {
		t.Errorf("ycsb-a with latest=1: no read above the probe's maxkey (max %d)", mx)
	}
}

// TestYCSBUnscrambled: -D scrambled=0 draws the plain zipfian over the
// loaded keys: key 0 has Zipf's rank-0 probability, and the share of the
// hottest 1 % matches YCSBHotShare's simulation for the unscrambled
// distribution (which the report's expectation uses); the default
// scrambles (key 0 is no hotter than any key).
func TestYCSBUnscrambled(t *testing.T) {
	const records, txns = 10000, 40000
	g := prng.NewGrayZipf(records, workload.YCSBTheta)
	for _, scrambled := range []string{"0", "1"} {
		sim := newYCSBSim(t, "ycsb-c", 10, 4, records, map[string]string{"scrambled": scrambled})
		sim.runMix(txns, 17)
		counts := map[int64]int{}
		for _, k := range sim.keys {
			if k < 0 || k >= records {
				t.Fatalf("scrambled=%s: key %d outside 0..%d", scrambled, k, records-1)
			}
			counts[k]++
		}
		if scrambled == "1" {
			if float64(counts[0]) > 0.5*g.Pmf(0)*float64(len(sim.keys)) {
				t.Errorf("scrambled: key 0 has %d of %d reads: the scramble is missing", counts[0], len(sim.keys))
			}
			continue
		}
		within(t, "unscrambled: reads of key 0", counts[0], len(sim.keys), g.Pmf(0))
		top := make([]int, 0, len(counts))
		for _, c := range counts {
			top = append(top, c)
		}
		sortDesc(top)
		var hot int
		for _, c := range top[:records/100] {
			hot += c
		}
		exp, err := workload.YCSBHotShare(workload.YCSBUnscrambled, records, int64(len(sim.keys)), records/100)
		if err != nil {
			t.Fatal(err)
		}
		share := float64(hot) / float64(len(sim.keys))
		// Two samples of the same statistic: within 4 SD of their difference.
		sd := math.Sqrt(2 * exp.Share * (1 - exp.Share) / float64(len(sim.keys)))
		if math.Abs(share-exp.Share) > 4*sd {
			t.Errorf("unscrambled: hottest 1 %% share %.4f, simulation %.4f ± %.4f (4 SD)", share, exp.Share, 4*sd)
		}
	}
}

func sortDesc(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] > a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// TestYCSBLatestHotShareScripts: the report's expectation for latest
// (YCSBLatestHotShare, the key sequence moving with 5 % inserts) is the
// statistic ycsb-d's scripts give: the share of the hottest 1 % of the
// keys read by 8 clients sharing one sequence, within 4 SD of the
// difference of two samples; and it is below the fixed-key-space share
// (the inserts spread the reads over more keys).
func TestYCSBLatestHotShareScripts(t *testing.T) {
	const records, txns = 5000, 20000
	const k = records / 100
	sim := newYCSBSim(t, "ycsb-d", 10, 8, records, nil)
	sim.runMix(txns, 17)
	counts := map[int64]int{}
	for _, key := range sim.keys {
		counts[key]++
	}
	top := make([]int, 0, len(counts))
	for _, c := range counts {
		top = append(top, c)
	}
	sortDesc(top)
	var hot int
	for _, c := range top[:k] {
		hot += c
	}
	n := int64(len(sim.keys))
	share := float64(hot) / float64(n)
	exp, err := workload.YCSBLatestHotShare(records, n, k, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	sd := math.Sqrt(2 * exp.Share * (1 - exp.Share) / float64(n))
	if math.Abs(share-exp.Share) > 4*sd {
		t.Errorf("ycsb-d scripts: hottest 1 %% share %.4f, simulation %.4f ± %.4f (4 SD)", share, exp.Share, 4*sd)
	}
	fixed, err := workload.YCSBLatestHotShare(records, n, k, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !(exp.Share < fixed.Share-4*sd) {
		t.Errorf("with inserts %.4f, without %.4f: the moving newest should lower the share", exp.Share, fixed.Share)
	}
	t.Logf("latest: scripts %.4f, simulation %.4f (± %.4f), fixed key space %.4f, over %d reads", share, exp.Share, 4*sd, fixed.Share, n)
	if _, err := workload.YCSBLatestHotShare(records, n, k, 0.9); err == nil {
		t.Error("an insert share of 0.9 accepted")
	}
}
