#!/usr/bin/env bash
# tests/examples/serve/tiny_model.sh BINARY WORK_DIR — trains the tiny translator of
# tests/examples/tiny_pairs.sh into WORK_DIR/run, once, for the serve tests (a CTest fixture).
set -euo pipefail
binary=$1
work=$2
source "$(dirname "$0")/../tiny_pairs.sh"
fresh_work_dir "$work"
"$binary" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$work/run" --epochs 2 \
  > "$work/train.log" 2>&1 || { cat "$work/train.log"; exit 1; }
