#!/usr/bin/env bash
# tools/test.sh — the README's test command: installs what is missing from Debian's packages,
# then builds and runs every test twice:
#   1. build/           Release, tests + examples + benchmarks (benchmarks are only built);
#   2. build-sanitize/  -O1 -g1 (line tables only: a faster build, stack traces keep file:line)
#                       with AddressSanitizer + UndefinedBehaviorSanitizer, no benchmarks,
#                       no installed-package test.
# Stops at the first failing stage with a non-zero exit; the last lines are CTest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/packages.sh

jobs=2

ensure_packages "${ATENCION_BUILD_PACKAGES[@]}" "${ATENCION_TEST_PACKAGES[@]}"

echo "== Release build (build/) =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DATENCION_BUILD_TESTS=ON -DATENCION_BUILD_EXAMPLES=ON -DATENCION_BUILD_BENCHMARKS=ON
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build (build-sanitize/) =="
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DATENCION_SANITIZE=ON \
  -DATENCION_BUILD_TESTS=ON -DATENCION_BUILD_EXAMPLES=ON -DATENCION_BUILD_BENCHMARKS=OFF
cmake --build build-sanitize -j"$jobs"
export ASAN_OPTIONS="detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
(cd build-sanitize && ctest --output-on-failure -j"$jobs")
