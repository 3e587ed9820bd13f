package metrics

import (
	"encoding/binary"
	"errors"
	"math/bits"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The bucket geometry of NewHistogram (hdrhistogram-go's for lowest 1,
// highest 1 h, 3 digits): unit magnitude 0, 2048 sub-buckets of which the
// upper 1024 are new in each bucket, 22 buckets, 23 × 1024 counts.
const (
	subBucketHalfMagnitude = 10
	subBucketHalf          = 1 << subBucketHalfMagnitude // 1024
	subBucketMask          = 2*subBucketHalf - 1         // 2047
	numBuckets             = 23 * subBucketHalf          // the counts of a NewHistogram
)

// bucketIndex is the index of v's count in a NewHistogram (hdrhistogram-go's
// countsIndexFor), v clamped into [0, HistHighest]: with b =
// ⌈log2(v | 2047 + 1)⌉ − 11 the bucket and s = v >> b the sub-bucket,
// (b + 1)·1024 + s − 1024.
func bucketIndex(v int64) int32 {
	v = clamp(v)
	b := int32(64-bits.LeadingZeros64(uint64(v)|subBucketMask)) - (subBucketHalfMagnitude + 1)
	s := int32(v >> uint(b))
	return (b+1)<<subBucketHalfMagnitude + s - subBucketHalf
}

// bucketValue is the lowest value of the bucket at index idx (the inverse
// of bucketIndex: bucketIndex(bucketValue(i)) == i).
func bucketValue(idx int32) int64 {
	b := idx>>subBucketHalfMagnitude - 1
	s := idx&(subBucketHalf-1) + subBucketHalf
	if b < 0 {
		s -= subBucketHalf
		b = 0
	}
	return int64(s) << uint(b)
}

// BucketCounts counts values (µs) in the buckets of NewHistogram without a
// Histogram, for keeping many histograms compactly (pgtrial analyze: one per
// second of a log): Record is a histogram's RecordValue, and Pack turns the
// counts into a Packed histogram of a few bytes per bucket used, in time
// proportional to the buckets used (not the geometry's 23,552), and empties
// the BucketCounts for reuse. Its zero value is ready to use (the counts,
// 184 KB, are allocated by the first Record).
type BucketCounts struct {
	counts []int64
	// used has a bit for every block of 64 counts with one not 0, so that
	// Pack scans only those.
	used [(numBuckets + 4095) / 4096]uint64
	n    int64
}

// Record counts one value, clamped as RecordValue clamps it.
func (c *BucketCounts) Record(v int64) {
	if c.counts == nil {
		c.counts = make([]int64, numBuckets)
	}
	i := bucketIndex(v)
	c.counts[i]++
	c.used[i>>12] |= 1 << (uint(i>>6) & 63)
	c.n++
}

// Count is the number of values counted since the last Pack.
func (c *BucketCounts) Count() int64 { return c.n }

// Packed is a histogram of NewHistogram's geometry as bytes: for each bucket
// used, in increasing order, the uvarint of its index's distance from the
// previous one's (from −1 for the first) and the uvarint of its count.
type Packed []byte

// Add adds the counts of p (from Pack) to c.
func (c *BucketCounts) Add(p Packed) error {
	if len(p) > 0 && c.counts == nil {
		c.counts = make([]int64, numBuckets)
	}
	return p.each(func(i int32, n int64) {
		c.counts[i] += n
		c.used[i>>12] |= 1 << (uint(i>>6) & 63)
		c.n += n
	})
}

// next2 decodes one bucket of p: the index distance (1 … numBuckets) and
// the count (< 2⁶²), a one-byte fast path for each.
func next2(p Packed) (d, n uint64, rest Packed, ok bool) {
	var k int
	if len(p) > 0 && p[0] < 0x80 {
		d, k = uint64(p[0]), 1
	} else {
		d, k = binary.Uvarint(p)
	}
	if k <= 0 || d == 0 || d > numBuckets {
		return 0, 0, nil, false
	}
	p = p[k:]
	if len(p) > 0 && p[0] < 0x80 {
		n, k = uint64(p[0]), 1
	} else {
		n, k = binary.Uvarint(p)
	}
	if k <= 0 || n > 1<<62 {
		return 0, 0, nil, false
	}
	return d, n, p[k:], true
}

// Pack appends c's counts to dst as a Packed histogram, returns it, and
// empties c.
func (c *BucketCounts) Pack(dst Packed) Packed {
	prev := int32(-1)
	for w, bitsw := range c.used {
		for bitsw != 0 {
			b := bits.TrailingZeros64(bitsw)
			bitsw &= bitsw - 1
			lo := int32(w)<<12 | int32(b)<<6
			for i := lo; i < lo+64 && i < numBuckets; i++ {
				if n := c.counts[i]; n != 0 {
					dst = binary.AppendUvarint(dst, uint64(i-prev))
					dst = binary.AppendUvarint(dst, uint64(n))
					c.counts[i] = 0
					prev = i
				}
			}
		}
	}
	c.used = [len(c.used)]uint64{}
	c.n = 0
	return dst
}

var errBadPacked = errors.New("metrics: malformed packed histogram")

// each calls f for every bucket of p, in order.
func (p Packed) each(f func(i int32, n int64)) error {
	i := int64(-1)
	for len(p) > 0 {
		d, n, rest, ok := next2(p)
		if !ok {
			return errBadPacked
		}
		p = rest
		i += int64(d)
		if i >= numBuckets {
			return errBadPacked
		}
		f(int32(i), int64(n))
	}
	return nil
}

// AddTo adds the counts of p to h, a histogram of NewHistogram's geometry:
// the same counts as recording the values one by one.
func (p Packed) AddTo(h *hdrhistogram.Histogram) error {
	var err error
	perr := p.each(func(i int32, n int64) {
		if e := h.RecordValues(bucketValue(i), n); e != nil && err == nil {
			err = e
		}
	})
	if perr != nil {
		return perr
	}
	return err
}
