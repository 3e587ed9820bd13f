package libm

import (
	"math"
	"testing"
)

var sink float64

// Arguments as pgbench's distributions pass them.
func args(n int) []float64 {
	g := &splitmix{x: 1}
	a := make([]float64, n)
	for i := range a {
		a[i] = g.u52()
	}
	return a
}

func BenchmarkLog(b *testing.B) {
	a := args(1024)
	i := 0
	for b.Loop() {
		sink = Log(a[i&1023])
		i++
	}
}

func BenchmarkGoLog(b *testing.B) {
	a := args(1024)
	i := 0
	for b.Loop() {
		sink = math.Log(a[i&1023])
		i++
	}
}

func BenchmarkExp(b *testing.B) {
	a := args(1024)
	i := 0
	for b.Loop() {
		sink = Exp(-20 * a[i&1023])
		i++
	}
}

func BenchmarkSin(b *testing.B) {
	a := args(1024)
	i := 0
	for b.Loop() {
		sink = Sin(2 * math.Pi * a[i&1023])
		i++
	}
}

func BenchmarkPow(b *testing.B) {
	a := args(1024)
	i := 0
	for b.Loop() {
		sink = Pow(a[i&1023], -2)
		i++
	}
}

func BenchmarkPowZipf1001(b *testing.B) {
	a := args(1024)
	i := 0
	for b.Loop() {
		sink = Pow(a[i&1023], -1/(1.001-1))
		i++
	}
}
