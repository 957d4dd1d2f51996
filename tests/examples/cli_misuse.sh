#!/usr/bin/env bash
# tests/examples/cli_misuse.sh BINARY WORK_DIR — each misuse of atencion-translate is refused
# in one line on stderr, with exit status != 0, before any work is spent (nothing on stdout),
# and the message says what is wrong. (docs/12-translation.md#the-program)
set -uo pipefail
binary=$1
work=$2
source "$(dirname "$0")/tiny_pairs.sh"
fresh_work_dir "$work"
mkdir -p "$work/a-directory"
touch "$work/a-file"
cp "$work/pairs.tsv" "$work/other.tsv"
failures=0

# refused EXPECTED ARGS...: exit != 0, one line on stderr containing EXPECTED, empty stdout.
refused() {
  local expected=$1
  shift
  local status=0
  "$binary" "$@" > "$work/out" 2> "$work/err" || status=$?
  local lines
  lines=$(wc -l < "$work/err")
  if (( status == 0 )) || [[ -s "$work/out" ]] || (( lines != 1 )) ||
     ! grep -qF -- "$expected" "$work/err"; then
    echo "FAIL: $* (exit $status, $lines lines on stderr; wanted: $expected)"
    sed 's/^/  stderr: /' "$work/err" | head -5
    sed 's/^/  stdout: /' "$work/out" | head -5
    failures=$((failures + 1))
  else
    echo "ok: $* -> $(cat "$work/err")"
  fi
}

refused "--minutes: must be at least 0, not -1" train --minutes -1
refused "--port: Value 70000 not in range 0 to 65535" serve --port 70000
refused "--length-penalty: Value 11 not in range 0.000000 to 10.000000" eval --beam 4 --length-penalty 11
refused "--host: not an IPv4 or IPv6 address (e.g. 127.0.0.1, 0.0.0.0, ::1), not example.com" \
  serve --host example.com
refused "--epochs: must be at least 0, not -1" train --epochs -1
refused "--threads: Value 0 not in range 1 to 1024" --threads 0 train
refused "--threads: Value -1 not in range 1 to 1024" train --threads -1
refused "--log-every: must be at least 1, not 0" train --log-every 0
refused "--checkpoint-every: must be at least 0, not -2" train --checkpoint-every -2
refused "--lr-factor: must be above 0, not 0" train --lr-factor 0
refused "--dropout: Value 1 not in range 0.000000 to 0.990000" train --dropout 1
refused "--beam: Value 100000000 not in range 1 to 64" translate --beam 100000000 "Hola."
refused "--beam: Value 0 not in range 1 to 64" eval --beam 0
refused "--temperature requires --sample" translate --temperature 0.5 "Hola."
refused "--seed requires --sample" eval --seed 3
refused "--beam excludes --sample" translate --sample --beam 2 "Hola."
refused "--top-p: must be above 0, not 0" translate --sample --top-p 0 "Hola."
refused "--top-k: must be at least 0, not -1" eval --sample --top-k -1
refused "--data: File is actually a directory: $work/a-directory" train --data "$work/a-directory"
refused "--data: File does not exist: $work/missing.tsv" eval --data "$work/missing.tsv"
refused "--resume excludes --overwrite" train --resume --overwrite
refused "cannot write the run directory --out $work/a-file/run: Not a directory" \
  train --data "$work/pairs.tsv" --out "$work/a-file/run"
refused "load_checkpoint: $work/no-run: no such directory" translate --model "$work/no-run" "Hola."

# A run to misuse: one epoch of the tiny model. --threads after the subcommand is accepted.
run="$work/run"
"$binary" train --threads 1 "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$run" --epochs 1 \
  --checkpoint-every 0 > "$work/train.log" 2>&1 || { cat "$work/train.log"; exit 1; }
"$binary" translate --model "$run" --threads 1 "El gato come pan." > /dev/null ||
  { echo "FAIL: --threads after translate"; failures=$((failures + 1)); }

refused "$run already holds a run (its newest checkpoint: step-" \
  train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$run"
refused "pass --resume to continue it, --overwrite to replace it, or choose another --out" \
  train --out "$run"
refused "train --resume: --d-model 32 contradicts the checkpoint (d_model 16 in $run/step-" \
  train --out "$run" --resume --d-model 32
refused "train --resume: --data \"$work/other.tsv\" contradicts the checkpoint (data_path" \
  train --out "$run" --resume --data "$work/other.tsv"
refused "train --resume: --pre-norm true contradicts the checkpoint (norm_first false" \
  train --out "$run" --resume --pre-norm

# A second trainer on a run directory in use is refused and names the first one's process.
"$binary" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$work/busy" --epochs 1000 \
  --checkpoint-every 2 > "$work/busy.log" 2>&1 &
first=$!
for _ in $(seq 300); do  # up to 30 s: until its first checkpoint
  [[ -s "$work/busy/latest" ]] && break
  sleep 0.1
done
refused "train: $work/busy is in use by another trainer (process $first)" \
  train --out "$work/busy" --resume
kill -9 "$first"
wait "$first" 2>/dev/null
# The kernel dropped the dead trainer's lock: resuming now works.
"$binary" train --out "$work/busy" --resume --epochs 1 > "$work/resumed.log" 2>&1 ||
  { echo "FAIL: resume after the first trainer died"; cat "$work/resumed.log";
    failures=$((failures + 1)); }

# --overwrite replaces the run.
"$binary" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$run" --overwrite --epochs 1 \
  --checkpoint-every 30 > "$work/overwrite.log" 2>&1 ||
  { echo "FAIL: --overwrite"; cat "$work/overwrite.log"; failures=$((failures + 1)); }
grep -q "^checkpoint: $run/step-00000030 " "$work/overwrite.log" ||
  { echo "FAIL: --overwrite did not start afresh"; failures=$((failures + 1)); }

(( failures == 0 )) || { echo "$failures case(s) failed"; exit 1; }
echo "every misuse refused"
