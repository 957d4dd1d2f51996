#!/usr/bin/env bash
# tests/examples/translate_mpi.sh BINARY WORK_DIR MPIEXEC... — atencion-translate train under
# mpiexec (docs/13-data-parallel.md#the-translator-on-n-processes): MPIEXEC... is the launcher
# up to its process-count flag ("mpiexec --oversubscribe -n"). Checks that
#   * 2 processes train, log and checkpoint once (rank 0), and a run stopped at step 3 and
#     resumed on 2 processes ends with the same bytes as an uninterrupted one;
#   * a checkpoint of 2 processes resumes on 1 and on 3;
#   * a batch smaller than the number of processes is refused with a message;
#   * one process failing ends the whole job with its message instead of a hang.
set -euo pipefail
binary=$1
work=$2
mpi=("${@:3}")
source "$(dirname "$0")/tiny_pairs.sh"
fresh_work_dir "$work"
fail() { echo "FAILED: $1"; [[ -f ${2:-} ]] && cat "$2"; exit 1; }
# No dropout: a resumed run draws other dropout masks (the checkpoint does not keep them).
# The paper's schedule: with --schedule linear (the default) a run stopped by --steps 3 decays
# to step 3, so resuming it to step 6 is another run than one given --steps 6 from the start
# (docs/11-training.md#decay-to-the-end); what is checked here is the processes' exactness.
train=("$binary" train "${TINY_MODEL[@]}" --dropout 0 --log-every 2 --schedule inverse-sqrt)

timeout 120 "${mpi[@]}" 2 "${train[@]}" --data "$work/pairs.tsv" --out "$work/whole" --steps 6 \
  --checkpoint-every 3 > "$work/whole.log" 2>&1 || fail "2 processes, 6 steps" "$work/whole.log"
(( $(grep -c "^checkpoint: " "$work/whole.log") == 2 )) ||
  fail "rank 0 alone should report the checkpoints of steps 3 and 6" "$work/whole.log"
(( $(grep -c " tok/s " "$work/whole.log") == 3 )) ||
  fail "rank 0 alone should log steps 2, 4 and 6" "$work/whole.log"
grep -q "^data parallel: 2 processes, communication " "$work/whole.log" ||
  fail "no communication summary" "$work/whole.log"

timeout 120 "${mpi[@]}" 2 "${train[@]}" --data "$work/pairs.tsv" --out "$work/split" --steps 3 \
  > "$work/first.log" 2>&1 || fail "2 processes, 3 steps" "$work/first.log"
cp -r "$work/split" "$work/split-on-1"
cp -r "$work/split" "$work/split-on-3"
timeout 120 "${mpi[@]}" 2 "$binary" train --out "$work/split" --resume --steps 6 \
  > "$work/second.log" 2>&1 || fail "resume on 2 processes" "$work/second.log"
grep -q "resumed $work/split at step 3 " "$work/second.log" ||
  fail "did not resume at step 3" "$work/second.log"
for file in model.safetensors optimizer.safetensors; do
  cmp "$work/whole/step-00000006/$file" "$work/split/step-00000006/$file" ||
    fail "$file after a resume differs from the uninterrupted run's"
done

"$binary" train --out "$work/split-on-1" --resume --steps 5 > "$work/on-1.log" 2>&1 ||
  fail "resume on 1 process" "$work/on-1.log"
timeout 120 "${mpi[@]}" 3 "$binary" train --out "$work/split-on-3" --resume --steps 5 \
  > "$work/on-3.log" 2>&1 || fail "resume on 3 processes" "$work/on-3.log"
for n in 1 3; do
  [[ $(cat "$work/split-on-$n/latest") == step-00000005 ]] ||
    fail "the resumed run on $n process(es) did not reach step 5" "$work/on-$n.log"
done

# Batches of one or two sentences cannot be shared by 2 processes.
if timeout 120 "${mpi[@]}" 2 "$binary" train --vocab 100 --d-model 16 --heads 2 \
     --encoder-layers 1 --decoder-layers 1 --d-ff 32 --data "$work/pairs.tsv" \
     --out "$work/small" --max-tokens 10 --steps 2 > "$work/small.log" 2>&1; then
  fail "a batch smaller than the number of processes was accepted" "$work/small.log"
fi
grep -q "is too small to share: 1 sentence(s) for 2 processes; raise --max-tokens (now 10)" \
  "$work/small.log" || fail "no clear message for a batch too small" "$work/small.log"

# Rank 1 cannot read its data while rank 0 goes on to wait for it: the job must end.
status=0
timeout 60 "${mpi[@]}" 1 "${train[@]}" --data "$work/pairs.tsv" --out "$work/broken" --steps 2 : \
  "${mpi[-1]}" 1 "${train[@]}" --data "$work/missing.tsv" --out "$work/broken" --steps 2 \
  > "$work/broken.log" 2>&1 || status=$?
(( status != 0 && status != 124 )) ||
  fail "a failing process should end the job with an error (status $status)" "$work/broken.log"
grep -q "rank 1 of 2: atencion-translate: .*$work/missing.tsv" "$work/broken.log" ||
  fail "the failing process's message is missing" "$work/broken.log"
echo "2 processes train, resume exactly, resume on 1 and 3, refuse small batches, end on failure"
