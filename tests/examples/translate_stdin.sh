#!/usr/bin/env bash
# tests/examples/translate_stdin.sh BINARY WORK_DIR — `atencion-translate translate` with no
# sentence reads one sentence a line from stdin and writes one translation a line to stdout,
# nothing else; everything else it says goes to stderr.
set -euo pipefail
binary=$1
work=$2
source "$(dirname "$0")/tiny_pairs.sh"
fresh_work_dir "$work"
"$binary" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$work/run" --epochs 2 \
  > "$work/train.log" 2>&1 || { cat "$work/train.log"; exit 1; }

printf '%s\n' "El gato come pan." "¿El perro tiene agua?" "" "El niño ve leche." \
  > "$work/input.txt"
"$binary" translate --model "$work/run" < "$work/input.txt" > "$work/stdout.txt" \
  2> "$work/stderr.txt"
lines=$(wc -l < "$work/stdout.txt")
[[ $lines == 4 ]] ||
  { echo "expected 4 lines on stdout, got $lines:"; cat "$work/stdout.txt"; exit 1; }
[[ $(sed -n 3p "$work/stdout.txt") == "" ]] ||
  { echo "an empty line should give an empty line"; exit 1; }
[[ -n $(sed -n 1p "$work/stdout.txt") ]] || { echo "no translation for line 1"; exit 1; }

# The same sentences as arguments give the same translations, line for line.
"$binary" translate --model "$work/run" "El gato come pan." "¿El perro tiene agua?" \
  > "$work/arguments.txt"
diff <(sed -n '1,2p' "$work/stdout.txt") "$work/arguments.txt"
# From a pipe the lines are translated in length-sorted batches (here of 3, so that sentences of
# different lengths share a batch and are padded): each line gets what it gets alone, greedy,
# with a beam and sampled (each sentence's generator starts from the seed), and blank lines stay
# where they were.
batch_input=("Tom tiene un perro." "Hola." "" "¿Dónde está el gato negro de mi madre?" "Sí."
  "El niño ve leche." "   " "Ella no quiere comer pan con agua.")
printf '%s\n' "${batch_input[@]}" > "$work/batch_input.txt"
for decoding in "--beam 1" "--beam 3" "--sample --temperature 1.5 --top-k 20 --seed 4"; do
  # shellcheck disable=SC2086  # $decoding is several options
  "$binary" translate --model "$work/run" $decoding --batch-size 3 \
    < "$work/batch_input.txt" > "$work/batched.txt"
  : > "$work/alone.txt"
  for line in "${batch_input[@]}"; do
    if [[ -z ${line// /} ]]; then echo >> "$work/alone.txt"; continue; fi
    # shellcheck disable=SC2086
    "$binary" translate --model "$work/run" $decoding "$line" >> "$work/alone.txt"
  done
  diff "$work/alone.txt" "$work/batched.txt" ||
    { echo "$decoding: batched translations differ from one at a time"; exit 1; }
done
# Sampling repeats for a seed and changes with it.
sampled() { "$binary" translate --model "$work/run" --sample --temperature 1.5 --seed "$1" \
  < "$work/batch_input.txt"; }
diff <(sampled 4) <(sampled 4) > /dev/null || { echo "sampling differs for one seed"; exit 1; }
! diff <(sampled 4) <(sampled 5) > /dev/null || { echo "seeds 4 and 5 sample the same"; exit 1; }
# Input without a final newline still gives its last line.
printf 'El gato come pan.' | "$binary" translate --model "$work/run" > "$work/last.txt"
[[ $(wc -l < "$work/last.txt") == 1 ]] || { echo "the unterminated last line was lost"; exit 1; }
cat "$work/stdout.txt"
