package age

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// progress prints the aging as the loader prints a load (loader/progress.go): on a
// terminal the day's keys visited on one line rewritten with \r, at most 10 times a
// second; a line per day in any case.
type progress struct {
	out   io.Writer
	tty   bool
	width int       // length of the \r line on screen, to blank it out
	last  time.Time // the last \r refresh
}

func newProgress(out io.Writer, tty bool) *progress {
	if out == nil {
		out = io.Discard
	}
	return &progress{out: out, tty: tty}
}

func (p *progress) clear() {
	if p.width > 0 {
		fmt.Fprintf(p.out, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}

func (p *progress) line(format string, args ...any) {
	p.clear()
	fmt.Fprintf(p.out, format+"\n", args...)
}

func (p *progress) before(r *Result) {
	vac := fmt.Sprintf("VACUUM every %d days", r.VacuumEvery)
	if r.VacuumEvery < 0 {
		vac = "no VACUUM"
	}
	p.line("aging %s: %.1f %% of the rows a day by %s (SET %s), %s; autovacuum %s", r.Table, 100*r.Daily, r.Key, r.Set, vac, r.Autovacuum)
	if r.ExtCreated {
		p.line("created extension pgstattuple (to measure free space)")
	}
	if r.Missing != "" {
		p.line("free space is not measured: %s; rows and dead rows are pg_stat_user_tables' estimates", r.Missing)
	}
	p.line("before: %s", r.Before.brief())
}

// during shows the day's keys visited so far (terminal only).
func (p *progress) during(day, days int, scanned, total int64, elapsed time.Duration) {
	if !p.tty || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	pct := 100 * scanned / max(total, 1)
	l := fmt.Sprintf("day %d of %d: %d of %d rows visited (%d%%, %.1f s)", day, days, scanned, total, pct, elapsed.Seconds())
	pad := ""
	if n := p.width - len(l); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(p.out, "\r%s%s", l, pad)
	p.width = len(l)
}

// day prints a finished day: rows updated, pages and growth, free space when measured.
func (p *progress) day(day int, updated, pages int64, growth, free float64, vacuumed bool, elapsed time.Duration) {
	extra := ""
	if !math.IsNaN(free) {
		extra = fmt.Sprintf(", %.1f %% free", free)
	}
	if vacuumed {
		extra += ", VACUUM"
	}
	p.line("day %d: %d rows updated, %d pages (%.2f× the start)%s, %.1f s", day, updated, pages, growth, extra, elapsed.Seconds())
}

// brief is a State on one line.
func (s State) brief() string {
	free := "free space unknown"
	rows := fmt.Sprintf("~%d rows (estimate)", s.Rows)
	if s.Exact {
		free = fmt.Sprintf("%.1f %% free", s.FreePercent)
		rows = fmt.Sprintf("%d rows", s.Rows)
	}
	return fmt.Sprintf("%s, %d pages, %s, %.1f %% dead, indexes %d pages", rows, s.Pages, free, s.DeadPercent, s.IndexPages())
}

// Write prints the before/after table of an aging.
func (r *Result) Write(w io.Writer) {
	fmt.Fprintf(w, "\n%s aged %d days (%s): %d row updates, %d VACUUMs, autovacuum %s (%d runs during aging), %.1f s\n",
		r.Table, r.Days, r.Stopped, r.Updated, r.Vacuums, r.Autovacuum, r.After.AutovacuumCount-r.Before.AutovacuumCount, r.Elapsed)
	width := len("dead rows (pgstattuple)")
	for _, i := range r.Before.Indexes {
		width = max(width, len("index "+i.Name+" pages"))
	}
	row := func(name, before, after string) { fmt.Fprintf(w, "  %-*s %10s %10s\n", width, name, before, after) }
	row("", "before", "after")
	src := "pgstattuple"
	if !r.Before.Exact {
		src = "estimate"
	}
	row("rows ("+src+")", fmt.Sprint(r.Before.Rows), fmt.Sprint(r.After.Rows))
	row("pages", fmt.Sprint(r.Before.Pages), fmt.Sprint(r.After.Pages))
	row("× the starting pages", "1.00", fmt.Sprintf("%.2f", r.Growth()))
	if r.Before.Exact {
		row("free space", fmt.Sprintf("%.1f %%", r.Before.FreePercent), fmt.Sprintf("%.1f %%", r.After.FreePercent))
	} else {
		row("free space", "—", "—")
	}
	row("dead rows ("+src+")", fmt.Sprintf("%.1f %%", r.Before.DeadPercent), fmt.Sprintf("%.1f %%", r.After.DeadPercent))
	after := map[string]int64{}
	for _, i := range r.After.Indexes {
		after[i.Name] = i.Pages
	}
	for _, i := range r.Before.Indexes {
		row("index "+i.Name+" pages", fmt.Sprint(i.Pages), fmt.Sprint(after[i.Name]))
	}
	if r.Missing != "" {
		fmt.Fprintf(w, "  free space not measured: %s\n", r.Missing)
	}
}
