package trial

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// stripUnsupportedTally drops `\tally` lines when the script language does
// not know the command yet (before the \tally extension is merged).
func stripUnsupportedTally(src string) string {
	if _, err := script.Parse("probe", "\\tally key 1\n"); err == nil {
		return src
	}
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if !strings.HasPrefix(l, `\tally`) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestYCSBMixScriptsParse: every YCSB mix's scripts parse, the weights are
// YCSB's, and the names are the operations. PGTRIAL_DUMP_YCSB=DIR writes
// the scripts there (for `pgtrial run -f`).
func TestYCSBMixScriptsParse(t *testing.T) {
	want := map[string]string{
		"ycsb-a": "read@50 update@50", "ycsb-b": "read@95 update@5", "ycsb-c": "read@100",
		"ycsb-d": "read@95 insert@5", "ycsb-e": "scan@95 insert@5", "ycsb-f": "read@50 rmw@50",
	}
	dump := os.Getenv("PGTRIAL_DUMP_YCSB")
	for name, w := range want {
		m, ok := workload.FindMix(name)
		if !ok {
			t.Fatalf("no mix %s", name)
		}
		var got []string
		for _, s := range m.Scripts {
			got = append(got, s.Name+"@"+strconv.Itoa(s.Weight))
			if _, err := script.Parse(s.Name, stripUnsupportedTally(s.Script)); err != nil {
				t.Errorf("%s/%s: %v", name, s.Name, err)
			}
			if dump != "" {
				p := filepath.Join(dump, s.Name+".sql")
				if err := os.WriteFile(p, []byte(stripUnsupportedTally(s.Script)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if g := strings.Join(got, " "); g != w {
			t.Errorf("%s: scripts %s, want %s", name, g, w)
		}
		if !strings.Contains(m.Probe, "FROM ycsb_meta") {
			t.Errorf("%s: probe %q does not read ycsb_meta", name, m.Probe)
		}
	}
}
