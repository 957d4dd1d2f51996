#!/usr/bin/env bash
# tests/examples/gpt_finetune.sh BINARY WORK_DIR FIXTURE_DIR — atencion-gpt from weights
# (docs/18-finetuning.md#the-gpt-instruction-fine-tuning): train --init-from a run of ours and
# --gpt2 the tiny GPT-2 fixture on a new text, each an exact resume; flags the weights contradict
# refused in one line; and the instruction fine-tune (--task translate) on tiny pairs, then eval
# (BLEU on the test split) and sample --translate.
set -euo pipefail
binary=$1
work=$2
fixture=$3
source "$(dirname "$0")/tiny_pairs.sh"
fresh_work_dir "$work"
fail() { echo "FAILED: $*"; exit 1; }
for i in $(seq 1 300); do echo "the cat $((i % 7)) sat on the mat $((i % 5))."; done > "$work/a.txt"
for i in $(seq 1 300); do echo "a dog $((i % 3)) ran to the park $((i % 4))."; done > "$work/b.txt"
tiny=(--context 32 --d-model 16 --heads 2 --layers 2 --batch-size 4 --warmup 10 --eval-tokens 256)
run() { "$binary" --threads 1 "$@" > "$work/log" 2>&1 || { cat "$work/log"; fail "$*"; }; }

# A run of ours, then a run from its weights on another text: a new directory, its config from
# the weights, and an exact resume.
run train "${tiny[@]}" --text "$work/a.txt" --out "$work/base" --steps 10
run train --init-from "$work/base" --text "$work/b.txt" --batch-size 4 --eval-tokens 256 \
  --out "$work/whole" --steps 8 --checkpoint-every 4
grep -q '"init_from"' "$work/whole/step-00000008/config.json" || fail "no init_from in config.json"
grep -q '"d_model": 16' "$work/whole/step-00000008/config.json" || fail "the shape is not the weights'"
run train --init-from "$work/base" --text "$work/b.txt" --batch-size 4 --eval-tokens 256 \
  --out "$work/halves" --steps 4
run train --out "$work/halves" --steps 8 --resume
cmp "$work/whole/step-00000008/model.safetensors" "$work/halves/step-00000008/model.safetensors" \
  || fail "a resumed fine-tune differs from one run straight through"
cmp -s "$work/base/step-00000010/model.safetensors" "$work/whole/step-00000008/model.safetensors" && fail "the weights did not move"

# LoRA (--lora-rank): only the adapters in the checkpoint, with the base's checksum; an exact
# resume; merge folds them in, and the merged model scores as the adapted one; adapters on a base
# whose weights changed are refused in one line.
cp -r "$work/base" "$work/base-copy"
lora=(--init-from "$work/base-copy" --text "$work/b.txt" --batch-size 4 --eval-tokens 256
      --lora-rank 4 --lora-alpha 8 --lora-targets q_proj,v_proj,out_proj --lr 3e-3 --warmup 2)
run train "${lora[@]}" --out "$work/l-whole" --steps 6 --checkpoint-every 3
grep -q "trainable: 768 of 11968 parameters" "$work/log" || { cat "$work/log"; fail "trainable line"; }
grep -q '"lora_rank": 4' "$work/l-whole/step-00000006/config.json" || fail "no finetune record"
grep -q '"checksum"' "$work/l-whole/step-00000006/config.json" || fail "no base checksum"
[[ $(stat -c %s "$work/l-whole/step-00000006/model.safetensors") -lt 8000 ]] \
  || fail "the LoRA checkpoint holds more than the adapters"
run train "${lora[@]}" --out "$work/l-halves" --steps 3
run train --out "$work/l-halves" --steps 6 --resume
cmp "$work/l-whole/step-00000006/model.safetensors" "$work/l-halves/step-00000006/model.safetensors" \
  || fail "a resumed LoRA fine-tune differs from one run straight through"
run merge --model "$work/l-whole" --out "$work/l-merged"
"$binary" eval --model "$work/l-whole" --text "$work/b.txt" > "$work/e-adapted"
"$binary" eval --model "$work/l-merged" --text "$work/b.txt" > "$work/e-merged"
cmp "$work/e-adapted" "$work/e-merged" || { cat "$work/e-adapted" "$work/e-merged"; fail "merged scores differ"; }
cmp -s "$work/e-adapted" <("$binary" eval --model "$work/base-copy" --text "$work/b.txt") \
  && fail "the adapters changed nothing"
rm -rf "$work/base-copy/step-00000010" && cp -r "$work/whole/step-00000008" "$work/base-copy/step-00000010"

# GPT-2's files: the tokenizer comes along into the checkpoints, and the run resumes exactly.
gpt2=(--gpt2 "$fixture" --text "$work/a.txt" --batch-size 2 --eval-tokens 64)
run train "${gpt2[@]}" --out "$work/g-whole" --steps 4 --checkpoint-every 2
run train "${gpt2[@]}" --out "$work/g-halves" --steps 2
run train --out "$work/g-halves" --steps 4 --resume
cmp "$work/g-whole/step-00000004/model.safetensors" "$work/g-halves/step-00000004/model.safetensors" \
  || fail "a resumed --gpt2 fine-tune differs from one run straight through"
run sample --model "$work/g-whole" --max-new-tokens 4 --seed 1 "the cat"

# Flags the weights contradict: one line each.
refused() {  # refused EXPECTED-TEXT COMMAND...
  local expected=$1; shift
  if "$@" > "$work/out" 2> "$work/err"; then fail "accepted: $*"; fi
  [[ $(wc -l < "$work/err") == 1 ]] || { cat "$work/err"; fail "not one line: $*"; }
  grep -qF -- "$expected" "$work/err" || { cat "$work/err"; fail "expected '$expected': $*"; }
}
refused "--d-model 32: the weights in $work/base/step-00000010 have d_model 16" \
  "$binary" train --init-from "$work/base" --d-model 32 --heads 2 --text "$work/b.txt" --out "$work/x"
refused "--context 64: the weights in $fixture have context 16" \
  "$binary" train --gpt2 "$fixture" --context 64 --text "$work/b.txt" --out "$work/x"
refused "--tokenizer sentencepiece: the weights in $fixture come with gpt2 tokens" \
  "$binary" train --gpt2 "$fixture" --tokenizer sentencepiece --text "$work/b.txt" --out "$work/x"
refused "these adapters were trained on base" "$binary" eval --model "$work/l-whole" --text "$work/b.txt"
refused "--lora-rank: a fine-tune's flag (start from weights with --init-from DIR or --gpt2 DIR)" \
  "$binary" train "${tiny[@]}" --text "$work/a.txt" --lora-rank 4 --out "$work/x"
refused "--init-from excludes --gpt2" \
  "$binary" train --gpt2 "$fixture" --init-from "$work/base" --out "$work/x"

# The instruction fine-tune: pairs as "Spanish: … English: …", the loss on the answers.
run train --task translate --text "$work/pairs.tsv" --context 64 --d-model 32 --heads 2 \
  --layers 2 --batch-size 8 --warmup 20 --eval-tokens 0 --out "$work/t" --steps 30
grep -q "instructions to train on" "$work/log" || fail "no instruction data line"
"$binary" eval --model "$work/t" --samples 1 > "$work/eval" || fail "eval of a translate run"
grep -Eq "^BLEU = [0-9.]+" "$work/eval" || { cat "$work/eval"; fail "no BLEU"; }
grep -q "pairs of the test split" "$work/eval" || fail "not the test split"
printf 'El gato come pan.\nEl perro ve agua.\n' | "$binary" sample --model "$work/t" --translate \
  --max-new-tokens 30 > "$work/translations" || fail "sample --translate"
[[ $(wc -l < "$work/translations") == 2 ]] || { cat "$work/translations"; fail "not one line a sentence"; }
echo "ok"
