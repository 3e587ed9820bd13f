package checks

import (
	"strings"
	"testing"
)

func TestFreshData(t *testing.T) {
	if _, ok := FreshData(DataAge{}); ok {
		t.Error("tables of unknown age: want no item")
	}
	c, ok := FreshData(DataAge{Loaded: true})
	if !ok || c.Status != Warn || !strings.Contains(c.Message, "data: {age:") {
		t.Errorf("fresh load: %+v", c)
	}
	c, _ = FreshData(DataAge{Loaded: true, Days: 3, Growth: 1.52, FreePercent: 26.5, Exact: true, Reached: true})
	if c.Status != Pass || c.Value != 1.52 || !strings.Contains(c.Message, "26.5 % free") {
		t.Errorf("aged: %+v", c)
	}
	c, _ = FreshData(DataAge{Days: 30, Growth: 1.2})
	if c.Status != Warn || !strings.Contains(c.Message, "not met") || !strings.Contains(c.Message, "not measured") {
		t.Errorf("aged short of the target: %+v", c)
	}
}
