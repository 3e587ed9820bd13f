package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/age"
	"github.com/pgtrial/pgtrial/internal/checks"
)

// The data section: what is done to the tables once, after they are loaded and
// before the first run. data.age ages them as `pgtrial age` does (internal/age);
// the achieved state (pages, free space, days) is experiment.json's "aged".

// Data is the data section.
type Data struct {
	Age *age.Config // nil: no aging
}

func dataSection() section[Data] {
	return section[Data]{name: "data", keys: []key[Data]{
		{name: "age", doc: "age the table once before the runs (pgtrial age)", dec: func(d *decoder, t *Data, e entry, path string, _ *fields) {
			c := &age.Config{}
			if _, ok := dataAgeSection().decode(d, e.val, path, "a mapping (days, until_size, until_free, daily, vacuum_every, table, set, key, …)", c); ok {
				t.Age = c
			}
		}},
	}}
}

func dataAgeSection() section[age.Config] {
	count := func(set func(*age.Config, int), lo int64, rule string) func(d *decoder, c *age.Config, e entry, path string, _ *fields) {
		return func(d *decoder, c *age.Config, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, lo, age.MaxDays, rule); ok {
				set(c, int(v))
			}
		}
	}
	text := func(set func(*age.Config, string), what string) func(d *decoder, c *age.Config, e entry, path string, _ *fields) {
		return func(d *decoder, c *age.Config, e entry, path string, _ *fields) {
			if v, ok := d.nonEmpty(e.val, path, what); ok {
				set(c, v)
			}
		}
	}
	return section[age.Config]{name: "data.age", keys: []key[age.Config]{
		{name: "days", doc: "the most days to age (default 30)", dec: count(func(c *age.Config, v int) { c.Days = v }, 1, fmt.Sprintf("1 to %d days", age.MaxDays))},
		{name: "until_size", doc: "stop at this many times the starting pages", dec: func(d *decoder, c *age.Config, e entry, path string, _ *fields) {
			if v, ok := d.positive(e.val, path, 1000, "a growth above 1, e.g. 1.5"); ok && v > 1 {
				c.UntilSize = v
			} else if ok {
				d.problem(e.val, path, "%g is out of range: a growth above 1, e.g. 1.5", v)
			}
		}},
		{name: "until_free", doc: "stop at this free space, % per pgstattuple", dec: func(d *decoder, c *age.Config, e entry, path string, _ *fields) {
			if v, ok := d.positive(e.val, path, 99.9, "a percentage below 100, e.g. 40"); ok {
				c.UntilFree = v
			}
		}},
		{name: "daily", doc: "share of the rows updated a day (default 1/3)", dec: func(d *decoder, c *age.Config, e entry, path string, _ *fields) {
			if v, ok := d.positive(e.val, path, 1, "a share of the rows in (0, 1], e.g. 0.333"); ok {
				c.Daily = v
			}
		}},
		{name: "vacuum_every", doc: "a plain VACUUM every this many days (default 7; -1: never)", dec: func(d *decoder, c *age.Config, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, -1, age.MaxDays, "days (≥ 1), or -1 for never"); ok && v != 0 {
				c.VacuumEvery = int(v)
			} else if ok {
				d.problem(e.val, path, "0 is out of range: days (≥ 1), or -1 for never")
			}
		}},
		{name: "table", doc: "the table (default pgbench_accounts)", dec: text(func(c *age.Config, v string) { c.Table = v }, "a table name")},
		{name: "set", doc: "the update's SET list (default for pgbench_accounts: abalance = abalance + 1)", dec: text(func(c *age.Config, v string) { c.Set = v }, "a SET list, e.g. qty = qty + 1")},
		{name: "key", doc: "the column rows are drawn and batched by (default: the primary key)", dec: text(func(c *age.Config, v string) { c.Key = v }, "a column name")},
		{name: "batch", doc: "keys per UPDATE statement (default 10000)", dec: count(func(c *age.Config, v int) { c.Batch = v }, 1, "1 or more keys")},
		{name: "no_autovacuum", doc: "autovacuum off on the table while aging", dec: func(d *decoder, c *age.Config, e entry, path string, _ *fields) {
			c.NoAutovacuum, _ = d.boolean(e.val, path)
		}},
		{name: "i_own_this_data", doc: "age a table pgtrial did not create", dec: func(d *decoder, c *age.Config, e entry, path string, _ *fields) {
			c.OwnData, _ = d.boolean(e.val, path)
		}},
	}}
}

// ageData ages the table as the file's data.age says, once, after the tables are
// loaded; experiment.json's aged records what it achieved.
func (r *runner) ageData(ctx context.Context) error {
	if r.spec.Data.Age == nil {
		return nil
	}
	cc, err := pgx.ParseConfig(r.env.ConnString)
	if err != nil {
		return err
	}
	cfg := *r.spec.Data.Age
	cfg.Out = &lineWriter{out: func(s string) { r.out("pgtrial: age: %s", s) }}
	res, err := age.Run(ctx, cc, cfg)
	if res != nil && res.After.Pages > 0 {
		r.rec.Aged = res
		var b strings.Builder
		res.Write(&b)
		for l := range strings.SplitSeq(strings.TrimSpace(b.String()), "\n") {
			r.out("pgtrial: age: %s", l)
		}
	}
	if errors.Is(err, age.ErrNotReached) {
		// The table is aged as far as the days went; experiment.json says so (reached: false).
		r.out("pgtrial: warning: data.age: %v; the runs go on with the table as it is", err)
		err = nil
	}
	if err != nil {
		return fmt.Errorf("%s: data.age: %w", r.spec.File, err)
	}
	return r.rec.write(r.env.Dir)
}

// dataAge is the checklist's view of the tables' age (checks.FreshData).
func (r *runner) dataAge() checks.DataAge {
	d := checks.DataAge{Loaded: r.rec.Loaded != nil}
	if a := r.rec.Aged; a != nil {
		d.Days, d.Growth, d.FreePercent, d.Exact, d.Reached = a.Days, a.Growth(), a.After.FreePercent, a.After.Exact, a.Reached
	}
	return d
}

// lineWriter hands whole lines to out.
type lineWriter struct {
	out     func(string)
	pending []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.pending = append(w.pending, p...)
	for {
		i := strings.IndexByte(string(w.pending), '\n')
		if i < 0 {
			return len(p), nil
		}
		if l := strings.TrimRight(string(w.pending[:i]), "\r"); l != "" {
			w.out(l)
		}
		w.pending = w.pending[i+1:]
	}
}
