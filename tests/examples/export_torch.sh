#!/usr/bin/env bash
# tests/examples/export_torch.sh BINARY LOGITS_PROGRAM WORK_DIR — tools/export_torch.py on a tiny
# trained translator: torch gives the same translations as `atencion-translate translate` and
# the same logits (tests/examples/check_torch_export.py). Skipped (exit 77, CTest's
# SKIP_RETURN_CODE) when Debian's Python cannot import torch and sentencepiece.
set -euo pipefail
binary=$1
logits_program=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3
if ! [[ -x $python ]] || ! "$python" -c 'import torch, sentencepiece' 2> /dev/null; then
  echo "SKIPPED: $python cannot import torch and sentencepiece" \
       "(Debian: apt-get install python3-torch python3-sentencepiece)"
  exit 77
fi
source "$here/tiny_pairs.sh"
fresh_work_dir "$work"
"$binary" train "${TINY_MODEL[@]}" --data "$work/pairs.tsv" --out "$work/run" --epochs 8 \
  > "$work/train.log" 2>&1 || { cat "$work/train.log"; exit 1; }

sentences=("El gato come pan." "¿El perro tiene agua?" "El niño ve leche."
           "¿El caballo quiere fruta?" "El pájaro tiene carne." "Un perro azul.")
printf '%s\n' "${sentences[@]}" | "$binary" translate --model "$work/run" --beam 1 > "$work/atencion.txt"
"$python" "$here/../../tools/export_torch.py" translate --model "$work/run" "${sentences[@]}" \
  > "$work/torch.txt"
echo "atencion-translate | tools/export_torch.py:"
paste -d '|' "$work/atencion.txt" "$work/torch.txt"
diff "$work/atencion.txt" "$work/torch.txt" ||
  { echo "the torch export translates differently"; exit 1; }
# The length rule, checked below: at most --max-length pieces.
printf '%s\n' "${sentences[@]}" > "$work/sentences.txt"
"$binary" translate --model "$work/run" --beam 1 --max-length 3 < "$work/sentences.txt" \
  > "$work/atencion-max-length-3.txt"

"$logits_program" "$work/run" "$work/logits.safetensors" "${sentences[@]}"
"$python" "$here/../../tools/export_torch.py" save --model "$work/run" --out "$work/translator.pt"
"$python" "$here/check_torch_export.py" "$work/run" "$work/logits.safetensors" \
  "$work/translator.pt" "$work/sentences.txt" "$work/atencion-max-length-3.txt"
