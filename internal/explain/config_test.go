package explain

import (
	"strings"
	"testing"
	"time"
)

func TestConfigSet(t *testing.T) {
	c := Defaults()
	for _, kv := range []string{"penalty=5", "match=2s", "alarm.wa=20%", "alarm.util=0.5", "alarm.b=2"} {
		if err := c.Set(kv); err != nil {
			t.Fatalf("Set(%q): %v", kv, err)
		}
	}
	if c.Penalty != 5 || c.Match != 2*time.Second || c.IOWait != 0.2 || c.DiskUtil != 0.5 || c.Blocked != 2 {
		t.Errorf("settings not taken: %+v", c)
	}
	if got := strings.Join(c.Changed(), " "); got != "penalty=5 match=2s alarm.wa=0.2 alarm.b=2 alarm.util=0.5" {
		t.Errorf("Changed() = %q", got)
	}
	if d := Defaults(); len(d.Changed()) != 0 {
		t.Errorf("the defaults report changes: %v", d.Changed())
	}
	for _, bad := range []string{"penalty", "=1", "nope=1", "penalty=0", "penalty=-1", "alarm.wa=120%", "alarm.b=50%", "match=x", "penalty=NaN"} {
		c := Defaults()
		if err := c.Set(bad); err == nil {
			t.Errorf("Set(%q) took it", bad)
		} else if !strings.Contains(err.Error(), "explain setting") {
			t.Errorf("Set(%q): %v does not name itself", bad, err)
		}
	}
}
