#!/usr/bin/env bash
# tests/examples/checkpoint_kill_points.sh BINARY WORK_DIR — kill -9 atencion-translate at each
# named point of writing, publishing and rotating a checkpoint (ATENCION_TEST_KILL_AT, see
# examples/base/checkpoints/checkpoint.h). After each: `translate` loads a whole checkpoint (its
# checksums verified), and `train --resume` goes on from the newest whole one and leaves no
# leftovers. (docs/12-translation.md#checkpoints)
set -euo pipefail
binary=$1
work=$2
source "$(dirname "$0")/tiny_pairs.sh"
fresh_work_dir "$work"

# point@n: the n-th time the point is reached. Checkpoints come every 2 steps; the first
# rotation is at the third save (the best checkpoint by dev loss may be kept back).
for point in wrote-config@2 wrote-model@2 wrote-tokenizers@2 wrote-manifest@2 renamed@2 \
             wrote-latest@2 wrote-best@2 rotation-renamed@1 rotated@3; do
  run="$work/${point%@*}"
  status=0
  ATENCION_TEST_KILL_AT=$point "$binary" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" \
    --out "$run" --epochs 3 --checkpoint-every 2 --log-every 2 > "$run.log" 2>&1 || status=$?
  (( status == 137 )) || { echo "$point: not killed there (exit $status)"; cat "$run.log"; exit 1; }
  if [[ $point == rotation-renamed* ]] && ! ls -d "$run"/step-*.tmp-*-removed > /dev/null; then
    echo "$point: no checkpoint renamed aside"; exit 1
  fi
  last=$(sed -n 's|^checkpoint: .*/\(step-[0-9]*\) (dev loss .*|\1|p' "$run.log" | tail -1)
  "$binary" translate --model "$run" "¿El gato come pan?" > /dev/null 2> "$run.err" ||
    { echo "$point: no whole checkpoint after the kill"; cat "$run.err"; exit 1; }
  "$binary" train --out "$run" --resume --epochs 1 > "$run.resumed.log" 2>&1 ||
    { echo "$point: resume failed"; cat "$run.resumed.log"; exit 1; }
  resumed_at=$(sed -n 's/^resumed .* at step \([0-9]*\) .*/\1/p' "$run.resumed.log")
  # The checkpoint being written when the kill came is used if it was already published whole.
  [[ "step-$(printf %08d "$resumed_at")" == "$last" || resumed_at -gt 10#${last#step-} ]] ||
    { echo "$point: resumed at step $resumed_at, the last announced checkpoint was $last";
      exit 1; }
  if ls -d "$run"/*.tmp-* 2>/dev/null; then echo "$point: leftovers remain"; exit 1; fi
  echo "$point: killed after $last was announced; resumed at step $resumed_at"
done
