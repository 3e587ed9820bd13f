package workload

import (
	"fmt"
	"slices"

	"github.com/pgtrial/pgtrial/internal/prng"
)

// YCSB request distributions (the mixes' -D latest=1 / uniform=1 /
// scrambled=0; none: zipfian).
const (
	YCSBZipfian     = "zipfian"             // scrambled: θ = 0.99 over 10^10 items, FNV-1a-hashed onto the keys
	YCSBUnscrambled = "unscrambled zipfian" // θ = 0.99 over the keys 0..records−1, key 0 hottest
	YCSBUniform     = "uniform"
	YCSBLatest      = "latest" // newest keys hottest: the sequence's newest − zipfian(θ = 0.99 over 0..maxkey)
)

// YCSB's generator constants (ScrambledZipfianGenerator).
const (
	YCSBTheta     = 0.99
	YCSBItemSpace = 10_000_000_000
)

// ycsbSimMaxDraws and ycsbSimMaxRecords bound the expectation's simulation
// (≈ 0.1 µs and 4 bytes per draw and record).
const (
	ycsbSimMaxDraws   = 4_000_000
	ycsbSimMaxRecords = 20_000_000
)

// YCSBHotExpectation is what the share of operations on the hottest keys
// should be.
type YCSBHotExpectation struct {
	Share float64 // expected sum of the top Keys counts / draws
	Draws int64   // draws simulated (the run's, at most ycsbSimMaxDraws)
}

// YCSBHotShare returns the expected share of draws on the hottest k of
// records keys after draws draws of distribution dist, the same statistic
// a run's `\tally key` gives: the top-k counts of a finite sample, which
// exceed the population's top-k probabilities when draws is not much more
// than records (the sample's hottest keys are partly the lucky ones). So
// it is computed by simulation of the scripts' own generator (prng.GrayZipf,
// the FNV-1a scramble or none, the uniform) with the run's number of draws, seeded,
// rather than from the pmf: exact for the statistic up to the simulation's
// own noise, of the order of the run's. Latest is simulated here with the
// key space fixed at records (a run without inserts); YCSBLatestHotShare
// moves it with the run's inserts.
func YCSBHotShare(dist string, records, draws, k int64) (YCSBHotExpectation, error) {
	switch {
	case records < 1 || draws < 1 || k < 1:
		return YCSBHotExpectation{}, fmt.Errorf("YCSB expectation: records %d, draws %d, keys %d must be positive", records, draws, k)
	case records > ycsbSimMaxRecords:
		return YCSBHotExpectation{}, fmt.Errorf("YCSB expectation: %d records exceed the simulation's %d", records, ycsbSimMaxRecords)
	}
	n := min(draws, ycsbSimMaxDraws)
	counts := make([]int32, records)
	s := prng.NewState(0x5ca1ab1e)
	switch dist {
	case YCSBUniform:
		for range n {
			counts[s.Uniform(0, records-1)]++
		}
	case YCSBUnscrambled:
		g := prng.NewGrayZipf(records, YCSBTheta)
		for range n {
			counts[g.Draw(&s)]++
		}
	case YCSBLatest:
		g := prng.NewGrayZipf(records, YCSBTheta)
		for range n {
			counts[records-1-g.Draw(&s)]++
		}
	case YCSBZipfian:
		g := prng.NewGrayZipf(YCSBItemSpace, YCSBTheta)
		for range n {
			h := prng.HashFNV1a(g.Draw(&s), 0x1234)
			if h < 0 {
				h = -h
			}
			counts[h%records]++
		}
	default:
		return YCSBHotExpectation{}, fmt.Errorf("unknown YCSB distribution %q: %s, %s, %s or %s", dist, YCSBZipfian, YCSBUnscrambled, YCSBUniform, YCSBLatest)
	}
	slices.SortFunc(counts, func(a, b int32) int { return int(b - a) })
	var top int64
	for _, c := range counts[:min(k, records)] {
		top += int64(c)
	}
	return YCSBHotExpectation{Share: float64(top) / float64(n), Draws: n}, nil
}

// YCSBPopulationTopShare is the population's share of the hottest k ranks
// of a plain (unscrambled) zipfian over records ranks, from the
// generator's pmf: the limit of YCSBHotShare(latest) as draws grow.
func YCSBPopulationTopShare(records, k int64) float64 {
	g := prng.NewGrayZipf(records, YCSBTheta)
	var p float64
	for r := range min(k, records) {
		p += g.Pmf(r)
	}
	return p
}

// YCSBLatestHotShare is YCSBHotShare for latest with the run's inserts:
// the scripts' process, one key sequence for all clients, simulated from
// keys 0..space−1 at the start (the probe's maxkey + 1). Each
// operation inserts with probability insertShare (the newest key moves up
// by one) or draws key = newest − offset, offset of the plain zipfian
// (θ = 0.99) over 0..maxkey, and counts it; draws counted operations are
// simulated (at most ycsbSimMaxDraws). The offset's range follows the
// newest key in steps of 1 % (the clients' maxkey lags by their last
// insert anyway; a 1 % longer range changes ζ(n, 0.99) by about
// 0.01·n^0.01, under 0.2 % of it for n ≤ 2·10^7), so ζ is recomputed about
// 100·ln(growth) times, each at most 10^4 terms. What it leaves out: a read
// of a key whose insert has not committed yet still counts the key (as the
// script's \tally does), and failed inserts leave gaps.
func YCSBLatestHotShare(space, draws, k int64, insertShare float64) (YCSBHotExpectation, error) {
	switch {
	case space < 1 || draws < 1 || k < 1:
		return YCSBHotExpectation{}, fmt.Errorf("YCSB expectation: keys %d, draws %d, hottest %d must be positive", space, draws, k)
	case space > ycsbSimMaxRecords:
		return YCSBHotExpectation{}, fmt.Errorf("YCSB expectation: %d keys exceed the simulation's %d", space, ycsbSimMaxRecords)
	case !(insertShare >= 0 && insertShare <= 0.5):
		return YCSBHotExpectation{}, fmt.Errorf("YCSB expectation: insert share %g outside 0..0.5", insertShare)
	}
	n := min(draws, ycsbSimMaxDraws)
	// inserts ≈ n·p/(1−p); the slice grows if the draw of them exceeds it.
	counts := make([]int32, space, space+int64(float64(n)*insertShare/(1-insertShare)*1.1)+64)
	s := prng.NewState(0x1a7e57)
	newest := space - 1 // the newest key; the offset's range is 0..space−1
	g := prng.NewGrayZipf(space, YCSBTheta)
	for done := int64(0); done < n; {
		if insertShare > 0 && s.Double() < insertShare {
			newest++
			counts = append(counts, 0)
			if newest+1-space >= max(space/100, 1) {
				space = newest + 1
				g = prng.NewGrayZipf(space, YCSBTheta)
			}
			continue
		}
		counts[newest-g.Draw(&s)]++
		done++
	}
	slices.SortFunc(counts, func(a, b int32) int { return int(b - a) })
	var top int64
	for _, c := range counts[:min(k, int64(len(counts)))] {
		top += int64(c)
	}
	return YCSBHotExpectation{Share: float64(top) / float64(n), Draws: n}, nil
}
