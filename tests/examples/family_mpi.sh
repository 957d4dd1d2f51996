#!/usr/bin/env bash
# tests/examples/family_mpi.sh FAMILY BINARY WORK_DIR MPIEXEC... — atencion-gpt or atencion-bert
# (FAMILY: gpt or bert) train under mpiexec (docs/13-data-parallel.md#every-family-on-n-processes);
# MPIEXEC... is the launcher up to its process-count flag ("mpiexec --oversubscribe -n"). Checks:
#   * 2 processes end K steps with weights within float32 summation noise of 1 process's, and
#     with the same bytes when run again; rank 0 alone logs and writes checkpoints; the overlap
#     of communication with backward is printed;
#   * the same over TCP on loopback (--mca btl tcp,self, interface lo) gives the same bytes
#     (two processes' sum is the same in any order);
#   * a run of 2 processes stopped at step 2 goes on on 1 process like the 2-process run;
#   * a batch smaller than the number of processes is refused (GPT), and a process that fails
#     ends the job with its one line.
set -euo pipefail
family=$1
binary=$2
work=$3
mpi=("${@:4}")
here=$(cd "$(dirname "$0")" && pwd)
source "$here/tiny_pairs.sh"
fresh_work_dir "$work"
fail() { echo "FAILED: $1"; [[ -f ${2:-} ]] && cat "$2"; exit 1; }
compare() { python3 "$here/compare_weights.py" "$@"; }
# No dropout: each process draws its own masks (docs/13-data-parallel.md#determinism).
case $family in
  gpt)
    for i in $(seq 1 300); do echo "the cat $((i % 7)) sat on the mat $((i % 5)) and looked."; done \
      > "$work/text.txt"
    tiny=(--context 16 --d-model 16 --heads 2 --layers 2 --warmup 10 --eval-tokens 256
          --dropout 0 --log-every 2)
    batch=(--batch-size 6) ;;
  bert)
    cut -f1 "$work/pairs.tsv" > "$work/text.txt"
    tiny=(--hidden 16 --heads 2 --layers 1 --intermediate 32 --vocab 60 --max-positions 32
          --warmup 10 --dropout 0 --log-every 2)
    batch=(--max-tokens 400) ;;
  *) fail "FAMILY is gpt or bert, not $family" ;;
esac
train=("$binary" --threads 1 train "${tiny[@]}" "${batch[@]}" --text "$work/text.txt")
last=(step-00000004/model.safetensors)
# Float32 sums in another grouping, through 4 Adam steps of about 1e-3 each.
tolerance=2e-5

"${train[@]}" --out "$work/one" --steps 4 > "$work/one.log" 2>&1 || fail "1 process" "$work/one.log"
for run in two again; do
  timeout 120 "${mpi[@]}" 2 "${train[@]}" --out "$work/$run" --steps 4 --checkpoint-every 2 \
    > "$work/$run.log" 2>&1 || fail "2 processes ($run)" "$work/$run.log"
done
(( $(grep -c "^checkpoint: " "$work/two.log") == 2 )) ||
  fail "rank 0 alone should report the checkpoints of steps 2 and 4" "$work/two.log"
grep -q "^data parallel: 2 processes, communication .* hidden behind backward; .*; the processes ended backward [0-9.]* ms apart (a step, on average)$" "$work/two.log" ||
  fail "no communication summary with the overlap" "$work/two.log"
grep -q "^a step, on average: forward and loss [0-9.]* ms, backward [0-9.]* ms, waiting for the gradients [0-9.]* ms, clipping and update [0-9.]* ms$" "$work/two.log" ||
  fail "no parts of a step with the wait for the gradients" "$work/two.log"
grep -q "^a step, on average: forward and loss [0-9.]* ms, backward [0-9.]* ms, clipping and update [0-9.]* ms$" "$work/one.log" ||
  fail "no parts of a step (1 process, no wait)" "$work/one.log"
for run in one two; do  # 4 steps: the median of the middle two
  grep -q "^a step, its median: [0-9.]* ms (fastest [0-9.]* ms, slowest [0-9.]* ms, 4 steps)$" \
    "$work/$run.log" || fail "no median step ($run)" "$work/$run.log"
done
for file in model.safetensors optimizer.safetensors; do
  cmp "$work/two/step-00000004/$file" "$work/again/step-00000004/$file" ||
    fail "$file differs between two runs on 2 processes"
done
compare "$work/one/$last" "$work/two/$last" "$tolerance" || fail "2 processes against 1"

# Over TCP on loopback only: Open MPI's tcp transport instead of shared memory.
timeout 120 "${mpi[@]:0:${#mpi[@]}-1}" --mca btl tcp,self --mca btl_tcp_if_include lo \
  --mca oob_tcp_if_include lo "${mpi[-1]}" 2 "${train[@]}" --out "$work/tcp" --steps 4 \
  > "$work/tcp.log" 2>&1 || fail "2 processes over TCP" "$work/tcp.log"
cmp "$work/two/$last" "$work/tcp/$last" || fail "TCP and shared memory give other weights"

# A 2-process run stopped at step 2, resumed on 1 process.
timeout 120 "${mpi[@]}" 2 "${train[@]}" --out "$work/split" --steps 2 > "$work/first.log" 2>&1 ||
  fail "2 processes, 2 steps" "$work/first.log"
"$binary" --threads 1 train --out "$work/split" --resume --steps 4 > "$work/second.log" 2>&1 ||
  fail "resume on 1 process" "$work/second.log"
grep -q "resumed $work/split at step 2 " "$work/second.log" ||
  fail "did not resume at step 2" "$work/second.log"
compare "$work/two/$last" "$work/split/$last" "$tolerance" || fail "resumed on 1 against 2"

if [[ $family == gpt ]]; then
  if timeout 120 "${mpi[@]}" 2 "$binary" --threads 1 train "${tiny[@]}" --batch-size 1 \
       --text "$work/text.txt" --out "$work/small" --steps 1 \
       > "$work/small.log" 2>&1; then
    fail "a batch smaller than the number of processes was accepted" "$work/small.log"
  fi
  grep -q "is too small to share: 1 window(s) for 2 processes; raise --batch-size (now 1)" \
    "$work/small.log" || fail "no clear message for a batch too small" "$work/small.log"
fi

# Rank 1 cannot read its text while rank 0 goes on to wait for it: the job must end.
status=0
timeout 60 "${mpi[@]}" 1 "${train[@]}" --out "$work/broken" --steps 2 : \
  "${mpi[-1]}" 1 "$binary" --threads 1 train "${tiny[@]}" "${batch[@]}" --text "$work/missing.txt" \
  --out "$work/broken" --steps 2 > "$work/broken.log" 2>&1 || status=$?
(( status != 0 && status != 124 )) ||
  fail "a failing process should end the job with an error (status $status)" "$work/broken.log"
grep -q "rank 1 of 2: atencion-$family: .*$work/missing.txt" "$work/broken.log" ||
  fail "the failing process's message is missing" "$work/broken.log"
echo "$family: 2 processes as 1, the same bytes again and over TCP, resume on 1, end on failure"
