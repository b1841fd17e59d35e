#!/usr/bin/env bash
# slap against memaslap (Debian's memcaslap), a bare epoll client (scripts/floor_client.c: the
# floor of what a client can spend) and, when given its path, memtier_benchmark:
# client CPU per request, server-counted rate, server CPU per request and peak memory, for each
# workload, from rounds that alternate the tools' order, with memcached and the client pinned to
# different CPUs. See scripts/bench.py for what is measured and how.
# Usage: scripts/bench.sh [--rounds N] [--time S] [--workloads a,b,...] [--memtier PATH]
#                         [--before PATH] [--list]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" libmemcached-tools memcached strace util-linux >&2
"$top/scripts/build.sh" "$top/build" >/dev/null
# The floor: a bare epoll client, built here, never installed.
cc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wpedantic -o "$top/build/floor_client" "$top/scripts/floor_client.c"
exec python3 "$top/scripts/bench.py" "$@"
