#!/usr/bin/env bash
# tools/main.sh — the README's main command: installs what is missing from Debian's packages,
# builds atencion in Release (build/) and runs the main job.
#   bash tools/main.sh [arguments for the main program]
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/packages.sh

# The main job: the CMake target name is the program's file name.
main_program=examples/xor/xor

ensure_packages "${ATENCION_BUILD_PACKAGES[@]}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DATENCION_BUILD_TESTS=OFF -DATENCION_BUILD_EXAMPLES=ON -DATENCION_BUILD_BENCHMARKS=OFF
cmake --build build -j2 --target "$(basename "$main_program")"
exec "build/$main_program" "$@"
