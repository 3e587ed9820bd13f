package loader

import "testing"

// The server's hashint8extended(v, HASH_PARTITION_SEED) for these keys (PostgreSQL 15:
// select v, hashint8extended(v, 8816678312871386365)); hashint4extended gives the same
// for the keys that fit an int4.
func TestPartitionHashMatchesServer(t *testing.T) {
	for _, c := range []struct {
		key  int64
		hash int64
	}{
		{1, 5968994663651403477},
		{2, -6784076462669891433},
		{100000, -4261177139570981594},
		{2000000, -9052001775584171681},
		{2147483647, -6050265599104649060},
		{4294967296, 5968994663651403477}, // high half folded into the low: as key 1
		{-5, 5466844944386338076},
	} {
		if got := partitionHash(c.key) - 0x49a0f4dd15e5a8e3; got != uint64(c.hash) {
			t.Errorf("hash of %d = %d, want the server's %d", c.key, int64(got), c.hash)
		}
	}
}

func TestParseHashBound(t *testing.T) {
	for _, c := range []struct {
		in   string
		want hashBound
		ok   bool
	}{
		{"FOR VALUES WITH (modulus 4, remainder 1)", hashBound{4, 1}, true},
		{"FOR VALUES WITH (modulus 1, remainder 0)", hashBound{1, 0}, true},
		{"FOR VALUES WITH (modulus 4, remainder 4)", hashBound{}, false},
		{"FOR VALUES WITH (modulus 0, remainder 0)", hashBound{}, false},
		{"FOR VALUES FROM (MINVALUE) TO ('5')", hashBound{}, false},
		{"DEFAULT", hashBound{}, false},
	} {
		got, ok := parseHashBound(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseHashBound(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// The runs a hash partition's reader sends cover exactly the keys it holds, once each.
func TestHashReaderRuns(t *testing.T) {
	const n = 10000
	seen := make([]int, n)
	for rem := uint64(0); rem < 3; rem++ {
		b := hashBound{3, rem}
		r := &rowReader{ranges: []keyRange{{0, n / 2}, {n / 2, n}}, bound: &b}
		for {
			kr, ok := r.nextRange()
			if !ok {
				break
			}
			for k := kr.first; k < kr.end; k++ {
				if !b.holds(k + 1) {
					t.Fatalf("remainder %d sent key %d it does not hold", rem, k)
				}
				seen[k]++
			}
		}
	}
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("key %d sent %d times, want once", k, c)
		}
	}
}

func BenchmarkPartitionHash(b *testing.B) {
	var s uint64
	for i := 0; b.Loop(); i++ {
		s += partitionHash(int64(i))
	}
	_ = s
}
