package workload

import (
	"math"
	"testing"
)

// TestYCSBHotShare: with many draws per key the simulated statistic
// converges to the population's: uniform k/records, latest the generator's
// pmf of its top ranks; with sd √(p(1−p)/draws) of a binomial share, 5 sd
// plus the top-k selection bias as the tolerance. Zipfian (scrambled) lies between uniform and latest.
func TestYCSBHotShare(t *testing.T) {
	const records, draws, k = 1000, 4_000_000, 10
	check := func(name string, got, want float64) {
		t.Helper()
		// the k largest of counts of mean m = draws·p/k and sd √m lie
		// below m + 3√m: a relative bias under 3/√m.
		m := draws * want / k
		tol := 5*math.Sqrt(want*(1-want)/draws) + 3*want/math.Sqrt(m)
		if math.Abs(got-want) > tol {
			t.Errorf("%s: share %.5f, want %.5f ± %.5f", name, got, want, tol)
		}
	}
	u, err := YCSBHotShare(YCSBUniform, records, draws, k)
	if err != nil {
		t.Fatal(err)
	}
	check("uniform", u.Share, float64(k)/records)
	l, err := YCSBHotShare(YCSBLatest, records, draws, k)
	if err != nil {
		t.Fatal(err)
	}
	check("latest", l.Share, YCSBPopulationTopShare(records, k))
	z, err := YCSBHotShare(YCSBZipfian, records, draws, k)
	if err != nil {
		t.Fatal(err)
	}
	if !(z.Share > u.Share && z.Share <= l.Share*1.01) {
		t.Errorf("zipfian share %.4f not between uniform %.4f and latest %.4f", z.Share, u.Share, l.Share)
	}
	if _, err := YCSBHotShare("hotspot", records, draws, k); err == nil {
		t.Error("unknown distribution accepted")
	}
}
