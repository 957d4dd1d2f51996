#!/usr/bin/env bash
# tests/examples/dev_curve.sh TRANSLATE WORK_DIR — the dev curves of `train --eval-every`:
# a tiny translator (with dropout) trained 12 steps evaluates at steps 4, 8 and 12, each
# dev_history point with its training seconds, dev loss and greedy dev BLEU, the progress
# lines say them, and the weights are bit for bit those of the same run with --eval-every 0.
set -euo pipefail
translate=$1
work=$2
source "$(dirname "$0")/tiny_pairs.sh"
fresh_work_dir "$work"
train() {
  local out=$1
  shift
  "$translate" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$work/$out" \
    --steps 12 --log-every 4 --checkpoint-every 0 "$@" > "$work/$out.log" 2>&1 ||
    { cat "$work/$out.log"; exit 1; }
}
train evaluated --eval-every 4
train plain --eval-every 0
grep -q '^dev at step 4: dev loss [0-9.]*, bleu [0-9.]* (' "$work/evaluated.log" ||
  { echo "no dev line at step 4:"; cat "$work/evaluated.log"; exit 1; }
if grep -q '^dev at step' "$work/plain.log"; then
  echo "--eval-every 0 evaluated between checkpoints:"; cat "$work/plain.log"; exit 1
fi
last() { echo "$work/$1/$(cat "$work/$1/latest")"; }
python3 - "$(last evaluated)/trainer.json" << 'PY'
import json, sys
points = json.load(open(sys.argv[1]))["dev_history"]
assert [p["step"] for p in points] == [4, 8, 12], points
seconds = [p["seconds"] for p in points]
assert seconds == sorted(seconds) and seconds[0] > 0, seconds
for p in points:
    assert 0 <= p["bleu"] <= 100 and p["dev_loss"] > 0, p
PY
for file in "$(last plain)"/*.safetensors; do
  cmp "$file" "$(last evaluated)/$(basename "$file")" ||
    { echo "--eval-every changed the weights: $(basename "$file")"; exit 1; }
done
echo "dev curve: ok"
