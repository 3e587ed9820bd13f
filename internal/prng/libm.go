package prng

import (
	"math"

	"github.com/pgtrial/pgtrial/internal/prng/libm"
)

// The C library functions pgbench's distributions call. sqrt is correctly
// rounded in both C and Go; exp, log, pow and sin come from package libm,
// which rounds correctly like glibc (Go's math differs from glibc on 7–30%
// of these arguments, and its Pow by up to hundreds of ulp).
func cSqrt(x float64) float64   { return math.Sqrt(x) }
func cExp(x float64) float64    { return libm.Exp(x) }
func cLog(x float64) float64    { return libm.Log(x) }
func cPow(x, y float64) float64 { return libm.Pow(x, y) }
func cSin(x float64) float64    { return libm.Sin(x) }
