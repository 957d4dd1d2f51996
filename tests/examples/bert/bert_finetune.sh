#!/usr/bin/env bash
# tests/examples/bert/bert_finetune.sh ATENCION_BERT WORK_DIR FIXTURE_DIR — fine-tuning end to
# end on the tiny pairs: pair-task writes the task, a tiny BERT is pre-trained on its text, then
# finetune (LoRA and full) prints the held-out accuracy and confusion table, resumes exactly,
# classify scores and labels (the adapters merged), adapters on another base and flags that
# contradict the weights are refused in one line, --bert starts from the Hugging Face fixture, and
# train --bert / --init-from continue the masked-LM training from weights.
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

"$bert" pair-task --out "$work/small" --train-pairs 20 --held-out-pairs 3 > /dev/null ||
  fail "pair-task: a held-out split of 3 pairs"

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
# The classifier learns: 16 pairs (32 lines) from random weights, scored on themselves, are
# fitted (a head or a batch that could not learn would stay at 50%).
head -n 32 "$work/task/train.tsv" > "$work/few.tsv"
"$bert" --threads 1 finetune --init-from "$work/base1" --random-weights --data "$work/few.tsv" \
  --held-out "$work/few.tsv" --lr 1e-3 --warmup 10 --decay-steps 300 --steps 300 --max-tokens 256 \
  --log-every 100 --out "$work/few" > "$work/few.log"
grep -qE "^held out: accuracy (9[0-9]|100)\.[0-9]+%" "$work/few.log" ||
  fail "32 lines not fitted: $(grep 'held out' "$work/few.log")"

# train from weights: --bert (Hugging Face's files, WordPiece kept in the checkpoint as vocab.txt)
# and --init-from (a run of ours) continue the masked-LM training in a new run, exact on resume.
for i in $(seq 1 60); do echo "the cat sat on the mat and the dog ran $((i % 7)) times."; done \
  > "$work/english.txt"
from_bert=(--bert "$fixture" --text "$work/english.txt" --max-tokens 128 --warmup 2)
"$bert" --threads 1 train "${from_bert[@]}" --lr 1e-3 --out "$work/mlm-whole" --steps 4 --checkpoint-every 2 \
  > "$work/mlm.log"
grep -q "^base: $fixture (weights [0-9a-f]\{8\})" "$work/mlm.log" || fail "train --bert: no base line"
grep -q '"hidden": 24' "$work/mlm-whole/step-00000004/config.json" || fail "the shape is not the weights'"
grep -q '"peak_lr": 0.001' "$work/mlm-whole/step-00000004/config.json" || fail "no fine-tune schedule"
"$bert" --threads 1 train "${from_bert[@]}" --lr 1e-3 --out "$work/mlm-halves" --steps 2 > /dev/null
"$bert" --threads 1 train --out "$work/mlm-halves" --resume --steps 4 > /dev/null
cmp "$work/mlm-whole/step-00000004/model.safetensors" "$work/mlm-halves/step-00000004/model.safetensors" ||
  fail "a resumed train --bert differs from one run straight through"
# The loaded model is the one in the files: a step too small to move a float32 weight, saved,
# fills masks exactly as the files read directly.
"$bert" --threads 1 train "${from_bert[@]}" --lr 1e-30 --out "$work/mlm-still" --steps 1 > /dev/null
"$bert" fill-mask --bert "$fixture" --top-k 5 "the [MASK] sat on the mat." > "$work/fill-files.txt"
"$bert" fill-mask --model "$work/mlm-still" --top-k 5 "the [MASK] sat on the mat." > "$work/fill-run.txt"
cmp "$work/fill-files.txt" "$work/fill-run.txt" || fail "train --bert did not load the files' model"
"$bert" --threads 1 train --init-from "$work/base1" --text "$work/task/pretraining.txt" --steps 2 \
  --out "$work/mlm-ours" > /dev/null
grep -q '"init_from"' "$work/mlm-ours/step-00000002/config.json" || fail "no init_from"
refused "--hidden 32: the weights in $fixture have hidden 24" \
  "$bert" train --bert "$fixture" --hidden 32 --text "$work/english.txt" --out "$work/x"
refused "--layers 3: the weights in $work/base1/step-00000010 have layers 1" \
  "$bert" train --init-from "$work/base1" --layers 3 --text "$work/english.txt" --out "$work/x"
refused "--vocab: the weights in $fixture come with a vocabulary of 203" \
  "$bert" train --bert "$fixture" --vocab 90 --text "$work/english.txt" --out "$work/x"
refused "--lr: a fine-tune's flag (start from weights with --init-from DIR or --bert DIR)" \
  "$bert" train --lr 1e-3 --text "$work/english.txt" --out "$work/x"

echo "atencion-bert: pair-task, finetune (LoRA and full, resumed), classify and refusals as expected"
