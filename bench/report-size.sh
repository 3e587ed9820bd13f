#!/usr/bin/env bash
# report-size.sh: the run report's size and time for one hour at 1 s intervals with 5
# scripts (issue 16: report.html at most 3 MB, made in at most 3 s). Runs
# BenchmarkRunReportHour (internal/report), which writes a synthetic run directory once
# (internal/results/resultstest, outside the timer) and times RunReport + WriteFiles.
#
# Usage: bench/report-size.sh [-n TIMES]
#   -n TIMES   benchmark iterations (-benchtime TIMESx), default 3
#
# Prints "report.html: X MB, made in Y s (limit 3 MB, 3 s)" and exits 1 over a limit.
set -euo pipefail

times=3
while getopts "n:" opt; do
	case $opt in
	n) times=$OPTARG ;;
	*) sed -n '2,10p' "$0"; exit 1 ;;
	esac
done
[[ $times =~ ^[1-9][0-9]*$ ]] || { echo "not a positive integer: $times" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$root" && go test -run '^$' -bench BenchmarkRunReportHour -benchtime "${times}x" -timeout 30m ./internal/report) | tee "$tmp/out"
# BenchmarkRunReportHour-2   3   4123456789 ns/op   1234567 html-bytes
line=$(grep '^BenchmarkRunReportHour' "$tmp/out" | tail -1)
[ -n "$line" ] || { echo "no benchmark result" >&2; exit 1; }
ns=$(awk '{for (i = 1; i < NF; i++) if ($(i+1) == "ns/op") print $i}' <<<"$line")
bytes=$(awk '{for (i = 1; i < NF; i++) if ($(i+1) == "html-bytes") print $i}' <<<"$line")
[ -n "$ns" ] && [ -n "$bytes" ] || { echo "cannot read the benchmark's line: $line" >&2; exit 1; }
awk -v ns="$ns" -v b="$bytes" 'BEGIN {
	mb = b / 1048576; s = ns / 1e9
	printf "report.html: %.2f MB, made in %.2f s (limit 3 MB, 3 s)\n", mb, s
	if (mb > 3 || s > 3) { print "over the limit" > "/dev/stderr"; exit 1 }
}'
