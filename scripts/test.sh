#!/usr/bin/env bash
# The whole test suite: dependencies, a strict build, unit and integration tests,
# then the same tests built with AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"

echo "== release build (warnings are errors)"
"$top/scripts/build.sh" "$top/build" -DSLAP_WERROR=ON
(cd "$top/build" && ctest --output-on-failure --no-tests=error)

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
"$top/scripts/build.sh" "$top/build-asan" -DSLAP_WERROR=ON -DSLAP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
(cd "$top/build-asan" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure --no-tests=error)

# Fuzz every codec for a bounded time when clang with libFuzzer is here.
if command -v clang >/dev/null 2>&1 &&
   echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' |
   clang -x c -fsanitize=fuzzer - -o /tmp/slap-fuzz-probe.$$ 2>/dev/null; then
    rm -f /tmp/slap-fuzz-probe.$$
    echo "== libFuzzer targets (bounded)"
    CC=clang "$top/scripts/build.sh" "$top/build-fuzz" -DSLAP_FUZZ=ON -DSLAP_WERROR=ON
    (cd "$top/build-fuzz" && ctest -L fuzz --output-on-failure --no-tests=error)
else
    echo "== clang with libFuzzer not found: fuzz targets skipped"
fi
