#!/usr/bin/env bash
# Soak: slap against a throwaway memcached for a long time at a moderate rate, printing its
# resident memory and open descriptors every interval; both must stay flat (descriptors from the
# first interval, memory from half the run: the intervals' segments fill before). Not a test (the
# suite runs a 60-second version, integration_release_soak_60s).
# Usage: scripts/soak.sh [DURATION_S, default 3600] [INTERVAL_S, default 60] [slap options...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
duration=${1:-3600}
interval=${2:-60}
shift 2 || shift $# || true
[ $# -gt 0 ] || set -- -c 64 -T 2 -P 20k -R -v 0.1 -d 2
"$top/scripts/deps.sh"
"$top/scripts/build.sh" "$top/build" >/dev/null
. "$top/scripts/memcached.sh"
slap_pid="" logdir=""
cleanup() {
    [ -n "$slap_pid" ] && kill "$slap_pid" 2>/dev/null && wait "$slap_pid" 2>/dev/null
    [ -n "$logdir" ] && rm -rf "$logdir"
    memcached_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM
memcached_start -t 2 -m 1024
logdir=$(mktemp -d "${TMPDIR:-/tmp}/slap-soak.XXXXXX") # private: not a name in /tmp itself

"$top/build/slap" -s "127.0.0.1:$MC_PORT" -t "${duration}s" "$@" >"$logdir/slap.out" 2>&1 &
slap_pid=$!
echo "soak: slap pid $slap_pid, memcached pid $MC_PID on 127.0.0.1:$MC_PORT, ${duration}s"
printf '%8s %12s %6s\n' "elapsed" "rss(KiB)" "fds"
first_rss="" first_fds=""
worst_rss=0 worst_fds=0
for ((t = interval; t <= duration; t += interval)); do
    sleep "$interval"
    kill -0 "$slap_pid" 2>/dev/null || break
    rss=$(awk '/^VmRSS:/{print $2}' "/proc/$slap_pid/status")
    fds=$(ls "/proc/$slap_pid/fd" | wc -l)
    printf '%7ss %12s %6s\n' "$t" "$rss" "$fds"
    if [ -z "$first_fds" ]; then
        first_fds=$fds # after one interval: every connection is open
    fi
    # memory from half the run: the intervals' segments, a cache bounded by the buckets the
    # latencies span (not by the run's length), fill as they widen in its first doublings
    if [ -z "$first_rss" ] && ((2 * t >= duration)); then
        first_rss=$rss
    fi
    [ -n "$first_rss" ] && ((rss > worst_rss)) && worst_rss=$rss
    ((fds > worst_fds)) && worst_fds=$fds
done
status=0
wait "$slap_pid" || status=$?
slap_pid=""
grep "^Run time" "$logdir/slap.out" || true
if [ -n "$first_rss" ] && { ((worst_fds > first_fds)) || ((worst_rss > first_rss * 105 / 100 + 1024)); }; then
    echo "soak: FAILED: grew from ${first_rss} KiB (at half the run), ${first_fds} fds to" \
        "${worst_rss} KiB, ${worst_fds} fds"
    exit 1
fi
echo "soak: flat (slap exit $status)"
exit "$status"
