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
// scripts' generator with the run's number of draws). Records and the
// distribution come from the command line's -D records=, uniform=1,
// latest=1 (the mixes' probe reads them from ycsb_meta at run time), else
// usertable's row estimate in the run's evidence; a run with neither shows
// the share without expectation. ycsb-d's default is latest. Nothing for runs without that tally.
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
	vars := definedVars(run.CommandLine)
	dist := workload.YCSBZipfian
	if strings.HasSuffix(run.Workload.Name, "ycsb-d") {
		dist = workload.YCSBLatest
	}
	if vars["uniform"] == "1" {
		dist = workload.YCSBUniform
	} else if vars["latest"] == "1" {
		dist = workload.YCSBLatest
	}
	records, _ := strconv.ParseInt(vars["records"], 10, 64)
	if records <= 0 && run.Server != nil {
		// else usertable's row estimate at the run's start (the evidence)
		for _, ts := range run.Server.Tables {
			if ts.Name == "usertable" {
				records = ts.Rows
			}
		}
	}
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
		line += fmt.Sprintf(" (of the %d keys drawn; no expectation: the record count is not in run.json (no -D records=N, no usertable size))", tl.Distinct)
	case dist == workload.YCSBLatest:
		// The hot keys are the newest, and every insert moves them: the
		// counts of one key over the run are not those of a fixed key
		// space, so a fixed-space simulation would mislead (it gave 62 %
		// for a measured 38 % over a 20 s ycsb-d run).
		line += " (no expectation for latest: the hottest keys move with every insert)"
	case int64(len(tl.TopCounts)) < k && tl.Capped:
		line += " (a lower bound: the tally kept fewer keys than that)"
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
		line += fmt.Sprintf(" (expected %.1f %% for %s over %d records)", 100*exp.Share, what, records)
	}
	return []Block{&Lines{Lines: []string{line}}}
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
