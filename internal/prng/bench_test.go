package prng

import "testing"

var sinkI int64
var sinkU uint64
var sinkF float64

func BenchmarkNext(b *testing.B) {
	s := NewState(1)
	for b.Loop() {
		sinkU = s.Next()
	}
}

func BenchmarkDouble(b *testing.B) {
	s := NewState(1)
	for b.Loop() {
		sinkF = s.Double()
	}
}

func BenchmarkUniform(b *testing.B) {
	s := NewState(1)
	for b.Loop() {
		sinkI = s.Uniform(1, 100000)
	}
}

func BenchmarkExponential(b *testing.B) {
	s := NewState(1)
	for b.Loop() {
		sinkI = s.Exponential(1, 100000, 2.5)
	}
}

func BenchmarkGaussian(b *testing.B) {
	s := NewState(1)
	for b.Loop() {
		sinkI = s.Gaussian(1, 100000, 2.5)
	}
}

func BenchmarkZipfian(b *testing.B) {
	s := NewState(1)
	for b.Loop() {
		sinkI = s.Zipfian(1, 100000, 1.5)
	}
}

func BenchmarkPoisson(b *testing.B) {
	s := NewState(1)
	for b.Loop() {
		sinkI = s.Poisson(1000)
	}
}

func BenchmarkPermute(b *testing.B) {
	var i int64
	for b.Loop() {
		sinkI = Permute(i, 100000, 5432)
		i++
	}
}

func BenchmarkHashMurmur2(b *testing.B) {
	var i int64
	for b.Loop() {
		sinkI = HashMurmur2(i, 5432)
		i++
	}
}
