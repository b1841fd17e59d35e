#!/usr/bin/env bash
# Build the Debian package from this tree: scripts/deb.sh [OUTDIR] (default build-deb).
# Installs what the build needs (build-essential, which dpkg-checkbuilddeps asks for, debhelper,
# dpkg-dev and the -dev packages), builds in a copy of the tree's files (scripts/tree-files.sh:
# git's view, or without git every file but the build directories) so that the tree gets no
# debian/ build droppings, and leaves slap_VERSION_ARCH.deb in OUTDIR; then runs lintian on it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$top/build-deb}" && cd "${1:-$top/build-deb}" && pwd)
"$top/scripts/deps.sh" build-essential debhelper dpkg-dev fakeroot lintian >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/slap"
"$top/scripts/tree-files.sh" | (cd "$top" && xargs -0 cp --parents -t "$work/slap" --)
(cd "$work/slap" && dpkg-buildpackage -b -us -uc -j"$(nproc)" >"$work/build.log" 2>&1) ||
    { tail -40 "$work/build.log" >&2; exit 1; }
deb=$(ls "$work"/slap_*.deb)
cp "$deb" "$out/"
echo "$out/$(basename "$deb")"
lintian --fail-on error "$out/$(basename "$deb")" >&2
