package script

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// TestTallyMerge: two scripts and three clients count one name together;
// Distinct and TopCounts are those of the sum.
func TestTallyMerge(t *testing.T) {
	a, _ := Parse("a", "\\tally key :client_id\n\\tally key 7\n\\tally other 1.6\nSELECT 1;\n")
	b, _ := Parse("b", "\\set k 7\n\\tally key :k\n")
	p := NewProgram(a, b)
	var cls []*Client
	for id := 0; id < 3; id++ {
		c := p.NewClient(id, prng.NewState(1), nil)
		_ = c.SetInt("startup", "client_id", int64(id))
		for tx := 0; tx < 4; tx++ {
			c.Begin(tx % 2)
			for i := 0; i < len(c.cmds); i = c.Next(i) {
				if c.cmds[i].Kind == MetaCommand {
					if err := c.Exec(i); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		cls = append(cls, c)
	}
	got := MergeTallies(p, cls, 2)
	// key: script a twice per client (client_id, 7), script b twice (7).
	want := []Tally{{Name: "key", Draws: 3 * 6, Distinct: 4, TopCounts: []int64{12, 2}}, {Name: "other", Draws: 6, Distinct: 1, TopCounts: []int64{6}}}
	if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(got[0].TopCounts, got[1].TopCounts) != "[12 2] [6]" {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if all := MergeTallies(p, cls, 0); fmt.Sprint(all[0].TopCounts) != "[12 2 2 2]" {
		t.Errorf("all counts %v", all[0].TopCounts)
	}
	if MergeTallies(NewProgram(b), nil, 1)[0].Draws != 0 {
		t.Error("no clients: draws")
	}
}

// TestTallyCap: past the limit a new value is a draw, not tracked.
func TestTallyCap(t *testing.T) {
	var tc tallyCounts
	for v := int64(0); v < 10; v++ {
		tc.add(v%6, 4)
	}
	// 0..3 tracked (0 to 3 twice: 0,1,2,3 then 4,5 refused, then 0..3 again)
	if tc.draws != 10 || len(tc.counts) != 4 || !tc.capped || tc.counts[0] != 2 || tc.counts[3] != 2 {
		t.Errorf("draws %d, tracked %v, capped %v", tc.draws, tc.counts, tc.capped)
	}
	c := NewProgram().NewClient(0, prng.NewState(1), nil)
	cl := []*Client{c}
	c.prog.tallyNames = []string{"k"}
	c.tallies = []tallyCounts{tc}
	if m := MergeTallies(c.prog, cl, 0)[0]; !m.Capped || m.Distinct != 4 || m.Draws != 10 {
		t.Errorf("merged %+v", m)
	}
}

func TestTallyErrors(t *testing.T) {
	s, err := Parse("e", "\\tally k 1 = 1\n")
	if err != nil {
		t.Fatal(err)
	}
	c := NewProgram(s).NewClient(0, prng.NewState(1), nil)
	c.Begin(0)
	var ee *ExecError
	if err := c.Exec(0); !errors.As(err, &ee) || ee.Msg != `tally k: cannot coerce boolean to int` {
		t.Errorf("%v", err)
	}
	for _, src := range []string{"\\tally\n", "\\tally k\n", "\\tally k 1 +\n"} {
		var pe *ParseError
		if _, err := Parse("a.sql", src); !errors.As(err, &pe) || pe.Line != 1 {
			t.Errorf("%q: %v, want a ParseError", src, err)
		}
	}
}
