#!/usr/bin/env bash
# Loopback versus a network: the same slap command against a memcached on 127.0.0.1 and
# against one in a network namespace joined to this host by a veth pair (optionally slowed
# by tc netem), then the two results side by side: throughput, p50, p99, the CPU time of
# slap and of the server, and what slap found limited each run (its limited_by verdict and
# why). Both servers take UDP on their TCP port, so -U and -a work. A side that fails (its
# server does not start, or slap exits non-zero) is shown as failed, with slap's errors,
# while the other is still run and shown; the script then exits 1. Everything it creates
# (the namespace, the veth pair, both servers) is removed at the end, also when
# interrupted. Needs root, iproute2 and jq.
#
# Usage: scripts/netcompare.sh [--delay 1ms] [--rate 1gbit] [--slap PATH] [slap options...]
# Default slap options: -t 5s -T 2 -c 32. The namespace's addresses are a /30 of 198.18.0.0/16
# (in the range set aside for benchmarks, RFC 2544) that no address or route of this host uses,
# picked per run and checked after set-up, and exist only on the veth pair made here.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
slap=$top/build/slap
delay="" rate=""
while [ $# -gt 0 ]; do
    case $1 in
    --delay) delay=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --slap) slap=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || set -- -t 5s -T 2 -c 32
if [ "$(id -u)" -ne 0 ]; then
    echo "netcompare: needs root (it creates a network namespace and a veth pair)" >&2
    exit 2
fi
for tool in ip tc memcached jq "$slap"; do
    command -v "$tool" >/dev/null || { echo "netcompare: $tool not found" >&2; exit 2; }
done

id=$$
ns=slapnet$id
host_if=slapa$id
ns_if=slapb$id
port=11211 # inside the namespace, which is this run's own
work=$(mktemp -d /tmp/netcompare.XXXXXX)

# A /30 of 198.18.0.0/16 that no address or route of this host uses yet: two copies at once
# (two users, CI and a person) each get their own, and each checks after set-up that its
# addresses and route are its own alone.
pick_subnet() {
    local n b c d
    for _ in $(seq 40); do
        n=$((RANDOM % 16384)) # /30s in the /16
        b=$((n * 4 / 256)) c=$((n * 4 % 256))
        d="198.18.$b"
        host_addr="$d.$((c + 1))" ns_addr="$d.$((c + 2))"
        if ! ip -o -4 addr show | grep -qE " ($host_addr|$ns_addr)/" &&
            [ -z "$(ip -4 route show to match "$ns_addr" | grep -v '^default')" ]; then
            return 0
        fi
    done
    echo "netcompare: no free /30 found in 198.18.0.0/16" >&2
    return 1
}
pick_subnet || exit 1
pids=()

cleanup() {
    set +e # every step, whatever the one before did (a killed child's wait fails)
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    ip netns del "$ns" 2>/dev/null || true # takes its end of the veth pair, and so the pair
    ip link del "$host_if" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

netem() { # dev [ip netns exec NS]: the optional delay and rate on one end
    local dev=$1
    shift
    local args=()
    [ -n "$delay" ] && args+=(delay "$delay")
    [ -n "$rate" ] && args+=(rate "$rate")
    [ ${#args[@]} -eq 0 ] || "$@" tc qdisc add dev "$dev" root netem "${args[@]}" || {
        echo "netcompare: tc netem failed: the kernel may lack sch_netem (modprobe sch_netem)" >&2
        exit 2
    }
}

ip netns add "$ns"
ip link add "$host_if" type veth peer name "$ns_if"
ip link set "$ns_if" netns "$ns"
ip addr add "$host_addr/30" dev "$host_if"
ip link set "$host_if" up
ip netns exec "$ns" ip addr add "$ns_addr/30" dev "$ns_if"
ip netns exec "$ns" ip link set "$ns_if" up
ip netns exec "$ns" ip link set lo up
netem "$host_if"
netem "$ns_if" ip netns exec "$ns"
# the addresses and the route are this run's alone (another copy may have picked the same
# subnet between the check and the set-up): else it would measure that copy's server
if [ "$(ip -o -4 addr show | grep -cE " ($host_addr|$ns_addr)/")" -ne 1 ] ||
    ! ip -4 route get "$ns_addr" | grep -q "dev $host_if "; then
    echo "netcompare: $host_addr/30 is used by another network of this host as well: run again" >&2
    exit 1
fi

wait_port() { # addr [netns]: until memcached answers there
    for _ in $(seq 50); do
        if "${@:2}" bash -c "exec 3<>/dev/tcp/$1/$port" 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    return 1 # the caller says so
}

free_port() { # a port below the ephemeral range (where connections take theirs) with no listener,
    local p # TCP or UDP: memcached listens on both, slap's -U expects the same port
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        p=$((20000 + RANDOM % 12000))
        if [ -z "$(ss -Htuln "sport = :$p")" ]; then echo "$p"; return 0; fi
    done
    echo "netcompare: no free port found between 20000 and 32000" >&2
    return 1
}

failed() { # side reason: the side gets no figures, the summary says why
    printf '%s\n' "$2" >"$work/$1.failed"
    echo "netcompare: $1: $2" >&2
}

# UDP on the TCP port (-U PORT), as slap's -U and -a expect it.
loop_port=$(free_port)
memcached -l 127.0.0.1 -p "$loop_port" -U "$loop_port" -t 2 -m 1024 -u root &
pids+=($!)
ip netns exec "$ns" memcached -l "$ns_addr" -p "$port" -U "$port" -t 2 -m 1024 -u root &
pids+=($!)
port=$loop_port wait_port 127.0.0.1 || failed loopback "memcached did not start on 127.0.0.1:$loop_port"
wait_port "$ns_addr" ip netns exec "$ns" || failed network "memcached did not start on $ns_addr:$port"

children_cpu() { # cpu_now: CPU seconds (user + system) of the children waited for so far
    times >"$work/times" # the builtin, in this very shell (not in $(...), a subshell)
    cpu_now=$(awk 'END { split($1, u, /[ms]/); split($2, s, /[ms]/)
                         print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$work/times")
}

one() { # name server [slap options]: run slap, keep its JSON and its CPU time, or why it failed
    local before pid errors status=0
    [ ! -e "$work/$1.failed" ] || return 0
    children_cpu
    before=$cpu_now
    # In the background and waited for, so that a signal reaches the trap at once.
    "$slap" -s "$2" --label "$1" --json "$work/$1.json" -q "${@:3}" >"$work/$1.out" \
        2>"$work/$1.err" &
    pid=$!
    pids+=("$pid")
    wait "$pid" || status=$?
    unset 'pids[${#pids[@]}-1]'
    if [ "$status" -ne 0 ]; then
        errors=$(paste -sd ' ' "$work/$1.err")
        failed "$1" "slap against $2 failed (exit $status)${errors:+: $errors}"
        return 0
    fi
    children_cpu
    awk -v a="$before" -v b="$cpu_now" 'BEGIN { printf "%.2f", b - a }' >"$work/$1.cpu"
}
one loopback "127.0.0.1:$loop_port" "$@"
one network "$ns_addr:$port" "$@"

cell() { # side format jq-expression: one figure of a side, "failed" or "-" when it has none
    local value
    if [ -e "$work/$1.failed" ]; then echo failed; return; fi
    value=$(jq -r "$3 // empty" "$work/$1.json")
    # shellcheck disable=SC2059 # the formats are this script's own
    if [ -z "$value" ]; then echo -; else printf "$2" "$value"; fi
}
row() { # title format jq-expression
    printf '%-22s %14s %14s\n' "$1" "$(cell loopback "$2" "$3")" "$(cell network "$2" "$3")"
}
printf '%-22s %14s %14s\n' "" "loopback" "network"
printf '%-22s %14s %14s\n' "server" "127.0.0.1" "$ns_addr (veth${delay:+, $delay}${rate:+, $rate})"
row "throughput (ops/s)" %.0f .run.tps
for p in 50 99; do
    row "p$p latency (us)" %.1f ".types.total.percentiles[\"$p\"]"
done
cpu() { if [ -e "$work/$1.failed" ]; then echo failed; else cat "$work/$1.cpu"; fi; }
printf '%-22s %14s %14s\n' "slap CPU (s)" "$(cpu loopback)" "$(cpu network)"
row "memcached CPU (s)" %.2f '[.servers[0].delta.rusage_user, .servers[0].delta.rusage_system] | add'
# slap's own judgement of each run (its report's limited_by line), and the shares behind it.
row "slap busiest thread" %.2f .limits.client.busy_max
row "slap CPU wait (max)" %.2f .limits.client.cpu_wait_max
row "memcached busy" %.2f .limits.servers[0].busy
row "limited by" %s .limits.verdict
status=0
for side in loopback network; do
    if [ -e "$work/$side.failed" ]; then
        printf '%-8s failed: %s\n' "$side" "$(cat "$work/$side.failed")"
        status=1
    else
        printf '%-8s limited_by: %s (%s)\n' "$side" "$(cell $side %s .limits.verdict)" \
            "$(cell $side %s .limits.why)"
    fi
done
exit $status
