package cli

import (
	"strings"
	"testing"
)

func TestParseScenario(t *testing.T) {
	sp, err := parseScenario("reader: -b select-only@3 -f x.sql --rate=300 -c 4 -j 2 --arrival uniform")
	if err != nil {
		t.Fatal(err)
	}
	if sp.name != "reader" || len(sp.scripts) != 2 || !sp.scripts[0].builtin || sp.scripts[0].arg != "select-only@3" ||
		sp.scripts[1].builtin || sp.rate != 300 || sp.clients != 4 || sp.threads != 2 || sp.arrival != "uniform" {
		t.Errorf("parsed %+v", sp)
	}
	sp, err = parseScenario("w:--closed")
	if err != nil || !sp.closed || sp.clients != 1 || len(sp.scripts) != 0 {
		t.Errorf("parsed %+v, %v", sp, err)
	}
	for in, want := range map[string]string{
		"-b select-only --rate 3":          `expecting 'NAME: OPTIONS'`,
		": --closed":                       `expecting 'NAME: OPTIONS'`,
		"a b: --closed":                    `invalid --scenario name "a b"`,
		"r: -b select-only":                `--scenario r: choose its load model`,
		"r: --rate 3 --closed":             `--scenario r: --rate and --closed exclude each other`,
		"r: --rate x":                      `--scenario r: invalid --rate "x": expecting a number`,
		"r: -c two --closed":               `--scenario r: invalid -c "two": expecting a whole number`,
		"r: --closed -b":                   `--scenario r: -b needs a value`,
		"r: --closed -T 10s":               `--scenario r: unknown option "-T"`,
		"r: --closed=yes":                  `--scenario r: --closed takes no value`,
		"r: -b select-only --rate --close": `--scenario r: --rate needs a value`,
	} {
		_, err := parseScenario(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

func TestPlanScenarios(t *testing.T) {
	changed := func(set ...string) func(string) bool {
		return func(f string) bool {
			for _, s := range set {
				if s == f {
					return true
				}
			}
			return false
		}
	}
	o := &runOptions{scenarios: []string{"reader: -b select-only --rate 300 -c 2", "writer: -b simple-update -b select-only@0 -c 3 -j 1 --closed"}}
	p := &runPlan{}
	if err := planScenarios(o, changed(), p); err != nil {
		t.Fatal(err)
	}
	p.useScenarios()
	if len(p.scripts) != 3 || len(p.scenarios) != 2 || o.clients != 5 || !o.closed {
		t.Fatalf("plan %+v, clients %d", p, o.clients)
	}
	r, w := p.scenarios[0], p.scenarios[1]
	if r.First != 0 || r.N != 1 || r.Rate != 300 || r.Clients != 2 || w.First != 1 || w.N != 2 || w.Rate != 0 || w.Threads != 1 {
		t.Errorf("scenarios %+v", p.scenarios)
	}
	if p.threads != r.Threads+w.Threads {
		t.Errorf("threads %d, want %d+%d", p.threads, r.Threads, w.Threads)
	}
	for _, tc := range []struct {
		scen    []string
		changed []string
		want    string
	}{
		{[]string{"a: --closed", "a: --closed"}, nil, "--scenario a is given twice"},
		{[]string{"a: --closed"}, []string{"rate"}, "--rate is given outside --scenario"},
		{[]string{"a: --closed -c 0"}, nil, "--scenario a: invalid --clients 0"},
		{[]string{"a: --rate 0"}, nil, "--scenario a: invalid --rate 0"},
		{[]string{"a: --rate 5 --arrival bursty"}, nil, `--scenario a: invalid --arrival "bursty"`},
		{[]string{"a: --closed -b nosuch"}, nil, "--scenario a: "},
		{[]string{"a: --closed -b select-only@0"}, nil, "--scenario a: the scripts' weights add up to 0"},
	} {
		err := planScenarios(&runOptions{scenarios: tc.scen}, changed(tc.changed...), &runPlan{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.scen, err, tc.want)
		}
	}
}
