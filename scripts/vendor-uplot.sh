#!/usr/bin/env bash
# Vendors uPlot (MIT) into internal/report/assets/uplot/ for the HTML report's charts:
# fetches the npm package at the pinned version (npm pack, into a temporary directory),
# checks the tarball's sha512 against the pinned integrity (fails loudly otherwise), copies
# the minified IIFE build, its CSS and the licence, and writes VERSION (version, integrity
# and the sha256 of each copied file; a Go test checks the embedded files against it).
# Run it only to change the version; the vendored files are committed, so a build needs no npm.
set -euo pipefail

VERSION=1.6.32
INTEGRITY='sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw=='
FILES=(dist/uPlot.iife.min.js dist/uPlot.min.css LICENSE)

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/internal/report/assets/uplot"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v npm >/dev/null || { echo "vendor-uplot: npm is not installed" >&2; exit 1; }
(cd "$tmp" && npm pack --silent "uplot@$VERSION" >/dev/null)
tarball="$tmp/uplot-$VERSION.tgz"
[ -f "$tarball" ] || { echo "vendor-uplot: npm pack did not produce $tarball" >&2; exit 1; }

got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
	echo "vendor-uplot: CHECKSUM MISMATCH for uplot@$VERSION" >&2
	echo "  want $INTEGRITY" >&2
	echo "  got  $got" >&2
	exit 1
fi

tar -xzf "$tarball" -C "$tmp"
mkdir -p "$dest"
{
	echo "uplot $VERSION"
	echo "integrity $INTEGRITY"
	for f in "${FILES[@]}"; do
		src="$tmp/package/$f"
		[ -f "$src" ] || { echo "vendor-uplot: the package has no $f" >&2; exit 1; }
		base=$(basename "$f")
		cp "$src" "$dest/$base"
		echo "sha256 $(sha256sum "$dest/$base" | cut -d' ' -f1) $base"
	done
} >"$dest/VERSION"
echo "vendor-uplot: uplot $VERSION into $dest"
