package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pgtrial/pgtrial/internal/script"
	"github.com/pgtrial/pgtrial/internal/workload"
)

// TestShowScript: a mix prints every script with its weight, and the text
// printed parses back (with pgtrial's extensions) into the same number of
// scripts; a pgbench built-in prints as pgbench does; an unknown name is an
// error that lists the names.
func TestShowScript(t *testing.T) {
	var b bytes.Buffer
	if err := showScript(&b, "tpcc"); err != nil {
		t.Fatal(err)
	}
	m, _ := workload.FindMix("tpcc")
	parts := strings.Split(b.String(), "\n-- tpcc/")
	if len(parts) != len(m.Scripts) || len(m.Scripts) != 5 {
		t.Fatalf("%d parts for %d scripts:\n%s", len(parts), len(m.Scripts), b.String())
	}
	for i, s := range m.Scripts {
		head := "-- tpcc/" + s.Name + ": "
		if i > 0 {
			head = s.Name + ": "
		}
		if !strings.HasPrefix(parts[i], head) || !strings.Contains(parts[i], "weight ") {
			t.Errorf("part %d does not start with %q:\n%s", i, head, parts[i])
		}
		body := parts[i][strings.IndexByte(parts[i], '\n')+1:]
		if _, err := script.Parse(s.Name, body); err != nil {
			t.Errorf("the printed %s does not parse: %v", s.Name, err)
		}
	}
	b.Reset()
	if err := showScript(&b, "se"); err != nil || !strings.HasPrefix(b.String(), "-- select-only: <builtin: select only>\n\\set aid") {
		t.Errorf("select-only: %v\n%s", err, b.String())
	}
	err := showScript(&b, "nosuch")
	if err == nil || !strings.Contains(err.Error(), "ycsb-a") || !strings.Contains(err.Error(), "tpcb-like") {
		t.Errorf("unknown name: %v", err)
	}
}
