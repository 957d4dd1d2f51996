#!/usr/bin/env bash
# tools/fuzz_seeds.sh BINARY — rewrites the generated seeds of tests/fuzz/corpus/ (the others
# are hand-written): checkpoint/tiny-model, a real checkpoint of a tiny translator trained by
# BINARY (atencion-translate) for one epoch on tests/examples/tiny_pairs.sh's 200 pairs, packed
# in the archive format of tests/fuzz/fuzz_support.h (the translate target decodes with it);
# and safetensors/every_dtype.safetensors. Run it again when the checkpoint format changes.
set -euo pipefail
binary=$(realpath "$1")
cd "$(dirname "$0")/.."
source tests/examples/tiny_pairs.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

write_tiny_pairs "$work/pairs.tsv"
"$binary" train --data "$work/pairs.tsv" --out "$work/run" --epochs 1 --vocab 60 --d-model 8 \
  --heads 2 --encoder-layers 1 --decoder-layers 1 --d-ff 16 --max-tokens 64 --warmup 10 \
  > "$work/train.log" 2>&1 || { cat "$work/train.log"; exit 1; }
checkpoint=$work/run/$(cat "$work/run/latest")
separator=$'\n--atencion-fuzz-next-file--\n'  # kFileSeparator in fuzz_support.h
# Each tokenizer model carries SentencePiece's 237 KB NFKC table (normalizer_spec's
# precompiled_charsmap, field 3.2 of the ModelProto); without it the model normalizes nothing
# and the seed is 20 KB rather than 490 KB.
strip_charsmap() {
  /usr/bin/python3 - "$1" <<'PYTHON'
import sys

def varint(data, i):
    value = shift = 0
    while True:
        byte = data[i]; i += 1
        value |= (byte & 0x7F) << shift; shift += 7
        if byte < 0x80: return value, i

def encode_varint(value):
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value: return bytes(out)

def fields(data):  # (field number, the field's bytes, its payload if length-delimited)
    i = 0
    while i < len(data):
        start = i
        key, i = varint(data, i)
        payload = None
        if key & 7 == 0: _, i = varint(data, i)
        elif key & 7 == 1: i += 8
        elif key & 7 == 5: i += 4
        else:
            length, i = varint(data, i)
            payload = data[i:i + length]; i += length
        yield key >> 3, data[start:i], payload

model = open(sys.argv[1], "rb").read()
out = bytearray()
for number, raw, payload in fields(model):
    if number == 3:  # normalizer_spec: keep all but the charsmap, name it "identity"
        spec = b"\x0a\x08identity" + b"".join(
            r for n, r, _ in fields(payload) if n not in (1, 2))
        raw = b"\x1a" + encode_varint(len(spec)) + spec
    out += raw
sys.stdout.buffer.write(bytes(out))
PYTHON
}

# The optimizer's state is left out (the last, optional file): it only doubles the seed.
for name in config.json trainer.json model.safetensors source.model target.model; do
  case $name in
    *.model) strip_charsmap "$checkpoint/$name" ;;
    *) cat "$checkpoint/$name" ;;
  esac
  printf '%s' "$separator"
done > tests/fuzz/corpus/checkpoint/tiny-model

# Every dtype, an empty tensor, a scalar and metadata, in the layout of tensor/safetensors.h.
/usr/bin/python3 - tests/fuzz/corpus/safetensors/every_dtype.safetensors <<'PYTHON'
import json, struct, sys
tensors = [("weight", "F32", [2, 2], struct.pack("<4f", 1.0, -2.5, float("inf"), 0.0)),
           ("double", "F64", [3], struct.pack("<3d", 0.1, -0.0, float("nan"))),
           ("ids", "I64", [2], struct.pack("<2q", -1, 2**62)),
           ("mask", "BOOL", [1, 3], bytes([1, 0, 1])),
           ("nothing", "F32", [0, 4], b""),
           ("scalar", "F64", [], struct.pack("<d", 3.5))]
header, data = {"__metadata__": {"format": "pt"}}, b""
for name, dtype, shape, payload in tensors:
    header[name] = {"dtype": dtype, "shape": shape,
                    "data_offsets": [len(data), len(data) + len(payload)]}
    data += payload
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<Q", len(text)) + text + data)
PYTHON
ls -l tests/fuzz/corpus/checkpoint tests/fuzz/corpus/safetensors
