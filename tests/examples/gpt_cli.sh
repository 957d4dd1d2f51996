#!/usr/bin/env bash
# tests/examples/gpt_cli.sh BINARY WORK_DIR FIXTURE_DIR — atencion-gpt end to end on a tiny text:
# train, an exact resume, sample (streamed, the same for a seed at 1 and 2 threads, greedy at
# temperature 0, beam search, --dtype bf16), eval, show; GPT-2's layout from --gpt2; and the bad
# inputs of issue 20, each refused in one line.
set -euo pipefail
binary=$1
work=$2
fixture=$3
rm -rf "$work"
mkdir -p "$work"
for i in $(seq 1 300); do echo "the cat $((i % 7)) sat on the mat $((i % 5)) and looked at the dog."; done \
  > "$work/text.txt"
tiny=(--context 32 --d-model 16 --heads 2 --layers 2 --batch-size 4 --warmup 10 --log-every 5
      --eval-tokens 512 --text "$work/text.txt")
fail() { echo "FAILED: $*"; exit 1; }

# Train 20 steps in one go, and 10 + 10 with a resume: the same weights.
"$binary" --threads 1 train "${tiny[@]}" --out "$work/whole" --steps 20 --checkpoint-every 10 \
  > "$work/whole.log" 2>&1 || { cat "$work/whole.log"; fail "train"; }
grep -q "perplexity" "$work/whole.log" || fail "no perplexity in the checkpoint line"
grep -q "bits per byte" "$work/whole.log" || fail "no bits per byte in the checkpoint line"
grep -q '"bits_per_byte"' "$work/whole/step-00000020/trainer.json" || fail "no bits_per_byte in trainer.json"
"$binary" --threads 1 train "${tiny[@]}" --out "$work/halves" --steps 10 > /dev/null 2>&1
"$binary" --threads 1 train --out "$work/halves" --steps 20 --resume > "$work/resume.log" 2>&1 \
  || { cat "$work/resume.log"; fail "resume"; }
cmp "$work/whole/step-00000020/model.safetensors" "$work/halves/step-00000020/model.safetensors" \
  || fail "a resumed run differs from one run straight through"
# On --resume, a flag that would change the run is refused.
if "$binary" train --out "$work/halves" --resume --d-model 32 > "$work/err" 2>&1; then
  fail "--resume with --d-model accepted"; fi
grep -q "a resumed run keeps the settings of its checkpoint" "$work/err" || { cat "$work/err"; fail "resume flag message"; }

# sample: reproducible for a seed, the same at 1 and 2 threads; stdin as the prompt.
run=$work/whole
"$binary" --threads 1 sample --model "$run" --max-new-tokens 40 --seed 5 "the cat" > "$work/s1"
"$binary" --threads 2 sample --model "$run" --max-new-tokens 40 --seed 5 "the cat" > "$work/s2"
cmp "$work/s1" "$work/s2" || fail "sampling differs between 1 and 2 threads"
[[ $(head -c 7 "$work/s1") == "the cat" ]] || fail "the prompt is not printed first"
echo -n "the cat" | "$binary" sample --model "$run" --max-new-tokens 40 --seed 5 > "$work/s3"
cmp "$work/s1" "$work/s3" || fail "a prompt on stdin differs from the same prompt as an argument"
"$binary" sample --model "$run" --max-new-tokens 40 --seed 6 "the cat" > "$work/s4"
"$binary" sample --model "$run" --max-new-tokens 20 --temperature 0 --seed 1 "the cat" > "$work/g1"
"$binary" sample --model "$run" --max-new-tokens 20 --temperature 0 --seed 2 "the cat" > "$work/g2"
cmp "$work/g1" "$work/g2" || fail "greedy sampling depends on the seed"
# Beam search: the same at any seed and thread count; width 1 is greedy.
"$binary" --threads 1 sample --model "$run" --max-new-tokens 20 --beam 3 "the cat" > "$work/b1"
"$binary" --threads 2 sample --model "$run" --max-new-tokens 20 --beam 3 "the cat" > "$work/b2"
cmp "$work/b1" "$work/b2" || fail "beam search differs between 1 and 2 threads"
[[ $(head -c 7 "$work/b1") == "the cat" ]] || fail "beam search: the prompt is not printed first"
"$binary" sample --model "$run" --max-new-tokens 20 --beam 1 "the cat" > "$work/b3"
cmp "$work/g1" "$work/b3" || fail "--beam 1 differs from --temperature 0"
# --dtype bf16: the weights kept as bfloat16; the same greedy text as float32 on the trained run,
# at 1 and 2 threads; eval scores with it.
"$binary" --threads 1 sample --model "$run" --dtype bf16 --max-new-tokens 20 --temperature 0 "the cat" > "$work/h1"
"$binary" --threads 2 sample --model "$run" --dtype bf16 --max-new-tokens 20 --temperature 0 "the cat" > "$work/h2"
cmp "$work/h1" "$work/h2" || fail "bf16 greedy text differs between 1 and 2 threads"
cmp "$work/g1" "$work/h1" || fail "bf16 greedy text differs from float32's"
"$binary" eval --model "$run" --dtype bf16 > "$work/eval16" || fail "eval --dtype bf16"
grep -Eq "loss [0-9.]+, perplexity" "$work/eval16" || fail "eval --dtype bf16 line"
# Invalid UTF-8 is fine for bytes.
printf 'ab\xff' | "$binary" sample --model "$run" --max-new-tokens 3 > /dev/null || fail "bytes refused invalid UTF-8"

# eval and show
"$binary" eval --model "$run" > "$work/eval" || fail "eval"
grep -Eq "loss [0-9.]+, perplexity [0-9.]+, bits per byte [0-9.]+" "$work/eval" || fail "eval line"
"$binary" eval --model "$run" --text "$work/text.txt" > /dev/null || fail "eval --text"
"$binary" show --model "$run" --out "$work/show" "the cat sat" "abcabc" > /dev/null || fail "show"
grep -q "causal self-attention" "$work/show/explorer.html" || fail "no maps in explorer.html"

# GPT-2's layout
"$binary" sample --gpt2 "$fixture" --max-new-tokens 5 --seed 1 "Hello there" > /dev/null || fail "--gpt2"
"$binary" eval --gpt2 "$fixture" --text "$work/text.txt" > /dev/null || fail "eval --gpt2"

# Bad input: one line each, naming the problem.
refused() {  # refused EXPECTED-TEXT COMMAND...
  local expected=$1; shift
  if "$@" > "$work/out" 2> "$work/err"; then fail "accepted: $*"; fi
  [[ $(wc -l < "$work/err") == 1 ]] || { cat "$work/err"; fail "not one line: $*"; }
  grep -qF -- "$expected" "$work/err" || { cat "$work/err"; fail "expected '$expected': $*"; }
}
long=$(printf 'x%.0s' $(seq 1 40))
refused "the prompt is 40 tokens, longer than the model's context of 32" \
  "$binary" sample --model "$run" "$long"
[[ ! -s $work/out ]] || fail "output before the prompt-length error"
refused "--top-p: must be above 0, not 0" "$binary" sample --model "$run" --top-p 0 x
refused "--temperature: must be at least 0, not -1" "$binary" sample --model "$run" --temperature -1 x
refused "--top-k: must be at least 0, not -2" "$binary" sample --model "$run" --top-k -2 x
refused "--max-new-tokens: must be at least 0, not -5" "$binary" sample --model "$run" --max-new-tokens -5 x
refused "--temperature excludes --beam" "$binary" sample --model "$run" --beam 2 --temperature 0.5 x
refused "--seed excludes --beam" "$binary" sample --model "$run" --beam 2 --seed 3 x
refused "--beam: Value 0 not in range 1 to 64" "$binary" sample --model "$run" --beam 0 x
refused "sample --dtype bf16: bfloat16 weights need a CPU with AVX2 and FMA (this one lacks AVX2, FMA)" \
  env ATENCION_GEMM_KERNEL=generic "$binary" sample --model "$run" --dtype bf16 x
[[ ! -s $work/out ]] || fail "output before the --dtype bf16 refusal"
refused "--dtype: float16 not in {float32,bf16}" "$binary" sample --model "$run" --dtype float16 x
printf 'ab\xff' > "$work/bad.txt"
refused "gpt2 tokens: the text is not valid UTF-8 (byte offset 2)" \
  "$binary" eval --gpt2 "$fixture" --text "$work/bad.txt"
mkdir -p "$work/broken"
cp "$fixture"/{encoder.json,vocab.bpe,config.json} "$work/broken/"
refused "model.safetensors does not exist" "$binary" sample --gpt2 "$work/broken" x
echo "ok"
