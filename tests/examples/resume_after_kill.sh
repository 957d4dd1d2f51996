#!/usr/bin/env bash
# tests/examples/resume_after_kill.sh BINARY WORK_DIR — kill -9 a training run of
# atencion-translate once it has written a checkpoint; `train --resume` then finishes the run
# from that checkpoint and `translate` uses the result. (docs/12-translation.md#checkpoints)
set -euo pipefail
binary=$1
work=$2
source "$(dirname "$0")/tiny_pairs.sh"
fresh_work_dir "$work"
run="$work/run"

# Far more epochs than it will get to run: the kill ends it.
"$binary" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$run" --epochs 1000 \
  --checkpoint-every 2 --log-every 2 > "$work/first.log" 2>&1 &
trainer=$!
for _ in $(seq 600); do  # up to 60 s
  [[ -f "$run/latest" ]] && break
  sleep 0.1
done
sleep 0.3  # let it go on writing: the kill should hit mid-step or mid-save
kill -9 "$trainer"
wait "$trainer" 2>/dev/null || true
[[ -f "$run/latest" ]] || { echo "no checkpoint before the kill"; cat "$work/first.log"; exit 1; }

field() {  # field NAME: a number from the latest checkpoint's trainer.json
  local dir
  dir="$run/$(cat "$run/latest")"
  [[ -f "$dir/trainer.json" ]] || dir=$(ls -d "$run"/step-* | grep -v '\.tmp-' | tail -1)
  sed -n "s/^ \"$1\": \([0-9]*\).*/\1/p" "$dir/trainer.json"  # top level: one space
}
step=$(field step)
epoch=$(field epoch)
echo "killed after a checkpoint at step $step (epoch $epoch)"

"$binary" train --out "$run" --resume --epochs $((epoch + 2)) \
  > "$work/second.log" 2>&1 || { cat "$work/second.log"; exit 1; }
grep -q "resumed $run at step $step " "$work/second.log" ||
  { echo "did not resume at step $step"; cat "$work/second.log"; exit 1; }
if ls -d "$run"/*.tmp-* 2>/dev/null; then echo "leftovers of the killed run remain"; exit 1; fi
final_step=$(field step)
(( final_step > step )) || { echo "no steps after the resume ($final_step)"; exit 1; }
# --epochs E ends after the last batch of epoch E - 1 (counting from 0).
[[ $(field epoch) == $((epoch + 1)) ]] ||
  { echo "did not stop after epoch $((epoch + 1))"; exit 1; }

translation=$("$binary" translate --model "$run" "¿El gato come pan?")
[[ -n "$translation" ]] || { echo "empty translation"; exit 1; }
echo "resumed at step $step, finished at step $final_step; ¿El gato come pan? -> $translation"
