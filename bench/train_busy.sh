#!/bin/bash
# bench/train_busy.sh — the main command's training speed, quiet and beside N busy loops, for two
# builds in alternating rounds (A B, B A, ...) so that both see the same machine.
#
#   bench/train_busy.sh BUILD_A BUILD_B [ROUNDS] [BUSY] [THREADS]
#
# Each run is `atencion-translate train --steps 25` (a fresh run: tokenizers, then 25 steps, a
# progress line every 5 steps); its figure is the mean tokens/s of the progress lines after the
# first (the first holds the first step's allocations). Prints one line per run, quiet and
# beside BUSY (default 2) `while :; do :; done` loops, which are killed when the run ends.
# THREADS (default: unset, the program's default) sets OMP_NUM_THREADS; STEPS (default 25) the steps.
# Lesson: docs/performance.md#the-main-command-beside-busy-loops
set -euo pipefail
a=$1 b=$2 rounds=${3:-3} busy=${4:-2} threads=${5:-} steps=${STEPS:-25}
out=$(mktemp -d)
loops=()
stop_loops() {
  for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null || true; done
  loops=()
}
trap 'stop_loops; rm -rf "$out"' EXIT

# One run of BUILD beside $1 busy loops: prints the mean tokens/s of lines 2 and later.
one_run() {
  local build=$1 count=$2
  for ((i = 0; i < count; i++)); do sh -c 'while :; do :; done' & loops+=($!); done
  local env=()
  [ -n "$threads" ] && env=(OMP_NUM_THREADS="$threads")
  env "${env[@]}" "$build/examples/translate/atencion-translate" train --steps "$steps" --log-every 5 \
      --log-seconds 0 --checkpoint-every 0 --eval-every 0 --overwrite --out "$out/run" \
      > "$out/log" 2>&1
  stop_loops
  grep 'tok/s' "$out/log" | awk '{ n++; if (n > 1) { sum += $(NF - 3); c++ } }
                                 END { printf "%.0f", sum / c }'
}

for ((round = 0; round < rounds; round++)); do
  for count in 0 "$busy"; do
    if ((round % 2 == 0)); then order=("$a" "$b"); else order=("$b" "$a"); fi
    for build in "${order[@]}"; do
      side=A; [ "$build" == "$b" ] && side=B
      echo "round $round, $count busy loops, $side ($build): $(one_run "$build" "$count") tokens/s"
    done
  done
done
