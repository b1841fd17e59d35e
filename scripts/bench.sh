#!/usr/bin/env bash
# slap against memaslap (Debian's memcaslap) and, when given its path, memtier_benchmark:
# client CPU per request, server-counted rate, server CPU per request and peak memory, for each
# workload, from rounds that alternate the tools' order, with memcached and the client pinned to
# different CPUs. See scripts/bench.py for what is measured and how.
# Usage: scripts/bench.sh [--rounds N] [--time S] [--workloads a,b,...] [--memtier PATH] [--list]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" libmemcached-tools memcached strace util-linux >&2
"$top/scripts/build.sh" "$top/build" >/dev/null
exec python3 "$top/scripts/bench.py" "$@"
