package prng

import (
	"math"
	"testing"
)

// TestGoldenTAP checks the vectors of pgbench.md §9.7: PostgreSQL's TAP test
// 001_pgbench_with_server.pl (expression script) run with --random-seed=5432,
// one client, one thread.
func TestGoldenTAP(t *testing.T) {
	st := Derive(5432, 1, 1, false)
	if st.DefaultSeed != 7590783070443337668 {
		t.Errorf("default_seed = %d, want 7590783070443337668", st.DefaultSeed)
	}
	if st.RandomSeed != 5432 {
		t.Errorf("random_seed = %d, want 5432", st.RandomSeed)
	}
	c := st.Clients[0]
	// The script draws in this order from client 0's stream.
	if got := c.Uniform(10, 19); got != 17 {
		t.Errorf("random(10, 19) = %d, want 17", got)
	}
	if got := c.Exponential(100, 199, 10.0); got != 104 {
		t.Errorf("random_exponential(100, 199, 10.0) = %d, want 104", got)
	}
	if got := c.Gaussian(1000, 1999, 10.0); got != 1498 {
		t.Errorf("random_gaussian(1000, 1999, 10.0) = %d, want 1498", got)
	}
	if got := c.Zipfian(1, 9, 1.3); got != 3 {
		t.Errorf("random_zipfian(1, 9, 1.3) = %d, want 3", got)
	}

	hashes := []struct {
		name      string
		f         func(int64, int64) int64
		val, seed int64
		want      int64
	}{
		{"hash_murmur2", HashMurmur2, 10, 5432, -5817877081768721676},
		{"hash_fnv1a", HashFNV1a, 10, 5432, -7793829335365542153},
		{"hash (default_seed)", HashMurmur2, 10, st.DefaultSeed, 4313776982099445391},
	}
	for _, h := range hashes {
		if got := h.f(h.val, h.seed); got != h.want {
			t.Errorf("%s(%d, %d) = %d, want %d", h.name, h.val, h.seed, got, h.want)
		}
	}

	perms := []struct{ val, size, seed, want int64 }{
		{0, 2, 5431, 0}, {1, 2, 5431, 1},
		{0, 2, 5433, 1}, {1, 2, 5433, 0},
	}
	size := int64(math.MaxInt64 - 10)
	for k, want := range []int64{
		520382784483822430, 1143715004660802862, 447293596416496998, 916527772266572956,
		2763809008686028849, 8648551549198294572, 4542876852200565125,
	} {
		perms = append(perms, struct{ val, size, seed, want int64 }{size - int64(k+1), size, 5432, want})
	}
	for _, p := range perms {
		if got := Permute(p.val, p.size, p.seed); got != p.want {
			t.Errorf("permute(%d, %d, %d) = %d, want %d", p.val, p.size, p.seed, got, p.want)
		}
	}
}
