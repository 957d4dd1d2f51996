#!/usr/bin/env bash
# tools/test.sh — the README's test command: installs what is missing from Debian's packages,
# then builds and runs every test twice:
#   1. build/           Release, tests + examples + benchmarks (benchmarks are only built);
#   2. build-sanitize/  clang-16, -O1 -g1 (line tables only: a faster build, stack traces keep
#                       file:line) with AddressSanitizer + UndefinedBehaviorSanitizer, no
#                       benchmarks, no installed-package test (tools/sanitize_build.sh); each
#                       libFuzzer target of tests/fuzz/ runs 20 s in that tree (tools/fuzz.sh),
#                       so a new crash in a loader is caught, then its ctest runs.
# Stops at the first failing stage with a non-zero exit; the last lines are CTest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/packages.sh

jobs=2

ensure_packages "${ATENCION_BUILD_PACKAGES[@]}" "${ATENCION_TEST_PACKAGES[@]}"

echo "== Release build (build/) =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${ATENCION_CMAKE_ARGS[@]}" \
  -DATENCION_BUILD_TESTS=ON -DATENCION_BUILD_EXAMPLES=ON -DATENCION_BUILD_BENCHMARKS=ON
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build (build-sanitize/) =="
source tools/sanitize_build.sh
configure_sanitize_build
cmake --build "$ATENCION_SANITIZE_DIR" -j"$jobs"

echo "== libFuzzer smoke: every target of tests/fuzz/ for 20 s (tools/fuzz.sh) =="
bash tools/fuzz.sh all 20

echo "== ctest in build-sanitize/ =="
(cd "$ATENCION_SANITIZE_DIR" && ctest --output-on-failure -j"$jobs")
