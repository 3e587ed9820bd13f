//go:build ignore

// analyze-genlog.go writes a deterministic synthetic pgbench -l log, as
// pgbench -R -L --max-tries 1 writes it (7 columns: the schedule lag), one
// file per thread, for bench/analyze-vs-stats.sh:
//
//	go run bench/analyze-genlog.go DIR LINES THREADS
//
// Latencies: 200 µs + an exponential of mean 1.5 ms, 1 in 200 a stall of
// up to 3 s; 1 in 100 lines skipped, 1 in 1000 failed; 20,000 lines/s over
// all threads. The same arguments give the same files.
package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go run bench/analyze-genlog.go DIR LINES THREADS")
		os.Exit(1)
	}
	dir := os.Args[1]
	lines, err1 := strconv.Atoi(os.Args[2])
	threads, err2 := strconv.Atoi(os.Args[3])
	if err1 != nil || err2 != nil || lines < 1 || threads < 1 {
		fmt.Fprintln(os.Stderr, "LINES and THREADS are positive integers")
		os.Exit(1)
	}
	const perSec = 20000
	start := int64(1796345400_000000)
	for th := range threads {
		name := "pgbench_log.4242"
		if th > 0 {
			name += "." + strconv.Itoa(th)
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		rnd := rand.New(rand.NewPCG(uint64(th), 42))
		n := lines / threads
		if th < lines%threads {
			n++
		}
		gap := float64(threads) * 1e6 / perSec // µs between this thread's lines
		at := float64(start)
		var b []byte
		for i := range n {
			at += rnd.ExpFloat64() * gap
			client := th + threads*(i%4) // 4 clients a thread
			b = strconv.AppendInt(b[:0], int64(client), 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(i/4+1), 10)
			b = append(b, ' ')
			var lag int64
			switch r := rnd.IntN(1000); {
			case r < 10:
				b = append(b, "skipped"...)
			case r < 11:
				b = append(b, "failed"...)
			default:
				lat := 200 + int64(rnd.ExpFloat64()*1500)
				if rnd.IntN(200) == 0 {
					lat += int64(rnd.Float64() * 3e6)
				}
				lag = int64(rnd.ExpFloat64() * 80)
				lat += lag
				b = strconv.AppendInt(b, lat, 10)
			}
			us := int64(at)
			b = append(b, " 0 "...)
			b = strconv.AppendInt(b, us/1000000, 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, us%1000000, 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, lag, 10)
			b = append(b, '\n')
			w.Write(b)
		}
		if err := w.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		f.Close()
	}
}
