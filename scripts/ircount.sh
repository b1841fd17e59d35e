#!/usr/bin/env bash
# User-mode instructions per request, by callgrind (repeatable where timings are not): a benchmark, not a test.
#
# Usage: scripts/ircount.sh [SLAP] [-- slap options...]
# Starts a throwaway memcached on a free loopback port, runs SLAP (default build/slap) with
# -T 1 -c 64 -x 20000 and -x 120000 under valgrind --tool=callgrind, and prints
# (Ir(120000) - Ir(20000)) / 100000: the instructions a request costs once started, slap's
# own and its libraries' (libevent, libc), not the kernel's. -S 1h keeps the -S tables out of
# the figure, not the ticks of a tenth of a second that the intervals read whatever -S: under
# callgrind a tick spans few requests, so their share shows (about 40 instructions a request
# here, as in a run without -S), where in a real run it is a fraction of a percent. The figure
# also grows with the number of ticks, which follows the host's speed: compare alternately.
# Extra options go after "--",
# e.g. scripts/ircount.sh build/slap -- -d 10 (or -- -U: the server listens on UDP too). Needs
# valgrind and memcached.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
slap=$top/build/slap
if [[ $# -gt 0 && $1 != -- ]]; then
    slap=$1
    shift
fi
[[ $# -gt 0 && $1 == -- ]] && shift
work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
memcached -l 127.0.0.1 -p "$port" -U "$port" -m 1024 $( [[ $(id -u) == 0 ]] && echo -u root ) &
mc=$!
trap 'kill "$mc" 2>/dev/null; wait "$mc" 2>/dev/null; rm -rf "$work"' EXIT
sleep 0.5

instructions() { # -x N: the run's total Ir
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" \
        "$slap" -s "127.0.0.1:$port" -T 1 -c 64 -x "$1" -S 1h "${@:2}" >"$work/out.$1" 2>"$work/err.$1" ||
        { cat "$work/err.$1" >&2; exit 1; }
    awk '/^(summary|totals):/ { print $2; exit }' "$work/cg.$1"
}

short=$(instructions 20000 "$@")
long=$(instructions 120000 "$@")
echo "slap -T 1 -c 64${*:+ $*}: $(( (long - short) / 100000 )) instructions per request (Ir $short at -x 20000, $long at -x 120000)"
