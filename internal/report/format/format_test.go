package format

import (
	"math"
	"testing"
	"time"
)

func TestFormatters(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{Sig3(1234), "1234"},
		{Sig3(41.25), "41.2"},
		{Sig3(50), "50"},
		{Sig3(0.0123), "0.0123"},
		{Sig3(0), "0"},
		{Sig3(-2.5), "-2.5"},
		{Ms(41.25), "41.2"},
		{Ms(1.5), "1.50"},
		{Ms(0.512), "0.512"},
		{Ms(250), "250"},
		{MsFixed(41.25), "41.250"},
		{Rate(1234.56), "1234.6"},
		{Share(0.01234), "1.23 %"},
		{Pct(0.123), "12 %"},
		{Pct(0.0123), "1.2 %"},
		{Pct(0.00012), "0.01 %"},
		{Pct(0), "0 %"},
		{SignedPct(0.12), "+12 %"},
		{SignedPct(-0.031), "-3.1 %"},
		{Bytes(512), "512 B"},
		{Bytes(1536), "1.5 KiB"},
		{Bytes(256 << 20), "256 MiB"},
		{Bytes(1181116006), "1.1 GiB"},
		{Bytes(15 << 30), "15 GiB"},
		{Bytes(-2048), "-2 KiB"},
		{Bytes(math.MaxInt64), "8 EiB"},
		{Duration(850 * time.Microsecond), "850 µs"},
		{Duration(41250 * time.Microsecond), "41.2 ms"},
		{Duration(1250 * time.Millisecond), "1.25 s"},
		{Duration(29 * time.Second), "29 s"},
		{Duration(90 * time.Second), "90 s"},
		{Duration(10 * time.Minute), "10 min"},
		{Duration(12*time.Minute + 30*time.Second), "12 min 30 s"},
		{Duration(0), "0 s"},
		{Duration(-2 * time.Second), "-2 s"},
		{Seconds(1.5), "1.5 s"},
		{Seconds(math.NaN()), "?"},
		{Spread(nil, Rate), Missing},
		{Spread([]float64{3}, Rate), "3.0"},
		{Spread([]float64{3, 1, 2}, Rate), "2.0 (1.0–3.0)"},
		{OneLine("SELECT  a\n  FROM t", 80), "SELECT a FROM t"},
		{OneLine("abcdef", 4), "abc…"},
		{Plural(1, "run", "runs"), "run"},
		{Plural(2, "run", "runs"), "runs"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}
