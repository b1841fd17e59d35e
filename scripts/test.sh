#!/usr/bin/env bash
# The whole test suite: dependencies, a strict build, unit and integration tests,
# then the same tests built with AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"

echo "== release build (warnings are errors)"
"$top/scripts/build.sh" "$top/build" -DSLAP_WERROR=ON
(cd "$top/build" && ctest --output-on-failure)

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
"$top/scripts/build.sh" "$top/build-asan" -DSLAP_WERROR=ON -DSLAP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
(cd "$top/build-asan" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure)
