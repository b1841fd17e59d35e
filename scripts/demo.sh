#!/usr/bin/env bash
# slap's main job in one command: install what is missing, build, start a throwaway
# memcached on a free loopback port, run a short benchmark against it, stop the server.
# Extra arguments go to slap (default: -t 5s -S 1s -T 2 -c 32).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
"$top/scripts/build.sh" "$top/build" >/dev/null
. "$top/scripts/memcached.sh"
trap memcached_stop EXIT
trap 'memcached_stop; trap - INT; kill -INT $$' INT
memcached_start

[ $# -gt 0 ] || set -- -t 5s -S 1s -T 2 -c 32
echo "demo: memcached pid $MC_PID on 127.0.0.1:$MC_PORT" >&2
"$top/build/slap" -s "127.0.0.1:$MC_PORT" "$@"
