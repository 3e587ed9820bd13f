package prng

import "math/bits"

// Permute returns the image of val under a pseudorandom permutation of
// [0, size) selected by seed (pgbench's permute(), PostgreSQL 14+). It draws
// from its own stream NewState(uint64(seed)), never from a caller's. size < 2
// gives 0; the caller rejects size <= 0 ("permute size parameter must be
// greater than zero").
//
// val is reduced as uint64(val) mod size, so a negative val wraps as its two's
// complement, not as the mathematical modulo. With mask = 2^⌊log2 size⌋ − 1,
// each of 6 rounds applies to the lower part [0, mask] and to the mirrored
// upper part (size−1−v) an odd multiply, an XOR and a 1-bit rotation modulo
// mask+1, then adds a uniform offset modulo size.
func Permute(val, size, seed int64) int64 {
	if size < 2 {
		return 0
	}
	st := NewState(uint64(seed))
	usize := uint64(size)
	v := uint64(val) % usize
	masklen := uint(bits.Len64(usize) - 1) // ⌊log2 size⌋ >= 1
	mask := uint64(1)<<masklen - 1
	for range 6 {
		// Lower half: odd multiply, XOR, rotate left by 1 within masklen bits.
		m := (st.Next() & mask) | 1
		r := st.Next() & mask
		if v <= mask {
			v = ((v * m) ^ r) & mask
			v = ((v << 1) & mask) | (v >> (masklen - 1))
		}
		// Upper half, mirrored.
		m = (st.Next() & mask) | 1
		r = st.Next() & mask
		t := usize - 1 - v
		if t <= mask {
			t = ((t * m) ^ r) & mask
			t = ((t << 1) & mask) | (t >> (masklen - 1))
			v = usize - 1 - t
		}
		// Random offset; v + r < 2·size <= 2^64, no overflow.
		r = st.Uint64Range(0, usize-1)
		v = (v + r) % usize
	}
	return int64(v)
}

// FNV-1a and Murmur2 constants (pgbench.c).
const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8 // mm2Mul·8 mod 2^64: the key length term
	mm2Rot         = 47
)

// HashFNV1a is pgbench's hash_fnv1a(val, seed): 64-bit FNV-1a over the 8
// octets of val, low octet first, starting from offset_basis ⊕ seed. val is
// shifted arithmetically, as the C code shifts an int64.
func HashFNV1a(val, seed int64) int64 {
	h := uint64(fnvOffsetBasis) ^ uint64(seed)
	for range 8 {
		h ^= uint64(val & 0xff)
		h *= fnvPrime
		val >>= 8
	}
	return int64(h)
}

// HashMurmur2 is pgbench's hash_murmur2(val, seed) (also plain hash()):
// MurmurHash64A of the 8-byte value val, all arithmetic on uint64 mod 2^64.
func HashMurmur2(val, seed int64) int64 {
	h := uint64(seed) ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	h ^= k
	h *= mm2Mul
	h ^= h >> mm2Rot
	h *= mm2Mul
	h ^= h >> mm2Rot
	return int64(h)
}
