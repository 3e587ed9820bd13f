package metrics

import (
	"math/rand/v2"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestBucketIndexMatchesHistogram: bucketIndex and bucketValue are
// hdrhistogram-go's indexing of NewHistogram's geometry, so a Packed
// histogram added to a Histogram gives the counts of recording the values.
func TestBucketIndexMatchesHistogram(t *testing.T) {
	if n := len(NewHistogram().Export().Counts); n != numBuckets {
		t.Fatalf("NewHistogram has %d counts, numBuckets is %d", n, numBuckets)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	values := []int64{-5, 0, 1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 1_000_000, HistHighest - 1, HistHighest, HistHighest + 1, 1 << 62}
	for range 20000 {
		values = append(values, int64(rnd.ExpFloat64()*float64(int64(1)<<rnd.IntN(32))))
	}
	want := NewHistogram()
	var c BucketCounts
	for _, v := range values {
		RecordValue(want, v)
		c.Record(v)
		if i := bucketIndex(v); bucketIndex(bucketValue(i)) != i {
			t.Fatalf("bucketValue(bucketIndex(%d)) = %d is in bucket %d, not %d", v, bucketValue(i), bucketIndex(bucketValue(i)), i)
		}
	}
	if c.Count() != int64(len(values)) {
		t.Errorf("Count = %d", c.Count())
	}
	// Split in two halves packed apart, then merged through Add.
	p := c.Pack(nil)
	if c.Count() != 0 || c.used != [len(c.used)]uint64{} {
		t.Fatal("Pack did not empty")
	}
	var c2 BucketCounts
	if err := c2.Add(p); err != nil {
		t.Fatal(err)
	}
	if err := c2.Add(p); err != nil {
		t.Fatal(err)
	}
	got := NewHistogram()
	if err := c2.Pack(nil).AddTo(got); err != nil {
		t.Fatal(err)
	}
	want.Merge(want.Clone())
	if !got.Equals(want) {
		t.Errorf("packed histogram differs: %d vs %d values, p99 %d vs %d", got.TotalCount(), want.TotalCount(), Quantile(got, 0.99), Quantile(want, 0.99))
	}
	for _, bad := range []Packed{{0}, {0x80}, {1}, {0xff, 0xff, 0xff, 0xff, 0x0f, 1}} {
		if err := bad.AddTo(NewHistogram()); err == nil {
			t.Errorf("%x: no error", bad)
		}
	}
}

func BenchmarkBucketCountsRecord(b *testing.B) {
	var c BucketCounts
	for i := range b.N {
		c.Record(int64(i&0xffff) * 3)
	}
}

// TestEncodeV2MatchesLibrary: encodeV2 is the library's EncodeV2 and Max,
// byte for byte: empty, sparse, wide, at the top of the range, with counts
// beyond the varint form, and of another geometry.
func TestEncodeV2MatchesLibrary(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	var hs []*hdrhistogram.Histogram
	for k := range 8 {
		h := NewHistogram()
		for range k * k * 300 {
			RecordValue(h, int64(rnd.ExpFloat64()*float64(int64(1)<<rnd.IntN(30))))
		}
		hs = append(hs, h)
	}
	top := NewHistogram()
	RecordValue(top, HistHighest)
	RecordValue(top, 0)
	huge := NewHistogram()
	_ = huge.RecordValues(5000, 1<<57)
	hs = append(hs, top, huge, hdrhistogram.New(1, 1000, 2))
	for i, h := range hs {
		want, err := h.EncodeV2()
		if err != nil {
			t.Fatal(err)
		}
		got, maxV, err := encodeV2(h)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) || maxV != h.Max() {
			t.Errorf("histogram %d: max %d (library %d), payload equal %v", i, maxV, h.Max(), string(got) == string(want))
		}
	}
}
