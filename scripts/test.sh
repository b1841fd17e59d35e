#!/usr/bin/env bash
# The whole test suite: dependencies, a strict build, unit and integration tests (valgrind
# memcheck and a 60 s soak among them, the Debian package installed in a fresh chroot and the
# container image run), then the same tests built with AddressSanitizer and
# UndefinedBehaviorSanitizer. Every libFuzzer target runs first, for a bounded time, while the
# release and sanitizers' trees build beside it (nothing then measures time). In the release
# pass, four tests run at a time, except the integration cases that measure time or rate, which
# run alone (a case declares that it measures no time with @no_time, tests/integration/harness.py);
# the others mostly wait on their servers and timers. Every try again, try set aside within a
# case, and skip is named at the end, with its first failure or its reason.
set -euo pipefail
SECONDS=0
phase() { echo "== $1 (at ${SECONDS}s)"; }
top=$(cd "$(dirname "$0")/.." && pwd)
# kubectl: Debian's kubernetes-client, unless a kubectl is installed already (another package,
# such as a cloud SDK's, owns /usr/bin/kubectl then, and Debian's would not install beside it)
kubectl=kubernetes-client
command -v kubectl >/dev/null && kubectl=
# libsasl2-modules: SASL's PLAIN mechanism, which memcached -S needs for the auth cases; it is
# only a Recommends of libsasl2-2, so a minimal Debian installs sasl2-bin without it;
# groff-base: docs_man_pages_from_rows renders every man page the build makes (groff -ww);
# postgresql: the store cases start a PostgreSQL server of their own (initdb, pg_ctl);
# prometheus, prometheus-pushgateway: the metrics and grafana cases start their own;
# default-jre-headless, libhdrhistogram-java: cases_hlog reads --hlog's logs with HdrHistogram's
# own reader (HistogramLogProcessor)
"$top/scripts/deps.sh" valgrind clang clang-format groff-base libclang-rt-dev python3-yaml python3-jsonschema librsvg2-bin \
    nutcracker libmemcached-tools jq iproute2 pdsh prometheus prometheus-pushgateway \
    debootstrap buildah build-essential debhelper dpkg-dev fakeroot lintian sasl2-bin libsasl2-modules \
    postgresql default-jre-headless libhdrhistogram-java \
    $kubectl

# The Debian package and the container image (scripts/packages.sh: the debootstrap tree and the
# image's layers are cached between runs) are made beside the libFuzzer pass and the release
# build, which measure no time; the release pass's package cases then find them made.
phase "package and image (in the background)"
mkdir -p "$top/build-pkg"
setsid "$top/scripts/packages.sh" all >"$top/build-pkg/packages.log" 2>&1 &
packages=$!
# a pass that fails stops the suite: the package's build (its own process group) stops with it
trap '[[ -n $packages ]] && kill -- -"$packages" 2>/dev/null; true' EXIT

phase "libFuzzer targets (bounded), beside the release and sanitizers' builds"
CC=clang cmake -S "$top" -B "$top/build-fuzz" -DSLAP_FUZZ=ON -DSLAP_WERROR=ON >/dev/null
cmake --build "$top/build-fuzz" -j "$(nproc)" --target fuzzers
# the targets run for a bounded time each, whatever else runs: the two builds beside them cost
# them executions, not time, and the suite the builds' minute and a half
(cd "$top/build-fuzz" && ctest -j2 -L fuzz --output-on-failure --no-tests=error) \
    >"$top/build-fuzz/fuzz.log" 2>&1 &
fuzz=$!
"$top/scripts/build.sh" "$top/build" -DSLAP_WERROR=ON
"$top/scripts/build.sh" "$top/build-asan" -DSLAP_WERROR=ON -DSLAP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
if ! wait "$fuzz"; then
    cat "$top/build-fuzz/fuzz.log" >&2
    echo "test.sh: a libFuzzer target failed (its log is above)" >&2
    exit 1
fi
grep -E "tests passed|Total Test time" "$top/build-fuzz/fuzz.log"
if ! wait "$packages"; then
    cat "$top/build-pkg/packages.log" >&2
    echo "test.sh: scripts/packages.sh failed (its log is above)" >&2
    exit 1
fi
packages=

# Every try a case needed is counted and named at the end, with its first failure: a case that
# failed a try and passed the next (ctest --repeat until-pass:2), a try a case set aside within
# itself (harness.set_aside: the busy host disturbed it) and a case skipped, with its reason.
# The cases write these to $SLAP_TEST_RECORD (tests/integration/harness.py); ctest's log adds
# the unit tests' tries and the tries it timed out (scripts/test-summary.py).
summary=()
summarize() { # PASS RECORD CTEST_LOG
    local line
    while IFS= read -r line; do
        summary+=("$line")
    done < <(python3 "$top/scripts/test-summary.py" "$@")
}
ctest_pass() { # PASS BUILD_DIR [ctest arguments]: the pass's record kept, and summarized
    local pass=$1 dir=$2 status=0
    shift 2
    export SLAP_TEST_RECORD="$dir/test-record.txt"
    : >"$SLAP_TEST_RECORD"
    (cd "$dir" && ctest "$@") | tee "$dir/ctest.log" || status=$?
    summarize "$pass" "$SLAP_TEST_RECORD" "$dir/ctest.log"
    return "$status"
}
report() {
    if [[ ${#summary[@]} -gt 0 ]]; then
        echo "== tries again, tries set aside and skips (${#summary[@]}):"
        printf '   %s\n' "${summary[@]}"
    else
        echo "== no case was tried again, set a try aside or skipped"
    fi
}

phase "release tests (the package and image made at $(grep -o '[0-9]*s$' "$top/build-pkg/packages.log" | tail -1))"
# a case that fails is run once more (a timed one can meet a moment when this shared host's
# other load holds the server or slap up); one that fails twice fails the suite
ctest_pass release "$top/build" -j4 --repeat until-pass:2 --output-on-failure --no-tests=error ||
    { report; exit 1; }

phase "AddressSanitizer + UndefinedBehaviorSanitizer tests"
# A timed case here runs beside cases that measure no time (tests/CMakeLists.txt: one timed
# case at a time, by a resource lock; three cases at once, the others mostly waiting on their
# servers): one whose timing check fails there gets a second try; a memory error fails every try.
ASAN_OPTIONS=detect_leaks=1 ctest_pass sanitizers "$top/build-asan" -j3 --repeat until-pass:2 \
    --output-on-failure --no-tests=error || { report; exit 1; }
report
phase "all passed"
