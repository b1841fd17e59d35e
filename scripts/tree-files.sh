#!/usr/bin/env bash
# The tree's own files, NUL-separated, relative to its top (what the package is built from and
# what its cache key hashes): git's view (tracked and new, nothing ignored) in a git checkout;
# in a tree without .git (a release tarball, `git archive`) or on a machine without git, every
# file but the build directories and what .gitignore names.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [[ -e .git ]] && command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1; then
    exec git ls-files -z -co --exclude-standard
fi
find . \( -path './build*' -o -path ./compile_commands.json -o -name .git -o -name '*.o' \
    -o -name __pycache__ \) -prune -o \( -type f -o -type l \) -printf '%P\0'
