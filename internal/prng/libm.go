package prng

import "math"

// The C library functions pgbench's distributions call. sqrt is correctly
// rounded everywhere; exp, log, pow and sin are placeholders for
// glibc-compatible versions.
func cSqrt(x float64) float64   { return math.Sqrt(x) }
func cExp(x float64) float64    { return math.Exp(x) }
func cLog(x float64) float64    { return math.Log(x) }
func cPow(x, y float64) float64 { return math.Pow(x, y) }
func cSin(x float64) float64    { return math.Sin(x) }
