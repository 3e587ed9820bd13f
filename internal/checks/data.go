package checks

import (
	"fmt"

	"github.com/pgtrial/pgtrial/internal/results"
)

// ItemFreshData is the experiment's item about the age of its data (FreshData).
const ItemFreshData = "fresh_data"

// DataAge is what an experiment did to its tables' age: whether it loaded them itself
// and what data.age reached (Days 0: no aging).
type DataAge struct {
	Loaded      bool    // the experiment loaded the tables (workload.scale or warehouses)
	Days        int     // days aged (data.age); 0: not aged
	Growth      float64 // pages after / before aging
	FreePercent float64 // pgstattuple's free_percent after aging; with Exact only
	Exact       bool
	Reached     bool // data.age's target was met
}

// FreshData judges whether the runs ran on data as old as production's (seed 001: a
// month of updates takes a freshly loaded table from 224 to 399 pages, 49 % free; a
// fresh one has next to no free space, so its updates, its cache and its plans are not
// production's). Warn when the experiment loaded the tables and did not age them
// (data: {age: …}), or aged them short of the target; pass when it aged them. Tables
// that were there before the experiment have an age it cannot know: no item (ok false).
// Value: the growth (× the starting pages; 1 for fresh data).
func FreshData(d DataAge) (c results.Check, ok bool) {
	c = results.Check{Name: ItemFreshData, Status: Warn, Value: 1.0}
	switch {
	case d.Days == 0 && !d.Loaded:
		return c, false
	case d.Days == 0:
		c.Message = "the runs ran on tables this experiment had just loaded: no free space, no dead rows, indexes fresh; production tables have lived (seed 001: a month of updates, 224 → 399 pages); age them first with data: {age: {until_size: 1.5}} (pgtrial age)"
		return c, true
	}
	c.Value = d.Growth
	free := "free space not measured (no pgstattuple)"
	if d.Exact {
		free = fmt.Sprintf("%.1f %% free", d.FreePercent)
	}
	c.Message = fmt.Sprintf("the tables were aged %d days before the runs: %.2f× their starting pages, %s", d.Days, d.Growth, free)
	if !d.Reached {
		c.Message += "; data.age's target was not met: raise days"
		return c, true
	}
	c.Status = Pass
	return c, true
}
