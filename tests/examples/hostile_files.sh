#!/usr/bin/env bash
# tests/examples/hostile_files.sh BINARY WORK_DIR — atencion-translate against links, special
# files and damaged runs (issue 24): it never writes through a link it did not make, never
# blocks on a FIFO or reads /dev/zero, removes only what it writes, says which checkpoint it
# passed over or loaded unchecked, and refuses the rest in one line on stderr, in seconds.
# (docs/12-translation.md#checkpoints)
set -uo pipefail
binary=$1
work=$2
source "$(dirname "$0")/tiny_pairs.sh"
fresh_work_dir "$work"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run ARGS...: the program with a 60 s bound (a FIFO read would block forever); output in
# $work/out and $work/err, exit status in $status.
run() {
  status=0
  timeout "${HOSTILE_TIMEOUT:-60}" "$binary" "$@" > "$work/out" 2> "$work/err" || status=$?
  (( status != 124 )) || fail "$* hung (killed after ${HOSTILE_TIMEOUT:-60} s)"
}

# refused EXPECTED ARGS...: exit != 0, one line on stderr containing EXPECTED, empty stdout.
refused() {
  local expected=$1
  shift
  run "$@"
  local lines
  lines=$(wc -l < "$work/err")
  if (( status == 0 )) || [[ -s "$work/out" ]] || (( lines != 1 )) ||
     ! grep -qF -- "$expected" "$work/err"; then
    fail "$* (exit $status, $lines lines on stderr; wanted: $expected)"
    sed 's/^/  stderr: /' "$work/err" | head -5
  else
    echo "ok: refused: $(cat "$work/err")"
  fi
}

# works ARGS...: exit 0; stderr is then in $work/err.
works() {
  run "$@"
  (( status == 0 )) || { fail "$* (exit $status)"; sed 's/^/  stderr: /' "$work/err" | head -5; }
}

# The run every case damages a copy of: checkpoints at steps 8 and 16, and the end (~22).
base="$work/base"
"$binary" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$base" --epochs 1 \
  --checkpoint-every 8 > "$work/base.log" 2>&1 || { cat "$work/base.log"; exit 1; }
newest=$(cat "$base/latest")
older=$(ls -d "$base"/step-* | xargs -n1 basename | grep -v "$newest" | tail -1)
copy() { rm -rf "$work/$1"; cp -a "$base" "$work/$1"; echo "$work/$1"; }
hola=("¿El gato come pan?")

# 1. The lock and temporary files: never written through a link.
printf 'precious\n' > "$work/victim.txt"
mkdir -p "$work/link-lock" "$work/hard-lock"
ln -s "$work/victim.txt" "$work/link-lock/lock"
refused "$work/link-lock/lock is a symbolic link" \
  train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$work/link-lock" --epochs 1
ln "$work/victim.txt" "$work/hard-lock/lock"
refused "$work/hard-lock/lock: it has other names (hard links)" \
  train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$work/hard-lock" --epochs 1
[[ $(cat "$work/victim.txt") == precious ]] || fail "the lock wrote through a link"

# 2. --overwrite removes only what train writes, and says what it kept.
run_dir=$(copy overwrite)
touch "$run_dir/best-bleu-notes.txt" "$run_dir/latest_eval.tsv" "$run_dir/step-by-step.md" \
      "$run_dir/lock.tmp-notes"
mkdir -p "$run_dir/bestiary" && touch "$run_dir/bestiary/cat.txt"
works train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$run_dir" --overwrite \
  --epochs 1 --checkpoint-every 0
for kept in best-bleu-notes.txt latest_eval.tsv step-by-step.md lock.tmp-notes bestiary/cat.txt; do
  [[ -e "$run_dir/$kept" ]] || fail "--overwrite removed the user's $kept"
done
grep -qF "overwrite: removed the run's checkpoints; kept what train does not write: \
best-bleu-notes.txt, bestiary, latest_eval.tsv, lock.tmp-notes, step-by-step.md" "$work/out" ||
  fail "--overwrite did not say what it kept: $(cat "$work/out")"
[[ ! -e "$run_dir/$older" ]] || fail "--overwrite left the old $older"

# ... and a kill part-way through it leaves whole checkpoints (or none), never a broken one.
for kill_at in overwrite-renamed@1 overwrite-renamed@2; do
  run_dir=$(copy "killed-${kill_at#*@}")
  status=0
  ATENCION_TEST_KILL_AT=$kill_at "$binary" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" \
    --out "$run_dir" --overwrite --epochs 1 > /dev/null 2>&1 || status=$?
  (( status == 137 )) || fail "$kill_at: not killed there (exit $status)"
  if [[ $kill_at == *@1 ]]; then
    works translate --model "$run_dir" "${hola[@]}"
    works train --out "$run_dir" --resume --epochs 2  # a save: it cleans the leftovers
  else  # every checkpoint was set aside: the directory holds no run, a fresh one may start
    refused "not a checkpoint" translate --model "$run_dir" "${hola[@]}"
    works train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$run_dir" --epochs 1
  fi
  if ls -d "$run_dir"/*.tmp-* 2> /dev/null; then fail "$kill_at: leftovers remain"; fi
done

# 3. A checkpoint of the current format without its manifest is refused; an older one loads
# with one line saying it is unchecked.
run_dir=$(copy no-manifest)
rm "$run_dir/$newest/manifest.json"
refused "$run_dir/$newest/manifest.json is missing: a checkpoint of format 2 always has one" \
  translate --model "$run_dir" "${hola[@]}"
refused "manifest.json is missing" train --out "$run_dir" --resume --epochs 1
sed -i '/"checkpoint_format"/d' "$run_dir/$newest/config.json"  # as written before formats
works translate --model "$run_dir" "${hola[@]}"
[[ $(wc -l < "$work/err") == 1 ]] && grep -qF "$run_dir/$newest has no manifest.json (written \
before checkpoints had one): its files are loaded unchecked" "$work/err" ||
  fail "an old checkpoint loaded without saying it is unchecked: $(cat "$work/err")"

# 4. FIFOs and devices are refused by name, never read.
run_dir=$(copy fifo-latest)
rm "$run_dir/latest" && mkfifo "$run_dir/latest"
works translate --model "$run_dir" "${hola[@]}"  # "latest" is passed over: the newest whole one
refused "$run_dir/latest is a FIFO, not the one-line file train keeps there" \
  train --out "$run_dir" --resume --epochs 1
for file in config.json model.safetensors trainer.json source.model; do
  run_dir=$(copy "fifo-$file")
  rm "$run_dir/$newest/$file" && mkfifo "$run_dir/$newest/$file"
  refused "$run_dir/$newest/$file: is a FIFO, not a regular file" \
    translate --model "$run_dir" "${hola[@]}"
  refused "$newest/$file: is a FIFO, not a regular file" train --out "$run_dir" --resume
done
run_dir=$(copy zero-model)
rm "$run_dir/$newest/model.safetensors" && ln -s /dev/zero "$run_dir/$newest/model.safetensors"
refused "model.safetensors: is a character device, not a regular file" \
  translate --model "$run_dir" "${hola[@]}"
# The same in a checkpoint from before manifests (nothing checksums it first).
rm "$run_dir/$newest/manifest.json" && sed -i '/"checkpoint_format"/d' "$run_dir/$newest/config.json"
refused "model.safetensors is a character device, not a regular file" \
  translate --model "$run_dir" "${hola[@]}"
mkfifo "$work/pairs.fifo"
refused "--data: $work/pairs.fifo is a FIFO, not a regular file" \
  train --data "$work/pairs.fifo" --out "$work/fifo-run"
refused "--data: $work/pairs.fifo is a FIFO, not a regular file" \
  eval --model "$base" --data "$work/pairs.fifo"
refused "--data: /dev/zero is a character device, not a regular file" \
  train --data /dev/zero --out "$work/zero-run"

# 5. A damaged newest checkpoint is named; --resume refuses it unless told to go on from an
# older one.
run_dir=$(copy skipped)
rm "$run_dir/$newest/config.json"
works translate --model "$run_dir" "${hola[@]}"
grep -qF "load_checkpoint: $run_dir/$newest has no config.json (incomplete or damaged): \
skipped; loading $run_dir/$older" "$work/err" || fail "the skipped checkpoint was not named: $(cat "$work/err")"
refused "train --resume: the newest checkpoint $run_dir/$newest has no config.json (incomplete \
or damaged), so the run cannot go on from it; pass --resume-from $older" \
  train --out "$run_dir" --resume --epochs 1
refused "already holds a run (its newest checkpoint: $newest)" \
  train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$run_dir" --epochs 1
works train --out "$run_dir" --resume-from "$older" --epochs 1 --checkpoint-every 0
grep -qF "resume: from $older; removed the later $newest" "$work/out" &&
  grep -qF "resumed $run_dir at step $((10#${older#step-}))" "$work/out" ||
  fail "--resume-from: $(cat "$work/out")"
refused "train --resume-from step-1: not a checkpoint name" train --out "$run_dir" --resume-from step-1
refused "train --resume-from step-00000003: $run_dir/step-00000003 is not a whole checkpoint" \
  train --out "$run_dir" --resume-from step-00000003

# 7. The small ones.
run_dir=$(copy leftover-probe)
touch "$run_dir/lock.tmp-999999"
works train --out "$run_dir" --resume --epochs 1
[[ ! -e "$run_dir/lock.tmp-999999" ]] || fail "a killed lock probe's leftover was kept"
refused "--seed: must be a whole number from 0 to 18446744073709551615, not -1" train --seed -1
refused "--seed: must be a whole number from 0 to 18446744073709551615, not 18446744073709551616" \
  train --seed 18446744073709551616
status=0
timeout 60 "$binary" translate --model "$base" < "$work" > "$work/out" 2> "$work/err" || status=$?
(( status == 1 )) && grep -qF "translate: standard input is a directory" "$work/err" ||
  fail "translate < directory (exit $status): $(cat "$work/err")"
ln -s "$work/nowhere" "$work/dangling"
refused "cannot write the run directory --out $work/dangling: it is a symbolic link to \
$work/nowhere, which does not exist" train --data "$work/pairs.tsv" --out "$work/dangling"
run_dir=$(copy latest-directory)
rm "$run_dir/latest" && mkdir "$run_dir/latest"
refused "$run_dir/latest is a directory, not the one-line file train keeps there" \
  train --out "$run_dir" --resume --epochs 1

(( failures == 0 )) || { echo "$failures case(s) failed"; exit 1; }
echo "every hostile file refused or handled"
