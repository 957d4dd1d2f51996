#!/usr/bin/env bash
# tools/learn.sh — the quick start for reading the lessons: installs what is missing from
# Debian's packages, configures build/ (Release, as tools/test.sh does, so the two share it) and
# builds only what the lessons' first Run-it blocks and the exercises need:
#   attention_walkthrough   the walk-through that lessons 03-09 run (and its explorer page)
#   atencion, the Catch2 main   what tools/exercise.sh links every judge against
# About a minute and a half of building on 2 idle cores from a fresh clone (the README, Lessons,
# gives what was measured).
# A Run-it block that needs another program names it in its first line
# (cmake --build build -j2 --target ...): only that is built then.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/packages.sh

ensure_packages "${ATENCION_BUILD_PACKAGES[@]}" catch2
mkdir -p build
echo "== configuring build/ (log: build/learn-configure.log)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DATENCION_BUILD_TESTS=ON -DATENCION_BUILD_EXAMPLES=ON -DATENCION_BUILD_BENCHMARKS=ON \
  > build/learn-configure.log 2>&1 || { cat build/learn-configure.log >&2; exit 1; }
echo "== building the walk-through and what the exercises link against"
cmake --build build -j"${ATENCION_JOBS:-2}" --target attention_walkthrough atencion_catch_main
echo
echo "Ready. Next:"
echo "  build/examples/attention_walkthrough/attention_walkthrough --out build/walkthrough"
echo "      prints the walk-through; open build/walkthrough/explorer.html in a browser"
echo "  tools/exercise.sh              lists the exercises (docs/exercises.md)"
echo "  each lesson's Run it block     builds what else it needs, and only that"
