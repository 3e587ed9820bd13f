package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgtrial/pgtrial/internal/age"
	"github.com/pgtrial/pgtrial/internal/checks"
	"github.com/pgtrial/pgtrial/internal/shape"
)

// The data section: what is done to the tables once, after they are loaded and
// before the first run, in this order: data.shape regenerates columns as
// `pgtrial shape` does (internal/shape; the shape reached is experiment.json's
// "shaped"), then data.age ages them as `pgtrial age` does (internal/age);
// the achieved state (pages, free space, days) is experiment.json's "aged".

// Data is the data section.
type Data struct {
	Shape []shape.Config // in the file's order; none: no shaping
	Age   *age.Config    // nil: no aging
}

func dataSection() section[Data] {
	return section[Data]{name: "data", keys: []key[Data]{
		{name: "shape", doc: "regenerate columns once before aging and the runs (pgtrial shape)", dec: func(d *decoder, t *Data, e entry, path string, _ *fields) {
			items, ok := d.seq(e, path, "shapings {table, column, dist, …} or {table, pad|json, size}")
			if !ok {
				return
			}
			for i, it := range items {
				before := len(d.problems)
				var s shapeItem
				if _, ok := dataShapeSection().decode(d, it, index(path, i), "a mapping {table, column, dist, permute, min, max, seed} or {table, pad|json, size}", &s); ok && len(d.problems) == before {
					t.Shape = append(t.Shape, s.Config)
				}
			}
		}},
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

// shapeItem is one item of data.shape as it decodes: the Config, and the
// keys given, for the rules between them.
type shapeItem struct {
	shape.Config
	dist       *shape.Dist
	min, max   int64
	minSet     bool
	permute    bool
	sizeKind   string // "pad" or "json": the key that named the column
	size       string
	sizeNode   entry
	columnNode *entry
}

// dataShapeSection is one item of data.shape: the flags of pgtrial shape, as keys.
func dataShapeSection() section[shapeItem] {
	text := func(set func(*shapeItem, string), what string) func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
		return func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
			if v, ok := d.nonEmpty(e.val, path, what); ok {
				set(s, v)
			}
		}
	}
	bound := func(set func(*shapeItem, int64)) func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
		return func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, -1<<62, 1<<62, "a whole number"); ok {
				set(s, v)
			}
		}
	}
	sized := func(kind string) func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
		return func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
			if v, ok := d.nonEmpty(e.val, path, "a column name"); ok {
				s.Column, s.sizeKind = v, kind
			}
		}
	}
	return section[shapeItem]{name: "data.shape", keys: []key[shapeItem]{
		{name: "table", doc: "the table to shape", missing: "name the table whose column to regenerate",
			dec: text(func(s *shapeItem, v string) { s.Table = v }, "a table name")},
		{name: "column", doc: "the integer column given dist's values", dec: func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
			if v, ok := d.nonEmpty(e.val, path, "a column name"); ok {
				s.Column, s.columnNode = v, &e
			}
		}},
		{name: "dist", doc: "uniform, zipf:s=S, loguniform:n=N, exponential:p=P or gaussian:p=P (as --dist)", dec: func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
			v, ok := d.nonEmpty(e.val, path, "a distribution, e.g. zipf:s=1.1")
			if !ok {
				return
			}
			dist, err := shape.ParseDist(v)
			if err != nil {
				d.problem(e.val, path, "%s", strings.Replace(err.Error(), "--dist ", "", 1))
				return
			}
			s.dist = &dist
		}},
		{name: "permute", doc: "scatter the hot keys over the range (pgbench's permute)", dec: func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
			s.permute, _ = d.boolean(e.val, path)
		}},
		{name: "min", doc: "the smallest key (default 1)", dec: bound(func(s *shapeItem, v int64) { s.min, s.minSet = v, true })},
		{name: "max", doc: "the largest key (default: the row count)", dec: bound(func(s *shapeItem, v int64) { s.max, s.MaxSet = v, true })},
		{name: "seed", doc: "the generators' seed (default 1)", dec: func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, 0, 1<<62, "an unsigned whole number"); ok {
				s.Seed = uint64(v)
			}
		}},
		{name: "pad", doc: "a text column to fill with values of size", dec: sized(shape.PadText)},
		{name: "json", doc: "a json/jsonb column to fill with JSON objects of size", dec: sized(shape.PadJSON)},
		{name: "size", doc: "value sizes, uniform: MIN-MAX (e.g. 1KB-8KB) or one size", dec: func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
			if v, ok := d.nonEmpty(e.val, path, "sizes, e.g. 1KB-8KB"); ok {
				s.size, s.sizeNode = v, e
			}
		}},
		{name: "key", doc: "the unique not-null column rows are walked by (default: the primary key)", dec: text(func(s *shapeItem, v string) { s.Key = v }, "a column name")},
		{name: "batch", doc: "rows per transaction (default 10000)", dec: func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
			if v, ok := d.integer(e.val, path, 1, 1<<30, "1 or more rows"); ok {
				s.Batch = int(v)
			}
		}},
		{name: "force", doc: "shape a table pgtrial did not create", dec: func(d *decoder, s *shapeItem, e entry, path string, _ *fields) {
			s.Force, _ = d.boolean(e.val, path)
		}},
	}, check: checkShapeItem}
}

// checkShapeItem applies pgtrial shape's rules between its flags to one item:
// a dist with a column, or pad/json with a size, not both.
func checkShapeItem(d *decoder, s *shapeItem, f *fields, path string) {
	_, hasPad := f.get("pad")
	_, hasJSON := f.get("json")
	switch {
	case hasPad && hasJSON:
		d.problem(f.node, path, "give pad or json, not both")
	case s.sizeKind != "" && s.columnNode != nil:
		d.problem(s.columnNode.key, child(path, "column"), "%s names the column; leave out column", s.sizeKind)
	case s.sizeKind != "" && s.dist != nil:
		d.problem(f.node, path, "dist regenerates an integer column; %s fills one with values of size: give one of them", s.sizeKind)
	case s.sizeKind != "":
		if s.size == "" {
			d.problem(f.node, path, "%s needs size, e.g. size: 1KB-8KB", s.sizeKind)
			return
		}
		z, err := shape.ParseSizes(s.sizeKind, s.size)
		if err != nil {
			d.problem(s.sizeNode.val, child(path, "size"), "%s", strings.Replace(err.Error(), "--size ", "", 1))
			return
		}
		s.Sizes = &z
	case s.dist == nil:
		if _, given := f.get("dist"); !given {
			d.problem(f.node, path, "no dist and no pad or json: give column with dist (e.g. zipf:s=1.1), or pad/json with size")
		}
	case s.Column == "":
		d.problem(f.node, path, "dist needs column: the integer column to regenerate")
	case s.size != "":
		d.problem(s.sizeNode.key, child(path, "size"), "size goes with pad or json, not dist")
	default:
		dist := *s.dist
		dist.Min, dist.Permute = 1, s.permute
		if s.minSet {
			dist.Min = s.min
		}
		if s.MaxSet {
			dist.Max = s.max
			if dist.Min > dist.Max {
				d.problem(f.node, path, "empty range [%d, %d]: min must be <= max", dist.Min, dist.Max)
				return
			}
		}
		s.Config.Dist = &dist
	}
	if s.Seed == 0 {
		if _, given := f.get("seed"); !given {
			s.Seed = 1
		}
	}
	s.Analyze = false // shapeData's shape.Compact: VACUUM (FULL, ANALYZE)
}

// shapeData shapes the columns as the file's data.shape says, once, after the
// tables are loaded and before they are aged, each followed by VACUUM (FULL,
// ANALYZE) so that the table is as compact as loaded (the shaping's dead row
// versions would double it before the aging starts); experiment.json's shaped
// records the shape each reached.
func (r *runner) shapeData(ctx context.Context) error {
	if len(r.spec.Data.Shape) == 0 {
		return nil
	}
	conn, err := shape.Connect(ctx, r.env.ConnString)
	if err != nil {
		return fmt.Errorf("%s: data.shape: %w", r.spec.File, err)
	}
	defer conn.Close(context.Background())
	for i, c := range r.spec.Data.Shape {
		c.Out = &lineWriter{out: func(s string) { r.out("pgtrial: %s", s) }}
		res, err := shape.Run(ctx, conn, c)
		if err == nil {
			res, err = shape.Compact(ctx, conn, res, true) // as fresh as the load: the aging starts from it
		}
		if err != nil {
			return fmt.Errorf("%s: data.shape[%d]: %w", r.spec.File, i, err)
		}
		sr := newShaped(res)
		r.rec.Shaped = append(r.rec.Shaped, sr)
		r.out("pgtrial: shaped %s", sr.Summary())
	}
	return r.rec.write(r.env.Dir)
}

// Shaped is the shape one item of data.shape reached (experiment.json's
// "shaped"): shape.Result's figures with their units in their names.
type Shaped struct {
	Table     string `json:"table"`
	Column    string `json:"column"`
	Generated string `json:"generated"` // the distribution or size distribution, with its range
	Seed      uint64 `json:"seed"`
	Updated   int64  `json:"updated"` // rows rewritten
	Rows      int64  `json:"rows"`
	Distinct  int64  `json:"distinct"`
	// TopKeys = ceil(Distinct/100) most frequent values hold TopShare of the rows (0–1).
	TopKeys     int64   `json:"top_keys"`
	TopShare    float64 `json:"top_share"`
	TopKeyShare float64 `json:"top_key_share"` // the most frequent value's share of the rows
	AvgBytes    float64 `json:"avg_bytes"`     // mean pg_column_size of the values
	TableBytes  int64   `json:"table_bytes"`   // pg_table_size
	ToastBytes  int64   `json:"toast_bytes"`
	ToastShare  float64 `json:"toast_share"` // ToastBytes / TableBytes
	ElapsedS    float64 `json:"elapsed_s"`
}

func newShaped(r *shape.Result) Shaped {
	return Shaped{Table: r.Table, Column: r.Column, Generated: r.Generated, Seed: r.Seed, Updated: r.Updated,
		Rows: r.Rows, Distinct: r.Distinct, TopKeys: r.TopKeys, TopShare: r.TopShare, TopKeyShare: r.TopKeyShare,
		AvgBytes: r.AvgBytes, TableBytes: r.TableBytes, ToastBytes: r.ToastBytes, ToastShare: r.ToastShare, ElapsedS: r.Elapsed.Seconds()}
}

// Summary is the shape in one line, for the log and the summary's header.
func (s Shaped) Summary() string {
	return fmt.Sprintf("%s.%s ← %s: %d rows, %d distinct, top 1 %% holds %.1f %% of the rows, TOAST %.1f %% of the table",
		s.Table, s.Column, s.Generated, s.Rows, s.Distinct, 100*s.TopShare, 100*s.ToastShare)
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
