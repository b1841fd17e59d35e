#!/usr/bin/env bash
# slap's main job in one command: install what is missing, build, start a throwaway
# memcached on a free loopback port, run a short benchmark against it, stop the server.
# Extra arguments go to slap (default: -t 5s -S 1s -T 2 -c 32).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
"$top/scripts/build.sh" "$top/build" >/dev/null

pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; true; }
trap cleanup EXIT INT TERM

user=()
[ "$(id -u)" -eq 0 ] && user=(-u root)
for attempt in 1 2 3 4 5 6 7 8 9 10; do
    port=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue # taken
    memcached -l 127.0.0.1 -p "$port" -U 0 "${user[@]}" &
    pid=$!
    for _ in $(seq 50); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break 2
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    cleanup
    pid=""
done
[ -n "$pid" ] || { echo "demo: could not start memcached" >&2; exit 1; }

[ $# -gt 0 ] || set -- -t 5s -S 1s -T 2 -c 32
echo "demo: memcached pid $pid on 127.0.0.1:$port" >&2
"$top/build/slap" -s "127.0.0.1:$port" "$@"
