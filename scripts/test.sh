#!/usr/bin/env bash
# The whole test suite: dependencies, a strict build, unit and integration tests (valgrind
# memcheck and a 60 s soak among them), then the same tests built with AddressSanitizer and
# UndefinedBehaviorSanitizer, then every libFuzzer target for a bounded time.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" valgrind clang libclang-rt-dev python3-yaml python3-jsonschema librsvg2-bin \
    nutcracker libmemcached-tools jq iproute2

echo "== release build (warnings are errors)"
"$top/scripts/build.sh" "$top/build" -DSLAP_WERROR=ON
(cd "$top/build" && ctest --output-on-failure --no-tests=error)

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
"$top/scripts/build.sh" "$top/build-asan" -DSLAP_WERROR=ON -DSLAP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
(cd "$top/build-asan" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure --no-tests=error)

echo "== libFuzzer targets (bounded)"
CC=clang "$top/scripts/build.sh" "$top/build-fuzz" -DSLAP_FUZZ=ON -DSLAP_WERROR=ON
(cd "$top/build-fuzz" && ctest -L fuzz --output-on-failure --no-tests=error)
