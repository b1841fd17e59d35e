#!/usr/bin/env bash
# ThreadSanitizer's pass: builds slap with -DSLAP_SANITIZE=thread into build-tsan (or DIR) and
# runs under it the unit tests and integration cases that run slap's threads beside its main
# one: several -T workers, the --samples writer, the Pushgateway's pusher and its resolver, the
# /metrics server, the signals' watchdog (in every run), the --trace reader, compare --live and
# search. Every report goes to a log of its own (build-tsan/tsan/); any report fails the pass,
# and its summary lines are printed. tests/tsan.supp suppresses only what is another library's,
# each line with why. Usage: scripts/tsan.sh [DIR]
set -euo pipefail
SECONDS=0
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-"$top/build-tsan"}
"$top/scripts/build.sh" "$dir" -DSLAP_WERROR=ON -DSLAP_SANITIZE=thread
echo "== built (at ${SECONDS}s)"

# the tests labelled `threads` where they are written: @threads on an integration case
# (tests/integration/harness.py), "ctest labels: threads" on a unit test's first line
logs="$dir/tsan"
rm -rf "$logs"
mkdir -p "$logs"
# halt_on_error=0: a case goes on after a report (its exit status is then 66, so it fails too)
export TSAN_OPTIONS="log_path=$logs/report suppressions=$top/tests/tsan.supp halt_on_error=0"
status=0
# two at a time: each case's timed checks have room for the sanitizer's speed (a case whose
# timing check fails once is tried again; a report of a race fails whatever the second try says)
(cd "$dir" && ctest -j2 -L '^threads$' --repeat until-pass:2 --output-on-failure \
    --no-tests=error) | tee "$dir/tsan-ctest.log" || status=1
if compgen -G "$logs/report.*" >/dev/null; then
    echo "tsan.sh: ThreadSanitizer reported (the logs in $logs):" >&2
    grep -h "^SUMMARY" "$logs"/report.* | sort | uniq -c >&2
    status=1
fi
echo "== ThreadSanitizer's pass took ${SECONDS}s: $([[ $status -eq 0 ]] && echo clean || echo FAILED)"
exit "$status"
