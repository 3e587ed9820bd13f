#!/usr/bin/env bash
# Regenerates glibc_vectors.txt: what this machine's C library (glibc) answers
# for exp, log, pow and sin over the argument sets of glibc_test.go, reduced
# to a hash plus the arguments where package libm differs from glibc; python3
# with mpmath then confirms that at each of those glibc, not libm, is off the
# correctly rounded value.
#
# Usage (from anywhere): bash internal/prng/libm/testdata/gen_glibc_vectors.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/libm-gen.XXXXXX)
trap 'rm -rf "$work"' EXIT
gcc -O2 -ffp-contract=off -o "$work/glibc_libm" "$here/glibc_libm.c" -lm
(cd "$here/.." && go test -count=1 -run 'TestGlibcVectors$' . -args -glibc="$work/glibc_libm" \
	-glibc-version="$(ldd --version | head -1)")
python3 - "$here/glibc_vectors.txt" <<'PY'
import struct, sys
import mpmath
from mpmath import mp, mpf
mp.prec = 600
def d(h): return struct.unpack('<d', struct.pack('<Q', int(h, 16)))[0]
n = 0
for line in open(sys.argv[1]):
    f = line.split()
    if not f or f[0] != 'diff':
        continue
    _, fn, _, x, y, glibc, mine = f
    x, y, glibc, mine = d(x), d(y), d(glibc), d(mine)
    v = {'exp': lambda: mpmath.exp(mpf(x)), 'log': lambda: mpmath.log(mpf(x)),
         'sin': lambda: mpmath.sin(mpf(x)), 'pow': lambda: mpmath.power(mpf(x), mpf(y))}[fn]()
    cr = float(v)  # mpmath rounds to nearest
    if cr != mine:
        sys.exit(f"libm is not correctly rounded: {line.strip()} (mpmath: {cr!r})")
    n += 1
print(f"mpmath confirms libm's value at all {n} differences from glibc")
PY
