#!/usr/bin/env bash
# tools/learn.sh — the quick start for reading the lessons: installs what is missing from
# Debian's packages, configures build/ (Release, as tools/test.sh does, so the two share it) and
# builds everything the lessons' Run-it blocks run, so that none of them waits for the compiler:
#   attention_walkthrough          the walk-through of lessons 03-09 (and its explorer page)
#   xor, copy_task                 lessons 02 and 10
#   atencion-translate, atencion-gpt, atencion-bert   lessons 11-13 and 17, 15, 16
#   lesson01_tests ... lesson14_tests   the few test files a lesson's Run-it runs
#                                  (tests/CMakeLists.txt, atencion_lesson_tests)
#   atencion, the Catch2 main, exercise_online_softmax_solution   what tools/exercise.sh
#                                  links every judge against, and lesson 14's exercise
# Not here: the "break it" programs of docs/exercises.md (linear_tests, attention_tests, ...),
# each built by its step after a change to the library (one to three test files, once).
# With ccache installed the build goes through it (tools/packages.sh, ATENCION_CMAKE_ARGS).
# The README, Lessons, gives the CPU time this takes and how it was measured.
# Each Run-it block still names what it needs in its first line (cmake --build build -j2
# --target ...): after this script that line finds it built.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/packages.sh

ensure_packages "${ATENCION_BUILD_PACKAGES[@]}" catch2
mkdir -p build
echo "== configuring build/ (log: build/learn-configure.log)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${ATENCION_CMAKE_ARGS[@]}" \
  -DATENCION_BUILD_TESTS=ON -DATENCION_BUILD_EXAMPLES=ON -DATENCION_BUILD_BENCHMARKS=ON \
  > build/learn-configure.log 2>&1 || { cat build/learn-configure.log >&2; exit 1; }
echo "== building what the lessons run: the walk-through, the three programs, the lessons' tests"
# atencion_lessons (top CMakeLists.txt): the targets listed above, as one target, so that make
# builds their files side by side rather than one target after another.
cmake --build build -j"${ATENCION_JOBS:-2}" --target atencion_lessons
echo
echo "Ready. Next:"
echo "  build/examples/attention_walkthrough/attention_walkthrough --out build/walkthrough"
echo "      prints the walk-through; open build/walkthrough/explorer.html in a browser"
echo "  tools/exercise.sh              lists the exercises (docs/exercises.md)"
echo "  each lesson's Run it block     runs at once: what it needs is built"
