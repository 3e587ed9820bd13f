package loader

import (
	"math/bits"
	"strconv"
	"strings"
)

// PostgreSQL's hash partitioning, computed in the client so that each hash partition of
// pgbench_accounts can be loaded on its own connection with COPY FREEZE (a COPY into
// the parent cannot FREEZE; a COPY into a partition must send only the rows the
// partition's constraint admits, or the server refuses them).
//
// A row with partition key aid goes to the partition whose remainder is
// rowHash(aid) mod modulus (partbounds.c, compute_partition_hash_value), where
//
//	rowHash(aid) = hash_combine64(0, hashint8extended(aid, HASH_PARTITION_SEED))
//	hash_combine64(a, b) = a ^ (b + 0x49a0f4dd15e5a8e3 + (a << 54) + (a >> 7))
//
// and hashint8extended folds the high half into the low one and calls
// hash_uint32_extended, Bob Jenkins' lookup3 with a 64-bit seed (hashfn.c). For an
// int4 key hashint4extended gives the same value (hihalf is 0 for aid ≥ 0), so one
// function serves both widths of aid.

// hashPartitionSeed is HASH_PARTITION_SEED (catalog/partition.h).
const hashPartitionSeed uint64 = 0x7A5B22367996DCFD

// The lookup3 state after the seed is mixed in: a, b, c = 0x9e3779b9 + 4 + 3923095,
// a += seed >> 32, b += uint32(seed), mix(a, b, c). The seed is a constant, so this
// state is too.
var seedA, seedB, seedC = seededState()

func seededState() (a, b, c uint32) {
	a = 0x9e3779b9 + 4 + 3923095
	b, c = a, a
	seed := hashPartitionSeed
	a += uint32(seed >> 32)
	b += uint32(seed)
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

// partitionHash is rowHash for a one-column int4 or int8 partition key (~3 ns).
func partitionHash(key int64) uint64 {
	lo, hi := uint32(key), uint32(key>>32)
	if key >= 0 {
		lo ^= hi
	} else {
		lo ^= ^hi
	}
	a, b, c := seedA+lo, seedB, seedC
	// final(a, b, c)
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	h := uint64(b)<<32 | uint64(c)
	return h + 0x49a0f4dd15e5a8e3 // hash_combine64(0, h)
}

// hashBound is one hash partition's bound: it holds the keys k with
// partitionHash(k) mod modulus = remainder.
type hashBound struct {
	modulus, remainder uint64
}

func (h hashBound) holds(key int64) bool { return partitionHash(key)%h.modulus == h.remainder }

// parseHashBound reads "FOR VALUES WITH (modulus 4, remainder 1)" as pg_get_expr prints
// a hash partition's bound.
func parseHashBound(s string) (hashBound, bool) {
	rest, ok := strings.CutPrefix(s, "FOR VALUES WITH (modulus ")
	if !ok {
		return hashBound{}, false
	}
	m, rest, ok := strings.Cut(rest, ", remainder ")
	if !ok {
		return hashBound{}, false
	}
	r, ok := strings.CutSuffix(rest, ")")
	if !ok {
		return hashBound{}, false
	}
	mod, err1 := strconv.ParseUint(m, 10, 64)
	rem, err2 := strconv.ParseUint(r, 10, 64)
	if err1 != nil || err2 != nil || mod == 0 || rem >= mod {
		return hashBound{}, false
	}
	return hashBound{modulus: mod, remainder: rem}, true
}

// maxFrozenHashPartitions bounds the client-side routing: every partition's stream
// hashes every key and keeps 1/N of them, so the client spends N × ~3 ns per row sent
// (N = 64: ~0.2 µs, against the server's ~0.7 µs to store a row). Past it the rows go
// through the parent, unfrozen, and step v vacuums them.
const maxFrozenHashPartitions = 64
