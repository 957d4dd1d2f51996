#!/usr/bin/env bash
# tools/fuzz.sh TARGET|all SECONDS — runs the libFuzzer target tests/fuzz/fuzz_TARGET.cpp
# (safetensors, pairs, checkpoint, translate, serve_request; "all": each in turn) for SECONDS seconds each,
# with AddressSanitizer + UBSan, in the build-sanitize/ tree of tools/test.sh (configured here
# when missing; the target is brought up to date first). The seeds are read from
# tests/fuzz/corpus/TARGET/ (and, for safetensors, tests/fixtures/); what the run adds goes to
# build-sanitize/fuzz/TARGET/corpus/, so a later run starts from there. A crash stops with a
# non-zero exit and leaves the input as build-sanitize/fuzz/TARGET/crash-* (rerun it:
# build-sanitize/tests/fuzz/fuzz_TARGET FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/sanitize_build.sh

if [ $# -ne 2 ]; then
  echo "usage: tools/fuzz.sh safetensors|pairs|checkpoint|translate|serve_request|all SECONDS" >&2
  exit 2
fi
seconds=$2
targets=("$1")
[ "$1" = all ] && targets=(safetensors pairs checkpoint translate serve_request)
build=$ATENCION_SANITIZE_DIR
# The targets write each input to a scratch file (and the safetensors one saves a copy, with
# fsync): in memory when /dev/shm is there, ten times faster than on disk.
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
# One thread: the inputs are small, and results do not depend on the count.
export OMP_NUM_THREADS=1

for target in "${targets[@]}"; do
  binary=$build/tests/fuzz/fuzz_$target
  [ -f "$build/CMakeCache.txt" ] || configure_sanitize_build
  cmake --build "$build" -j2 --target "fuzz_$target" > /dev/null  # up to date with the sources
  work=$build/fuzz/$target
  mkdir -p "$work/corpus"
  seeds=(tests/fuzz/corpus/"$target")
  [ "$target" = safetensors ] && seeds+=(tests/fixtures)
  dictionary=()
  [ -f "tests/fuzz/$target.dict" ] && dictionary=(-dict="tests/fuzz/$target.dict")
  echo "== fuzz_$target: $seconds s =="
  # -timeout: one input taking longer is a hang; -rss_limit_mb: so is growing past 2 GiB.
  status=0
  "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "${dictionary[@]}" -artifact_prefix="$work/" "$work/corpus" "${seeds[@]}" \
    > "$work/log" 2>&1 || status=$?
  # The log without the line per new input: the start, the pulses, the end and any report.
  grep -v -E '^#[0-9]+\s+(NEW|REDUCE)' "$work/log" | tail -n 60
  if [ "$status" -ne 0 ]; then
    echo "fuzz_$target failed (exit $status); the input is in $work/, the log $work/log" >&2
    exit 1
  fi
done
