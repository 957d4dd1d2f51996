#!/usr/bin/env bash
# tests/examples/bert/bert_finetune.sh ATENCION_BERT WORK_DIR FIXTURE_DIR — fine-tuning end to
# end on the tiny pairs: pair-task writes the task, a tiny BERT is pre-trained on its text, then
# finetune (LoRA and full) prints the held-out accuracy and confusion table, resumes exactly,
# classify scores and labels (the adapters merged), adapters on another base and flags that
# contradict the weights are refused in one line, and --bert starts from the Hugging Face fixture.
set -euo pipefail
bert=${1:?usage: bert_finetune.sh ATENCION_BERT WORK_DIR FIXTURE_DIR}
work=${2:?}
fixture=${3:?}
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/tiny_pairs.sh"
fresh_work_dir "$work"
export ATENCION_TRANSLATE_DATA="$work/pairs.tsv"  # the pair task from the tiny pairs
fail() { echo "FAIL: $*"; exit 1; }
refused() {  # refused "expected text" command...
  local expected=$1
  shift
  if "$@" > /dev/null 2> "$work/error.txt"; then fail "accepted: $*"; fi
  [[ $(wc -l < "$work/error.txt") == 1 ]] || { cat "$work/error.txt"; fail "not one line: $*"; }
  grep -qF -- "$expected" "$work/error.txt" || { cat "$work/error.txt"; fail "'$expected' not said"; }
}
task=(--train-pairs 150 --held-out-pairs 20)
tiny=(--hidden 32 --heads 2 --layers 1 --intermediate 64 --vocab 80 --max-positions 48
      --log-every 10)

"$bert" pair-task --out "$work/task" "${task[@]}" > "$work/task.log"
[[ $(wc -l < "$work/task/train.tsv") == 300 && $(wc -l < "$work/task/held_out.tsv") == 40 ]] ||
  fail "pair-task: $(cat "$work/task.log")"
[[ $(grep -c $'^yes\t' "$work/task/train.tsv") == 150 ]] || fail "pair-task: not half yes"
"$bert" pair-task --out "$work/again" "${task[@]}" > /dev/null
cmp -s "$work/task/train.tsv" "$work/again/train.tsv" || fail "pair-task differs for one seed"

for seed in 1 2; do
  "$bert" --threads 1 train --text "$work/task/pretraining.txt" --out "$work/base$seed" \
    --steps 10 --seed "$seed" "${tiny[@]}" > /dev/null
done

lora=("${task[@]}" --init-from "$work/base1" --lora-rank 2 --lora-targets q_proj,v_proj --warmup 2
      --decay-steps 20 --lr 1e-3 --log-every 5)
"$bert" --threads 1 finetune "${lora[@]}" --out "$work/lora" --steps 12 > "$work/lora.log"
grep -q "^trainable: " "$work/lora.log" || fail "no trainable line"
grep -q "held out: accuracy" "$work/lora.log" || fail "no held-out accuracy"
grep -qE "^ +yes +[0-9]+ +[0-9]+$" "$work/lora.log" || fail "no confusion row: $(cat "$work/lora.log")"
# Only the adapters and the head: q and v of the 1 layer × (A, B), pooler and classifier (weight, bias).
python3 - "$work/lora/latest" "$work/lora" <<'PY'
import json, struct, sys
run = sys.argv[2]
step = open(run + "/latest").read().strip()
with open(f"{run}/{step}/model.safetensors", "rb") as f:
    header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
names = sorted(k for k in header if k != "__metadata__")
assert len(names) == 8, names
assert all("lora_" in n or n.startswith(("pooler.", "classifier.")) for n in names), names
config = json.load(open(f"{run}/{step}/config.json"))
assert len(config["base"]["checksum"]) == 8 and config["finetune"]["lora_rank"] == 2, config
PY

# Exact on resume: 8 steps then 4 resumed classify the held-out split as 12 in one go.
"$bert" --threads 1 finetune "${lora[@]}" --out "$work/part" --steps 8 > /dev/null
"$bert" --threads 1 finetune --out "$work/part" --resume --steps 12 > /dev/null
"$bert" classify --model "$work/lora" > "$work/straight.txt" 2> "$work/merge.txt"
"$bert" classify --model "$work/part" > "$work/resumed.txt" 2> /dev/null
cmp -s "$work/straight.txt" "$work/resumed.txt" ||
  fail "resumed differs: $(cat "$work/straight.txt") vs $(cat "$work/resumed.txt")"
grep -q "merged 2 LoRA adapters" "$work/merge.txt" || fail "classify did not merge"
grep -q "^held out: accuracy" "$work/straight.txt" || fail "classify: no accuracy"
"$bert" classify --model "$work/lora" "The cat eats bread." "El gato come pan." 2> /dev/null |
  grep -qE "^(yes|no)  \(no 0\.[0-9]+, yes 0\.[0-9]+\)$" || fail "classify of one pair"
"$bert" classify --model "$work/lora" --data "$work/task/held_out.tsv" 2> /dev/null |
  grep -q "accuracy" || fail "classify --data"

refused "these adapters were trained on base" \
  "$bert" classify --model "$work/lora" --init-from "$work/base2"
refused "finetune: --hidden 64 contradicts the weights' hidden 32" \
  "$bert" finetune --init-from "$work/base1" --hidden 64 --out "$work/contradict" --steps 1
refused "add_lora: target 'query' names no Linear layer" \
  "$bert" finetune "${task[@]}" --init-from "$work/base1" --lora-rank 2 --lora-targets query \
  --out "$work/badtarget" --steps 1
refused "finetune: give the weights to start from" "$bert" finetune --out "$work/none" --steps 1

# A full fine-tune saves the whole classifier; and --bert starts from Hugging Face's layout.
"$bert" --threads 1 finetune "${task[@]}" --init-from "$work/base1" --out "$work/full" --steps 3 > /dev/null
"$bert" classify --model "$work/full" | grep -q "^held out: accuracy" || fail "full fine-tune"
"$bert" --threads 1 finetune "${task[@]}" --bert "$fixture" --lora-rank 2 --out "$work/hf" --steps 3 \
  --log-every 1 > "$work/hf.log"
grep -q "held out: accuracy" "$work/hf.log" || fail "finetune --bert"
echo "atencion-bert: pair-task, finetune (LoRA and full, resumed), classify and refusals as expected"
