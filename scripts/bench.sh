#!/usr/bin/env bash
# Side by side in one run: slap and memaslap (Debian's memcaslap) against the same
# throwaway memcached, alternating, with the same options. Prints each run's TPS and
# peak memory, then the ratios slap/memaslap of the medians. No timing is asserted.
# Usage: scripts/bench.sh [ROUNDS] [options for both, default: -t 5s -T 2 -c 64 -w 1k]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" libmemcached-tools time
"$top/scripts/build.sh" "$top/build" >/dev/null
. "$top/scripts/memcached.sh"
trap memcached_stop EXIT
memcached_start -t 2 -m 1024

rounds=${1:-3}
shift || true
[ $# -gt 0 ] || set -- -t 5s -T 2 -c 64 -w 1k

one() { # tool -> "tps maxrss_kb"
    local out
    out=$(/usr/bin/time -f "RSS %M" "$@" 2>&1 >/tmp/slap-bench.$$ || true)
    awk '/^Run time/{tps=$7} END{printf "%s ", tps}' /tmp/slap-bench.$$
    echo "$out" | awk '/^RSS/{print $2}'
}

declare -a slap_tps slap_rss ms_tps ms_rss
for r in $(seq "$rounds"); do
    read -r t m < <(one "$top/build/slap" -s "127.0.0.1:$MC_PORT" "$@")
    slap_tps+=("$t"); slap_rss+=("$m")
    read -r t m < <(one memcaslap -s "127.0.0.1:$MC_PORT" "$@")
    ms_tps+=("$t"); ms_rss+=("$m")
    echo "round $r: slap ${slap_tps[-1]} ops/s ${slap_rss[-1]} KB | memaslap ${ms_tps[-1]} ops/s ${ms_rss[-1]} KB"
done
rm -f /tmp/slap-bench.$$
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
st=$(median "${slap_tps[@]}"); mt=$(median "${ms_tps[@]}")
sr=$(median "${slap_rss[@]}"); mr=$(median "${ms_rss[@]}")
awk -v st="$st" -v mt="$mt" -v sr="$sr" -v mr="$mr" 'BEGIN{
    printf "median TPS: slap %d, memaslap %d, ratio %.2f\n", st, mt, st / mt
    printf "median peak RSS: slap %d KB, memaslap %d KB, ratio %.2f\n", sr, mr, sr / mr }'
