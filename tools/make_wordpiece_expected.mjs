// tools/make_wordpiece_expected.mjs — writes tests/fixtures/bert-tiny/wordpiece_expected.jsonl:
// for many strings, the pieces Hugging Face's own JavaScript tokenizer (@huggingface/tokenizers,
// an implementation independent of ours) gives with BERT's uncased settings and the fixture's
// vocab.txt. tests/examples/bert/test_wordpiece.cpp checks examples/bert/wordpiece.cpp against
// them. docs/16-bert.md#wordpiece
//
//   cd tools && npm install --no-save @huggingface/tokenizers@0.2.0 && \
//     node make_wordpiece_expected.mjs && rm -rf node_modules
// (npm is used once, to make the file; the tests need neither npm nor the network.)
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Tokenizer } from "@huggingface/tokenizers";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "..", "tests", "fixtures", "bert-tiny");
const pieces = readFileSync(join(fixture, "vocab.txt"), "utf8").split("\n").slice(0, -1);
const vocab = Object.fromEntries(pieces.map((piece, id) => [piece, id]));

// bert-base-uncased's tokenizer.json, with the fixture's vocabulary.
const tokenizer = new Tokenizer({
  version: "1.0",
  added_tokens: [],
  normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true,
                strip_accents: null, lowercase: true },
  pre_tokenizer: { type: "BertPreTokenizer" },
  post_processor: null,
  decoder: { type: "WordPiece", prefix: "##", cleanup: true },
  model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##",
           max_input_chars_per_word: 100, vocab },
}, {});

// Hand-picked cases: each rule of the basic tokenizer and of the longest match.
const cases = [
  "I gave the dog a bone because it was hungry",
  "Unaffable", "unaffable playing played plays", "HELLO, World!", "hello...world",
  "Café naïve résumé", "ÀÉÎÕÜ àéîõü ñ Ñ ç", "Me gusta leer los libros.", "¿Qué? ¡Sí!",
  "don't can't he's", "new-york city's", "«quoted» — dash…", "$100 & 50% off #1 @bert",
  "a\tb\nc\r\nd", "  spaced   out  ", "", "你好中文", "日本语的字", "中a文b", "ひらがなカタカナ",
  "한", "αβγδ ΑΒΓΔ", "абвгд АБВГД", "tokenization tokenizer tokenize",
  "xyzzy", "q".repeat(100), "q".repeat(101), "a".repeat(150) + " dog",
  "bert\u0000model", "attention\u200bhead", "word\u00a0piece", "zero\u2002width", "\ufffdbad",
  "e\u0301 (combining accent)", "ﬁ ligature", "İstanbul", "ǅemal", "straße", "Ωhm",
  "1,000.50", "[MASK] is not special here", "a[b]c{d}e|f~g`h^i_j",
];

// Many more, drawn from a seeded generator: words, case, accents, punctuation, CJK, spaces.
let state = 20181011;
const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (list) => list[Math.floor(next() * list.length)];
const atoms = [...pieces.filter((p) => !p.startsWith("##") && !p.startsWith("[")),
               "É", "Ö", "ñ", "Ç", "x", "zz", "ß", "ŝ", "İ", "你", "字", "ア", "β", "Д",
               "\u0301", "\u00a0", "\t", ".", ",", "!", "?", "¿", "—", "'", "\"", "(", ")"];
const joins = [" ", " ", " ", "", "-", "  ", "\n"];
for (let i = 0; i < 400; ++i) {
  let text = "";
  const count = 1 + Math.floor(next() * 8);
  for (let w = 0; w < count; ++w) {
    let atom = pick(atoms);
    if (next() < 0.3) atom = atom.toUpperCase();
    text += atom + pick(joins);
  }
  cases.push(text);
}

const lines = cases.map((text) => JSON.stringify({ text, pieces: tokenizer.tokenize(text) }));
const out = join(fixture, "wordpiece_expected.jsonl");
writeFileSync(out + ".tmp", lines.join("\n") + "\n");
renameSync(out + ".tmp", out);
console.log(`wrote ${cases.length} cases to ${out}`);
