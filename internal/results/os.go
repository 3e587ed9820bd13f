package results

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// os.csv: the machine's vmstat- and iostat-like figures per interval
// (internal/collect writes it, from /proc or a node_exporter): the fixed
// columns of OSColumns, then for each disk (fixed at the run's start) its
// columns disk_<name>_r_s, _w_s, _rkb_s, _wkb_s, _await_ms, _aqu_sz, _util.
// An empty cell is a figure not measured in that interval.

// OSRow is one row of os.csv.
type OSRow struct {
	Time     time.Time // end of the interval
	ElapsedS float64   // seconds from the run's clock zero
	Source   string    // "proc" or "node_exporter"

	R, B                    float64 // tasks runnable, blocked on I/O
	Swpd, Free, Buff, Cache float64 // kB
	SI, SO, BI, BO          float64 // kB/s
	In, CS                  float64 // per second
	US, SY, ID, WA, ST      float64 // percent of all CPUs

	MemAvailableKB, DirtyKB, WritebackKB float64
	ClientCPU                            float64 // pgtrial's CPU seconds per second

	Disks []DiskRow // in the file's column order
}

// DiskRow is one device's columns of an os.csv row (iostat -x's units;
// Util in percent as in the file).
type DiskRow struct {
	Name                    string
	ReadsPerS, WritesPerS   float64
	ReadKBPerS, WriteKBPerS float64
	AwaitMs                 float64
	AquSz                   float64
	Util                    float64 // percent
}

// osColumn is one fixed column of os.csv: its name, the decimals written,
// and its field in OSRow (one table for the writer and the reader).
type osColumn struct {
	name  string
	prec  int
	field func(*OSRow) *float64
}

func osColumns() []osColumn {
	return []osColumn{
		{"r", 0, func(r *OSRow) *float64 { return &r.R }},
		{"b", 0, func(r *OSRow) *float64 { return &r.B }},
		{"swpd", 0, func(r *OSRow) *float64 { return &r.Swpd }},
		{"free", 0, func(r *OSRow) *float64 { return &r.Free }},
		{"buff", 0, func(r *OSRow) *float64 { return &r.Buff }},
		{"cache", 0, func(r *OSRow) *float64 { return &r.Cache }},
		{"si", 1, func(r *OSRow) *float64 { return &r.SI }},
		{"so", 1, func(r *OSRow) *float64 { return &r.SO }},
		{"bi", 1, func(r *OSRow) *float64 { return &r.BI }},
		{"bo", 1, func(r *OSRow) *float64 { return &r.BO }},
		{"in", 1, func(r *OSRow) *float64 { return &r.In }},
		{"cs", 1, func(r *OSRow) *float64 { return &r.CS }},
		{"us", 2, func(r *OSRow) *float64 { return &r.US }},
		{"sy", 2, func(r *OSRow) *float64 { return &r.SY }},
		{"id", 2, func(r *OSRow) *float64 { return &r.ID }},
		{"wa", 2, func(r *OSRow) *float64 { return &r.WA }},
		{"st", 2, func(r *OSRow) *float64 { return &r.ST }},
		{"mem_available_kb", 0, func(r *OSRow) *float64 { return &r.MemAvailableKB }},
		{"dirty_kb", 0, func(r *OSRow) *float64 { return &r.DirtyKB }},
		{"writeback_kb", 0, func(r *OSRow) *float64 { return &r.WritebackKB }},
		{"client_cpu", 3, func(r *OSRow) *float64 { return &r.ClientCPU }},
	}
}

// diskColumn is one per-disk column: disk_<name><suffix>.
type diskColumn struct {
	suffix string
	prec   int
	field  func(*DiskRow) *float64
}

func diskColumns() []diskColumn {
	return []diskColumn{
		{"_r_s", 2, func(d *DiskRow) *float64 { return &d.ReadsPerS }},
		{"_w_s", 2, func(d *DiskRow) *float64 { return &d.WritesPerS }},
		{"_rkb_s", 1, func(d *DiskRow) *float64 { return &d.ReadKBPerS }},
		{"_wkb_s", 1, func(d *DiskRow) *float64 { return &d.WriteKBPerS }},
		{"_await_ms", 2, func(d *DiskRow) *float64 { return &d.AwaitMs }},
		{"_aqu_sz", 3, func(d *DiskRow) *float64 { return &d.AquSz }},
		{"_util", 2, func(d *DiskRow) *float64 { return &d.Util }},
	}
}

func diskColumnName(disk, suffix string) string { return "disk_" + disk + suffix }

// OSHeader is os.csv's header for the disks, in their order.
func OSHeader(disks []string) []string {
	h := []string{"time", "elapsed_s", "source"}
	for _, c := range osColumns() {
		h = append(h, c.name)
	}
	for _, d := range disks {
		for _, c := range diskColumns() {
			h = append(h, diskColumnName(d, c.suffix))
		}
	}
	return h
}

// CreateOS creates os.csv in the run directory dir with the header for the
// disks.
func CreateOS(dir string, disks []string) (*CSVWriter, error) {
	return CreateCSV(dir, OSFile, OSHeader(disks))
}

// Record is r as an os.csv row, in OSHeader's order for r's disks; NaN and
// ±Inf are empty cells.
func (r *OSRow) Record() []string {
	rec := []string{FormatTime(r.Time), strconv.FormatFloat(r.ElapsedS, 'f', 3, 64), r.Source}
	for _, c := range osColumns() {
		rec = append(rec, osFormatValue(*c.field(r), c.prec))
	}
	dcols := diskColumns()
	for i := range r.Disks {
		for _, c := range dcols {
			rec = append(rec, osFormatValue(*c.field(&r.Disks[i]), c.prec))
		}
	}
	return rec
}

// osFormatValue writes v with prec decimals, "" for NaN or ±Inf.
func osFormatValue(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// ReadOS reads os.csv of the run directory dir. Empty fields are NaN; a
// column missing from the file is NaN in every row.
func ReadOS(dir string) ([]OSRow, error) {
	t, err := ReadTable(dir, OSFile)
	if err != nil {
		return nil, err
	}
	cols, dcols := osColumns(), diskColumns()
	// The disks, in the order of their first column.
	var disks []string
	for name := range t.Cols {
		if d, ok := strings.CutPrefix(name, "disk_"); ok {
			if d, ok := strings.CutSuffix(d, dcols[0].suffix); ok {
				disks = append(disks, d)
			}
		}
	}
	slices.SortFunc(disks, func(a, b string) int {
		return t.Cols[diskColumnName(a, dcols[0].suffix)] - t.Cols[diskColumnName(b, dcols[0].suffix)]
	})
	num := func(rec []string, name string) float64 {
		v, err := strconv.ParseFloat(t.Str(rec, name), 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	rows := make([]OSRow, 0, len(t.Rows))
	for _, rec := range t.Rows {
		r := OSRow{Time: t.Time(rec), ElapsedS: t.Float(rec, "elapsed_s"), Source: t.Str(rec, "source")}
		for _, c := range cols {
			*c.field(&r) = num(rec, c.name)
		}
		for _, d := range disks {
			dr := DiskRow{Name: d}
			for _, c := range dcols {
				*c.field(&dr) = num(rec, diskColumnName(d, c.suffix))
			}
			r.Disks = append(r.Disks, dr)
		}
		rows = append(rows, r)
	}
	return rows, nil
}
