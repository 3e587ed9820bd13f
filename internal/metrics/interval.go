package metrics

import (
	"math"
	"math/bits"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry shared by every histogram of pgtrial (see the package
// comment): values in µs from 1 µs to 1 h, 3 significant digits.
const (
	HistLowest  int64 = 1             // µs, lowest discernible value
	HistHighest int64 = 3_600_000_000 // µs, 1 h; larger values are clamped to it
	HistSigFigs       = 3             // significant decimal digits
)

// NewHistogram returns an empty histogram with pgtrial's geometry, so that it
// merges exactly with every other.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistLowest, HistHighest, HistSigFigs)
}

// RecordValue records v (µs) into h, clamped into [0, HistHighest] so that it
// cannot fail.
func RecordValue(h *hdrhistogram.Histogram, v int64) {
	_ = h.RecordValue(clamp(v))
}

func clamp(v int64) int64 {
	if v < 0 {
		return 0
	}
	if v > HistHighest {
		return HistHighest
	}
	return v
}

// Quantile is the nearest-rank q-quantile (µs) of h, q ∈ [0, 1]: the
// smallest recorded value whose cumulative count reaches the rank
// k = ⌈q·n⌉ (at least 1; NearestRank) of the n values in h, reported as HDR
// reports a bucket, by its highest equivalent value (within 0.1 % above the
// true value at 3 significant digits). q = 0.99 is p99, q = 1 the maximum
// (k = n); q = 0 (or NaN) is the minimum, reported by its bucket's lowest
// equivalent value. It is 0 for a nil or empty histogram.
//
// This is the definition of pgbench users' scripts (sorted values,
// v[⌈q·n⌉ − 1]) and of HdrHistogram's reference: no interpolation, and p99
// of 10 values is the 10th. (hdrhistogram-go's ValueAtQuantile takes q in
// 0–100 and the rank round(q·n), which is one lower whenever the fraction of
// q·n is in (0, ½): n = 7, q = 0.9 gives its 6th value, Quantile the 7th.)
//
// It allocates nothing and scans h's counts up to the quantile's bucket
// (BenchmarkQuantile: ~2 µs for a 1 ms-centred interval).
func Quantile(h *hdrhistogram.Histogram, q float64) int64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	if !(q > 0) { // q ≤ 0, or NaN: the minimum
		return h.ValueAtQuantile(0)
	}
	n := h.TotalCount()
	k := NearestRank(q, n)
	if k >= n {
		return h.ValueAtQuantile(100)
	}
	// ValueAtQuantile(p) takes the value at rank int64(p/100·n + 0.5); at
	// p = 100·k/n that is k + 0.5 up to a rounding error of ~k·10⁻¹⁵, far
	// from both k and k + 1 (for n < 10¹⁴), so it lands on rank k.
	return h.ValueAtQuantile(100 * float64(k) / float64(n))
}

// rankScale is the resolution at which NearestRank reads q: 10⁻⁹.
const rankScale = 1_000_000_000

// NearestRank is the rank k = ⌈q·n⌉ of the nearest-rank q-quantile of n
// values, clamped to [1, n] (0 when n ≤ 0): the quantile is the k-th
// smallest value. q is read to 9 decimal places and the product is exact
// integer arithmetic, so that q = 0.999 is 999/1000 and not the binary
// float just above it (⌈0.07·100⌉ is 7, not 8). q ≤ 0 or NaN gives 1, q ≥ 1
// gives n. n − NearestRank(q, n) is the number of values beyond the
// quantile (Beyond).
func NearestRank(q float64, n int64) int64 {
	switch {
	case n <= 0:
		return 0
	case !(q > 0): // q ≤ 0, or NaN
		return 1
	case q >= 1:
		return n
	}
	p := uint64(math.Round(q * rankScale)) // q in units of 10⁻⁹, ≤ 10⁹
	// p·n < 10⁹·2⁶³, so its high word is < 10⁹ and Div64 cannot overflow.
	hi, lo := bits.Mul64(p, uint64(n))
	k, rem := bits.Div64(hi, lo, rankScale)
	if rem != 0 {
		k++ // the ceiling
	}
	return min(max(int64(k), 1), n)
}

// Beyond is the number of the n values above the nearest-rank q-quantile's
// rank, n − ⌈q·n⌉ (⌊n·(1 − q)⌋): how many transactions a quantile rests on
// beyond it. p99.9 of 4,210 values has 4 beyond it; the maximum has none.
func Beyond(q float64, n int64) int64 {
	if n <= 0 {
		return 0
	}
	return n - NearestRank(q, n)
}

// Hists is what is recorded for one script (or all) over an interval: the
// pgbench sums of every transaction, and histograms (µs) of response, service
// and lag of committed transactions and of the lower bounds of those cut at
// the end of the window (see add).
type Hists struct {
	Stats                  Stats
	Response, Service, Lag *hdrhistogram.Histogram
}

// NewHists returns empty Hists with allocated histograms.
func NewHists() Hists {
	return Hists{Response: NewHistogram(), Service: NewHistogram(), Lag: NewHistogram()}
}

// add accounts one transaction: Stats always; the histograms when committed
// or unfinished (response, service and lag), or unstarted (response and lag,
// it had no service): the lower bounds of a transaction cut at the end of
// the window count in the percentiles, so that a stall at the end shows in
// the tail.
func (h *Hists) add(tx *Tx, limit int64) {
	h.Stats.Add(tx, limit)
	switch tx.Outcome {
	case Committed, Unfinished:
		RecordValue(h.Response, tx.Response)
		RecordValue(h.Service, tx.Service)
		RecordValue(h.Lag, tx.Lag)
	case Unstarted:
		RecordValue(h.Response, tx.Response)
		RecordValue(h.Lag, tx.Lag)
	}
}

// Merge adds o. A nil histogram of o is skipped; a nil histogram of h is
// allocated when o has one.
func (h *Hists) Merge(o *Hists) {
	h.Stats.Merge(&o.Stats)
	mergeHist(&h.Response, o.Response)
	mergeHist(&h.Service, o.Service)
	mergeHist(&h.Lag, o.Lag)
}

func mergeHist(dst **hdrhistogram.Histogram, src *hdrhistogram.Histogram) {
	if src == nil {
		return
	}
	if *dst == nil {
		*dst = NewHistogram()
	}
	// Nothing is dropped between histograms of the same geometry; a foreign
	// histogram (read from a file) with a wider range loses the values above
	// 1 h, as clamping would.
	(*dst).Merge(src)
}

// Interval is everything recorded between two ticks, or, merged, over a
// phase. Its owner may modify it; Tick never touches an Interval it returned
// unless the owner hands it back with Set.Recycle.
type Interval struct {
	Start, End time.Time
	Scripts    []Hists          // per script
	Total      Hists            // all scripts merged
	Commands   [][]CommandStats // [script][command]; nil when Layout.Commands is nil
	// Slow is, in an Interval from Tick, the Layout.Slowest slowest
	// transactions recorded in it (by response time; committed, failed and
	// cut ones), slowest first (see SlowTx for the order of ties); empty
	// when Layout.Slowest is 0. Merge does not combine it: a merged phase
	// keeps its own.
	Slow []SlowTx
	// Sessions are the client sessions at the interval's end and the most
	// connected during it (Sessions; zero when the engine did not count
	// them). A merged phase has its last interval's counts and the
	// highest ConnectedMax.
	Sessions SessionCounts
}

// NewInterval returns an empty Interval for the layout (zero times), for
// accumulating a phase with Merge.
func NewInterval(l Layout) *Interval {
	iv := &Interval{Scripts: make([]Hists, l.Scripts), Total: NewHists()}
	for i := range iv.Scripts {
		iv.Scripts[i] = NewHists()
	}
	iv.Commands = newCommandStats(l.Commands)
	return iv
}

// reset empties iv for reuse, keeping its histograms.
func (iv *Interval) reset(start, end time.Time) {
	iv.Start, iv.End = start, end
	for i := range iv.Scripts {
		iv.Scripts[i].reset()
	}
	iv.Total.reset()
	for _, cs := range iv.Commands {
		clear(cs)
	}
	iv.Slow = iv.Slow[:0]
	iv.Sessions = SessionCounts{}
}

// reset empties h, keeping its histograms.
func (h *Hists) reset() {
	h.Stats = Stats{}
	for _, x := range []*hdrhistogram.Histogram{h.Response, h.Service, h.Lag} {
		if x != nil {
			x.Reset()
		}
	}
}

func newCommandStats(commands []int) [][]CommandStats {
	if commands == nil {
		return nil
	}
	cs := make([][]CommandStats, len(commands))
	for i, n := range commands {
		cs[i] = make([]CommandStats, n)
	}
	return cs
}

// Merge adds o: Stats, histograms and command stats add up; Start becomes the
// earlier and End the later of the two (a zero time is ignored). Scripts or
// commands that o has and iv lacks are added.
func (iv *Interval) Merge(o *Interval) {
	if o == nil {
		return
	}
	iv.Sessions.merge(&o.Sessions, iv.End.IsZero() || !o.End.Before(iv.End))
	if !o.Start.IsZero() && (iv.Start.IsZero() || o.Start.Before(iv.Start)) {
		iv.Start = o.Start
	}
	if !o.End.IsZero() && (iv.End.IsZero() || o.End.After(iv.End)) {
		iv.End = o.End
	}
	for i := range o.Scripts {
		if i == len(iv.Scripts) {
			iv.Scripts = append(iv.Scripts, NewHists())
		}
		iv.Scripts[i].Merge(&o.Scripts[i])
	}
	iv.Total.Merge(&o.Total)
	for s := range o.Commands {
		if s == len(iv.Commands) {
			iv.Commands = append(iv.Commands, nil)
		}
		for c := range o.Commands[s] {
			if c == len(iv.Commands[s]) {
				iv.Commands[s] = append(iv.Commands[s], CommandStats{})
			}
			iv.Commands[s][c].Merge(&o.Commands[s][c])
		}
	}
}

// Duration is End − Start, or 0 when either is unset.
func (iv *Interval) Duration() time.Duration {
	if iv.Start.IsZero() || iv.End.IsZero() {
		return 0
	}
	return iv.End.Sub(iv.Start)
}
