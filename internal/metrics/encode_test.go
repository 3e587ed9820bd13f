package metrics

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkEncodeV2: one interval histogram of ~20,000 values.
func BenchmarkEncodeV2(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	h := NewHistogram()
	for range 20000 {
		RecordValue(h, 200+int64(rnd.ExpFloat64()*1500))
	}
	b.ResetTimer()
	for range b.N {
		if _, _, err := encodeV2(h); err != nil {
			b.Fatal(err)
		}
	}
}
