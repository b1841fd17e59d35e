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

units=(push worker)
cases=(
    # worker threads
    counters_counted tiny_window_uneven_threads many_threads_common_end pipeline tls
    # --samples' writer
    samples_every_request stalled_samples_reader_costs_samples_not_periods
    # all of them at once, the case a table filled lazily from two threads fails
    every_thread_at_once
    # the Pushgateway's pusher and resolver; the /metrics server
    metrics_pushgateway metrics_push_failures silent_pushgateway_costs_pushes_not_periods
    push_resolver_that_never_answers metrics_served_during_run metrics_hostile_clients
    # the watchdog lets a stop signal in when slap is stuck writing
    signal_while_standard_output_is_stalled signal_during_connect
    # the --trace reader
    replay_counts_and_rate replay_client_order
    # runs of runs: compare --live's rounds, search's probes
    compare_live_finds_a_delay compare_live_keeps_rounds_done
    compare_live_rounds_take_latency_apart search_memcached_pinned search_steps_judged
    search_starved_ends_without_capacity
)
regex="^(unit_($(IFS='|'; echo "${units[*]}"))|integration_($(IFS='|'; echo "${cases[*]}")))\$"

logs="$dir/tsan"
rm -rf "$logs"
mkdir -p "$logs"
# halt_on_error=0: a case goes on after a report (its exit status is then 66, so it fails too)
export TSAN_OPTIONS="log_path=$logs/report suppressions=$top/tests/tsan.supp halt_on_error=0"
status=0
# two at a time: each case's timed checks have room for the sanitizer's speed (a case whose
# timing check fails once is tried again; a report of a race fails whatever the second try says)
(cd "$dir" && ctest -j2 -R "$regex" --repeat until-pass:2 --output-on-failure \
    --no-tests=error) | tee "$dir/tsan-ctest.log" || status=1
found=$(grep -cE "Test +#[0-9]+: " "$dir/tsan-ctest.log" || true)
want=$((${#units[@]} + ${#cases[@]}))
if [[ $found -lt $want ]]; then
    echo "tsan.sh: ctest ran $found tests of the $want named (a case renamed?)" >&2
    status=1
fi
if compgen -G "$logs/report.*" >/dev/null; then
    echo "tsan.sh: ThreadSanitizer reported (the logs in $logs):" >&2
    grep -h "^SUMMARY" "$logs"/report.* | sort | uniq -c >&2
    status=1
fi
echo "== ThreadSanitizer's pass took ${SECONDS}s: $([[ $status -eq 0 ]] && echo clean || echo FAILED)"
exit "$status"
