#!/usr/bin/env bash
# bench/data_parallel.sh — a family's training speed on 1 and 2 processes.
# Lesson: docs/13-data-parallel.md#measured; figures: docs/performance.md#data-parallel-training
#
#   bash bench/data_parallel.sh [BUILD_DIR] [STEPS] [FAMILY]   (defaults: build 40 translate)
#
# Trains FAMILY's default model (atencion-translate, atencion-gpt or atencion-bert train on its
# default text) for STEPS steps in three set-ups, each from the same checkpoint (so that all see
# the same global batches and none pays for training the tokenizers):
#   1 process  × 1 thread    --threads 1
#   1 process  × 2 threads   --threads 2
#   2 processes × 1 thread   mpirun -np 2 --bind-to core ... --threads 1
# and prints the target tokens/s of the second half of the steps (the first half warms up),
# the scaling efficiency (2 × 1 against 2 · (1 × 1)), the time per step that rank 0 had
# gradients in flight (waiting for the other process included) and the part of it hidden
# behind backward. A benchmark, not a test: run it on an otherwise idle machine.
set -euo pipefail
build=${1:-build}
steps=${2:-40}
family=${3:-translate}
binary="$build/examples/$family/atencion-$family"
[[ -x $binary ]] || { echo "no $binary: build the examples first" >&2; exit 1; }
(( steps >= 4 && steps % 2 == 0 )) || { echo "STEPS must be even and >= 4" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # harmless when not root
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

half=$((steps / 2))
# Progress lines come at multiples of --log-every: start at step `half`, so that they fall at
# 2 · half (the first half of the run) and 3 · half (the second).
echo "preparing a checkpoint at step $half (tokenizers, model) in $work ..."
"$binary" --threads 2 train --out "$work/start" --steps "$half" > "$work/start.log"

# run NAME COMMAND...: resumes a copy of the start for `steps` more steps; prints tokens/s.
run() {
  local name=$1
  shift
  cp -r "$work/start" "$work/$name"
  "$@" train --out "$work/$name" --resume --steps $((half + steps)) --log-every "$half" \
    --checkpoint-every 0 > "$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
  sed -n "s/^epoch [0-9]* step $((half + steps)) .* \([0-9]*\) tok\/s .*/\1/p" "$work/$name.log"
}

one=$(run one-by-one "$binary" --threads 1)
two_threads=$(run one-by-two "$binary" --threads 2)
two_processes=$(run two-by-one mpirun -np 2 --bind-to core "$binary" --threads 1)
communication=$(sed -n 's/^data parallel: .*(\([0-9.]*\) ms a step.*/\1/p' "$work/two-by-one.log")
hidden=$(sed -n 's/^data parallel: .*, \([0-9]*%\) of it hidden.*/\1/p' "$work/two-by-one.log")

printf '%-26s %12s\n' "$family: set-up ($steps steps)" "tokens/s"
printf '%-26s %12s\n' "1 process x 1 thread" "$one" "1 process x 2 threads" "$two_threads" \
  "2 processes x 1 thread" "$two_processes"
awk -v one="$one" -v two="$two_processes" -v threads="$two_threads" -v ms="$communication" \
    -v hidden="$hidden" \
  'BEGIN { printf "scaling efficiency (2 x 1 vs 1 x 1): %.2f\n", two / (2 * one);
           printf "2 processes vs 2 threads: %.2fx\n", two / threads;
           printf "gradients in flight on rank 0: %s ms a step, %s of it hidden behind backward\n",
                  ms, hidden }'
