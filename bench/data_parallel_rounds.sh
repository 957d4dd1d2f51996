#!/usr/bin/env bash
# bench/data_parallel_rounds.sh — a family's 2-process speed-up, in alternating rounds, beside
# what the machine allows two processes that share nothing.
# Lesson: docs/13-data-parallel.md#measured; figures: docs/performance.md#data-parallel-training
#
#   bash bench/data_parallel_rounds.sh [BUILD_DIR] [FAMILY] [ROUNDS] [FROM] [TO]
#                                      (defaults: build gpt 5 40 80; TO a multiple of TO - FROM)
#
# From one checkpoint at step FROM (so that every run sees the same batches), each round runs
# FAMILY's default model to step TO as
#   1 × 1        one process, --threads 1
#   2 × 1        mpirun -np 2 --bind-to core, --threads 1 each (data parallel)
#   two copies   two independent 1 × 1 runs at once, one on each of cores 0 and 1: the most two
#                processes can do on this machine when they share nothing but its caches and
#                memory, the ceiling of the 2 × 1 speed-up; and twice the slower copy, the
#                ceiling of a synchronous step (each 2 × 1 step waits for the slower process: on
#                a machine whose cores differ in speed, the two copies' sum is out of its reach)
# and prints the tokens/s of steps FROM+1 .. TO of each, the ratios to 1 × 1, the same ratios
# from the runs' median steps (robust to the first steps and to a hiccup; "slower×2" is twice
# 1 × 1's median step over the slower copy's), the 2 × 1 run's
# communication line and how far apart its processes ended backward (a step, on average). A
# benchmark, not a test: run it on an otherwise idle machine; this machine's rates vary by
# about 10% from run to run, hence the rounds (report the median and the range).
set -euo pipefail
build=${1:-build}
family=${2:-gpt}
rounds=${3:-5}
from=${4:-40}
to=${5:-80}
binary="$build/examples/$family/atencion-$family"
[[ -x $binary ]] || { echo "no $binary: build the examples first" >&2; exit 1; }
(( to > from && from >= 1 )) || { echo "TO must be above FROM >= 1" >&2; exit 1; }
# The progress lines fall on the steps that are multiples of --log-every (TO - FROM, below).
(( to % (to - from) == 0 )) ||
  { echo "TO ($to) must be a multiple of TO - FROM ($((to - from))), e.g. FROM 50 TO 100" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # harmless when not root
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
steps=$((to - from))

echo "preparing a checkpoint at step $from in $work ..."
"$binary" --threads 2 train --out "$work/start" --steps "$from" > "$work/start.log"

# run NAME COMMAND...: resumes a copy of the start up to step `to`, one progress line at its end.
run() {
  local name=$1
  shift
  rm -rf "${work:?}/$name"
  cp -r "$work/start" "$work/$name"
  "$@" train --out "$work/$name" --resume --steps "$to" --log-every "$steps" \
    --checkpoint-every 0 > "$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
}
# The rate of the progress line at step TO: tok/s (translator, GPT) or pieces/s (BERT).
speed() { sed -n -E "s/^epoch [0-9]+ step $to .* ([0-9]+) (tok|pieces)\/s .*/\1/p" "$work/$1.log"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }
# The median step of a run, in ms (its last lines: "a step, its median: ..."). The rates above
# count every step, the first ones (memory touched the first time) and a hiccup of the machine
# included; the medians do not: 1 x 1's median over 2 x 1's (the same batches a step), and
# over each copy's (each copy does 1 x 1's work).
median() { sed -n -E 's/^a step, its median: ([0-9.]+) ms .*/\1/p' "$work/$1.log"; }

printf '%-6s %8s %8s %6s %14s %6s %8s %8s %9s  %s\n' round "1x1" "2x1" ratio "two copies" ratio \
  "median:" "copies" "slower×2" "communication (2x1, rank 0); backward ended apart"
for round in $(seq "$rounds"); do
  run one "$binary" --threads 1
  run data_parallel mpirun -np 2 --bind-to core "$binary" --threads 1
  (run copy0 taskset -c 0 "$binary" --threads 1) & (run copy1 taskset -c 1 "$binary" --threads 1) &
  wait
  one=$(speed one) dp=$(speed data_parallel) copies=$(($(speed copy0) + $(speed copy1)))
  by_median=$(awk -v a="$(median one)" -v b="$(median data_parallel)" \
    'BEGIN { printf "%.2f", a / b }')
  copies_by_median=$(awk -v a="$(median one)" -v b="$(median copy0)" -v c="$(median copy1)" \
    'BEGIN { printf "%.2f", a / b + a / c }')
  slower_twice=$(awk -v a="$(median one)" -v b="$(median copy0)" -v c="$(median copy1)" \
    'BEGIN { printf "%.2f", 2 * a / (b > c ? b : c) }')
  printf '%-6s %8s %8s %6s %14s %6s %8s %8s %9s  %s\n' "$round" "$one" "$dp" "$(ratio "$one" "$dp")" \
    "$copies" "$(ratio "$one" "$copies")" "$by_median" "$copies_by_median" "$slower_twice" \
    "$(sed -n 's/^data parallel: .* s (\([0-9.]* ms a step, [0-9.]*%\)), \([0-9]*%\) of it hidden.* \([0-9.]* ms\) apart.*/\1, \2 of it hidden; \3/p' \
      "$work/data_parallel.log")"
done
