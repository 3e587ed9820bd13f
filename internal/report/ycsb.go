package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pgtrial/pgtrial/internal/results"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// YCSBTally is the \tally name of the YCSB mixes' keys.
const YCSBTally = "key"

// YCSBBlocks is the line of a YCSB run on its key skew: "hottest 1 % of
// keys (N keys): x % of operations (expected y % for zipfian θ=0.99 over R
// records)". The share is sum(TopCounts[:N]) / Draws of the tally "key";
// the expectation is workload.YCSBHotShare (a seeded simulation of the
// scripts' generator with the run's number of draws; for latest
// YCSBLatestHotShare, the newest key moving with the run's share of
// inserts, from the probe's maxkey+1 keys). Records and the
// distribution are the probe's variables as the clients got them
// (run.json's workload.probe); in runs written before those were recorded,
// the command line's -D records=, uniform=1, latest=1, else usertable's
// row estimate in the run's evidence (which drifts with the inserts), and
// latest without expectation (its scripts drew it per client); a run with
// neither shows the share without expectation. Nothing for runs
// without that tally.
func YCSBBlocks(run *results.Run) []Block {
	if run == nil {
		return nil
	}
	var tl *results.Tally
	for i := range run.Tallies {
		if run.Tallies[i].Name == YCSBTally {
			tl = &run.Tallies[i]
		}
	}
	if tl == nil || tl.Draws == 0 {
		return nil
	}
	sp := ycsbSpaceOf(run)
	records, dist := sp.keys, sp.dist
	base := tl.Distinct
	if records > 0 {
		base = records
	}
	k := max(base/100, 1)
	var top int64
	for _, c := range tl.TopCounts[:min(int(k), len(tl.TopCounts))] {
		top += c
	}
	share := float64(top) / float64(tl.Draws)
	line := fmt.Sprintf("hottest 1 %% of keys (%d keys): %.1f %% of operations", k, 100*share)
	switch {
	case records <= 0:
		line += fmt.Sprintf(" (of the %d keys drawn; no expectation: the record count is not in run.json (no probe, no -D records=N, no usertable size))", tl.Distinct)
	case dist == workload.YCSBLatest && run.Workload.Probe == nil:
		// Runs before the probe was recorded drew latest per client
		// (from the client's own inserts): no simulation of that.
		line += " (no expectation for latest: the hottest keys move with every insert)"
	case int64(len(tl.TopCounts)) < k && tl.Capped:
		line += " (a lower bound: the tally kept fewer keys than that)"
	case dist == workload.YCSBLatest:
		// The hot keys are the newest, and every insert moves them: the
		// simulation moves them as the run's share of inserts does.
		ins, space := ycsbInsertShare(run.Workload.Scripts), records
		if mk, err := strconv.ParseInt(strings.TrimSpace(run.Workload.Probe["maxkey"]), 10, 64); err == nil && mk >= 0 {
			space = mk + 1 // the keys at the start, the loaded and the inserted
		}
		exp, err := workload.YCSBLatestHotShare(space, tl.Draws, k, ins)
		if err != nil {
			line += " (" + err.Error() + ")"
			break
		}
		line += fmt.Sprintf(" (expected %.1f %% for latest θ=0.99 from %d keys, %.0f %% inserts moving the newest)", 100*exp.Share, space, 100*ins)
	default:
		exp, err := workload.YCSBHotShare(dist, records, tl.Draws, k)
		if err != nil {
			line += " (" + err.Error() + ")"
			break
		}
		what := dist
		if dist != workload.YCSBUniform {
			what += " θ=0.99"
		}
		line += fmt.Sprintf(" (expected %.1f %% for %s over %d %s)", 100*exp.Share, what, records, sp.unit)
	}
	return []Block{&Lines{Lines: []string{line}}}
}

// ycsbInsertShare is the share of the operations that insert: the weight
// of the script named insert over all weights.
func ycsbInsertShare(scripts []results.ScriptWeight) float64 {
	var ins, all int
	for _, s := range scripts {
		all += s.Weight
		if s.Name == "insert" {
			ins += s.Weight
		}
	}
	if all == 0 {
		return 0
	}
	return float64(ins) / float64(all)
}

// ycsbSpace is a YCSB run's key space: the distribution, the number of
// keys it draws from (0: unknown) and what they are ("records" or "keys").
type ycsbSpace struct {
	dist string
	keys int64
	unit string
}

// ycsbSpaceOf reads a run's key space from the probe's variables as the
// clients got them (the scripts' rule: latest=1 wins over uniform=1,
// uniform over zipfian; scrambled=0 the plain zipfian; zipfian draws
// over the loaded records, uniform over 0..maxkey), else, for runs
// before those were recorded, from the command line and usertable's
// estimate (the scripts of then: uniform=1 wins over latest=1).
func ycsbSpaceOf(run *results.Run) ycsbSpace {
	sp := ycsbSpace{dist: workload.YCSBZipfian, unit: "records"}
	if p := run.Workload.Probe; p != nil {
		sp.keys, _ = strconv.ParseInt(strings.TrimSpace(p["records"]), 10, 64)
		switch {
		case varTrue(p["latest"]):
			sp.dist = workload.YCSBLatest
		case varTrue(p["uniform"]):
			sp.dist = workload.YCSBUniform
			if mk, err := strconv.ParseInt(strings.TrimSpace(p["maxkey"]), 10, 64); err == nil && mk >= 0 {
				sp.keys, sp.unit = mk+1, "keys"
			}
		case p["scrambled"] != "" && !varTrue(p["scrambled"]):
			sp.dist = workload.YCSBUnscrambled
		}
		return sp
	}
	vars := definedVars(run.CommandLine)
	if strings.HasSuffix(run.Workload.Name, "ycsb-d") {
		sp.dist = workload.YCSBLatest
	}
	if vars["uniform"] == "1" {
		sp.dist = workload.YCSBUniform
	} else if vars["latest"] == "1" {
		sp.dist = workload.YCSBLatest
	}
	sp.keys, _ = strconv.ParseInt(vars["records"], 10, 64)
	if sp.keys <= 0 && run.Server != nil {
		// else usertable's row estimate at the run's start (the evidence)
		for _, ts := range run.Server.Tables {
			if ts.Name == "usertable" {
				sp.keys = ts.Rows
			}
		}
	}
	return sp
}

// varTrue is a script variable's truth in \if as pgbench reads a string
// (makeVariableValue): a prefix of true or yes, or on, is true; null, a
// prefix of false or no, and off are false; else a non-zero number.
func varTrue(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "":
		return false
	case strings.HasPrefix("true", s) || strings.HasPrefix("yes", s) || s == "on":
		return true
	case s == "null" || strings.HasPrefix("false", s) || strings.HasPrefix("no", s) || s == "off":
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f != 0
}

// definedVars are the -D NAME=VALUE of a command line (also -DNAME=VALUE,
// --define NAME=VALUE, --define=NAME=VALUE).
func definedVars(args []string) map[string]string {
	vars := map[string]string{}
	for i := 0; i < len(args); i++ {
		a, v := args[i], ""
		switch {
		case a == "-D" || a == "--define":
			if i+1 < len(args) {
				v = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--define="):
			v = strings.TrimPrefix(a, "--define=")
		case strings.HasPrefix(a, "-D"):
			v = a[2:]
		default:
			continue
		}
		if name, val, ok := strings.Cut(v, "="); ok {
			vars[name] = val
		}
	}
	return vars
}
