#!/usr/bin/env bash
# tests/examples/bert/bert_program.sh ATENCION_BERT WORK_DIR FIXTURE_DIR — atencion-bert end to
# end on a tiny text: train (and resume exactly), fill-mask from arguments and from stdin, eval twice
# (the same figures: the masking is seeded), show's page; --bert with the small Hugging Face
# layout fixture; and each bad input the issue lists refused in one line.
set -euo pipefail
bert=${1:?usage: bert_program.sh ATENCION_BERT WORK_DIR FIXTURE_DIR}
work=${2:?}
fixture=${3:?}
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/tiny_pairs.sh"
fresh_work_dir "$work"
cut -f1 "$work/pairs.tsv" > "$work/text.txt"
tiny=(--hidden 32 --heads 2 --layers 1 --intermediate 64 --vocab 60 --max-positions 32
      --warmup 10 --lr-factor 2 --log-every 10)
fail() { echo "FAIL: $*"; exit 1; }

"$bert" --threads 1 train --text "$work/text.txt" --out "$work/run" --steps 20 "${tiny[@]}" \
  > "$work/train.log"
grep -q "held out: masked-token accuracy" "$work/train.log" || fail "no held-out accuracy line"
# One unit of speed: the progress lines count every piece read, as the last line does.
grep -qE "step 10 loss .* [0-9]+ pieces/s eta" "$work/train.log" ||
  fail "no progress line in pieces/s: $(grep -m1 'step 10' "$work/train.log")"
grep -q " tok/s " "$work/train.log" && fail "a progress line in tok/s: $(grep -m1 'tok/s' "$work/train.log")"
grep -qE "^speed: [0-9]+ pieces/s" "$work/train.log" || fail "no speed line in pieces/s"
"$bert" --threads 1 train --out "$work/run" --resume --steps 30 > "$work/resume.log"
grep -q "step-00000030" "$work/resume.log" || fail "the resumed run did not reach step 30"
# Exact: 20 steps then 10 resumed score as 30 in one go (batches, masks and dropout restored).
"$bert" --threads 1 train --text "$work/text.txt" --out "$work/straight" --steps 30 "${tiny[@]}" \
  > /dev/null
"$bert" eval --model "$work/run" --text "$work/text.txt" > "$work/resumed-eval.txt"
"$bert" eval --model "$work/straight" --text "$work/text.txt" > "$work/straight-eval.txt"
cmp -s "$work/resumed-eval.txt" "$work/straight-eval.txt" ||
  fail "resumed run differs: $(cat "$work/resumed-eval.txt") vs $(cat "$work/straight-eval.txt")"

# fill-mask: two masks give two lines of guesses; stdin gives one block per line.
"$bert" fill-mask --model "$work/run" --top-k 3 "El [MASK] come [MASK]." > "$work/fill.txt"
[[ $(grep -c '^  \[MASK\]' "$work/fill.txt") == 2 ]] || fail "two masks, not two guess lines"
printf 'El gato ve [MASK].\n\n¿El perro quiere [MASK]?\n' |
  "$bert" fill-mask --model "$work/run" --batch-size 1 > "$work/stdin.txt"
[[ $(grep -c '^  \[MASK\] 1:' "$work/stdin.txt") == 2 ]] || fail "stdin: two sentences expected"

# eval: the same figures twice, on the run's held-out split and on a file.
"$bert" eval --model "$work/run" > "$work/eval1.txt"
"$bert" eval --model "$work/run" > "$work/eval2.txt"
cmp -s "$work/eval1.txt" "$work/eval2.txt" || fail "eval differs between two runs"
"$bert" eval --model "$work/run" --text "$work/text.txt" | grep -q "accuracy" || fail "eval --text"

"$bert" show --model "$work/run" --out "$work/show" "El gato come pan." > /dev/null
grep -q "encoder self-attention" "$work/show/explorer.html" || fail "show wrote no attention maps"

# The Hugging Face layout: fill-mask and show on the fixture's WordPiece model.
"$bert" fill-mask --bert "$fixture" "The dog gave a [MASK]." | grep -q '^  \[MASK\] 1:' ||
  fail "fill-mask --bert"

# Each bad input: exit status 1, one line on stderr naming the problem.
refused() {  # refused "expected text" command...
  local expected=$1
  shift
  if "$@" > /dev/null 2> "$work/error.txt"; then fail "accepted: $*"; fi
  [[ $(wc -l < "$work/error.txt") == 1 ]] || { cat "$work/error.txt"; fail "not one line: $*"; }
  grep -qF -- "$expected" "$work/error.txt" || { cat "$work/error.txt"; fail "'$expected' not said"; }
}
refused "no [MASK] in" "$bert" fill-mask --model "$work/run" "El gato come pan."
long=$(printf 'gato %.0s' {1..40})
refused "over the model's 32 positions" "$bert" fill-mask --model "$work/run" "$long [MASK]"
cp -r "$fixture" "$work/broken"
sed -i 's/^\[SEP\]$/[SPE]/' "$work/broken/vocab.txt"
refused "vocab.txt: no [SEP] piece" "$bert" fill-mask --bert "$work/broken" "a [MASK]."
rm "$work/broken/model.safetensors"
refused "model.safetensors does not exist" "$bert" fill-mask --bert "$work/broken" "a [MASK]."
echo "atencion-bert: train, resume, fill-mask, eval, show and the refusals as expected"
