package shape

import (
	"strings"
	"testing"
)

// TestParseItem: init's --shape TABLE.COLUMN=DIST[,options] and =json:SIZE.
func TestParseItem(t *testing.T) {
	c, err := ParseItem("pgbench_accounts.bid=zipf:s=1.1,max=10,permute,seed=9")
	if err != nil {
		t.Fatal(err)
	}
	if c.Table != "pgbench_accounts" || c.Column != "bid" || c.Dist == nil || c.Dist.Kind != Zipf || c.Dist.Param != 1.1 ||
		c.Dist.Min != 1 || c.Dist.Max != 10 || !c.MaxSet || !c.Dist.Permute || c.Seed != 9 || c.Sizes != nil {
		t.Errorf("zipf item: %+v %+v", c, c.Dist)
	}
	c, err = ParseItem("app.events.payload=json:1KB-8KB")
	if err != nil {
		t.Fatal(err)
	}
	if c.Table != "app.events" || c.Column != "payload" || c.Dist != nil || c.Sizes == nil || *c.Sizes != (Sizes{Kind: PadJSON, Min: 1024, Max: 8192}) || c.Seed != 1 {
		t.Errorf("json item: %+v", c)
	}
	if c, err = ParseItem("t.c=loguniform:n=50,min=3"); err != nil || c.Dist.N != 50 || c.Dist.Min != 3 || c.MaxSet {
		t.Errorf("loguniform item: %+v %v", c, err)
	}
	for _, tc := range []struct{ spec, want string }{
		{"bid=zipf:s=1.1", "want TABLE.COLUMN=DIST"},
		{"t.c", "want TABLE.COLUMN=DIST"},
		{"t.=uniform", "want TABLE.COLUMN=DIST"},
		{"t.c=pareto", `unknown distribution "pareto"`},
		{"t.c=uniform,max=ten", `max="ten" is not a whole number`},
		{"t.c=uniform,hot", `unknown option "hot"`},
		{"t.c=json:8KB-1KB", "want MIN-MAX"},
		{"t.c=pad:1KB,permute", "takes no options"},
	} {
		if _, err := ParseItem(tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseItem(%q) = %v, want %q", tc.spec, err, tc.want)
		}
	}
}
