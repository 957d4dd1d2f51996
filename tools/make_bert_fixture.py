#!/usr/bin/python3
"""Writes tests/fixtures/bert-tiny/: a small random BERT in the layout Hugging Face publishes
bert-base-uncased in (model.safetensors under BertForMaskedLM's names, vocab.txt, config.json),
and reference.safetensors: the hidden states of the last layer and the masked-LM logits of a
padded batch, from a PyTorch forward written here from the published layout (no `transformers`
needed), in float64 and in float32.  docs/16-bert.md#berts-own-weights

    /usr/bin/python3 tools/make_bert_fixture.py            # (re)writes the fixture
    /usr/bin/python3 tools/make_bert_fixture.py --check    # recomputes, compares, exit 1 if not
                                                           # equal, 77 without torch
"""
import json
import math
import os
import sys

try:
    import torch
except ImportError:
    print("torch is not installed (Debian: python3-torch): skipped")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import save_safetensors  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "bert-tiny")
HIDDEN, HEADS, LAYERS, INTERMEDIATE, POSITIONS, TYPES, EPS = 24, 3, 2, 48, 32, 2, 1e-12

SPECIAL = ["[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = ("i gave the dog a bone because it was hungry un ##aff ##able play ##ing ##ed ##s "
         "hello world cafe naive resume he she they is are not can ##t don what who where "
         "new york city bert model attention head word piece token ##ization token ##izer "
         "me gusta leer los libros el perro come pan").split()
CHARACTERS = list("abcdefghijklmnopqrstuvwxyz0123456789") + list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
EXTRA = list("¿¡«»—…") + list("你好中文字日本") + list("αβγδ") + list("абвгд") + list("ひらがなカタカナ") + ["ᄒ", "ᅡ", "ᆫ"]


def vocabulary():
    pieces = SPECIAL + [w for w in dict.fromkeys(WORDS)]
    pieces += [c for c in CHARACTERS if c not in pieces]
    pieces += ["##" + c for c in "abcdefghijklmnopqrstuvwxyz0123456789"]
    pieces += [c for c in EXTRA if c not in pieces] + ["##" + c for c in "ひらがなカタカナ"]
    pieces += ["##" + c for c in "한"]
    return list(dict.fromkeys(pieces))  # each piece once, in first-seen order


def random_weights(vocab, generator):
    def normal(*shape, std=0.3):
        return torch.randn(*shape, generator=generator, dtype=torch.float64) * std

    w = {"bert.embeddings.word_embeddings.weight": normal(vocab, HIDDEN, std=1.0),
         "bert.embeddings.position_embeddings.weight": normal(POSITIONS, HIDDEN, std=0.5),
         "bert.embeddings.token_type_embeddings.weight": normal(TYPES, HIDDEN, std=0.5),
         "bert.embeddings.position_ids": torch.arange(POSITIONS).unsqueeze(0)}

    def norm(name):
        w[name + ".weight"] = 1 + normal(HIDDEN, std=0.1)
        w[name + ".bias"] = normal(HIDDEN, std=0.1)

    def linear(name, rows, columns):
        w[name + ".weight"] = normal(rows, columns, std=1 / math.sqrt(columns))
        w[name + ".bias"] = normal(rows, std=0.1)

    norm("bert.embeddings.LayerNorm")
    for layer in range(LAYERS):
        p = f"bert.encoder.layer.{layer}."
        for part in ("query", "key", "value"):
            linear(p + "attention.self." + part, HIDDEN, HIDDEN)
        linear(p + "attention.output.dense", HIDDEN, HIDDEN)
        norm(p + "attention.output.LayerNorm")
        linear(p + "intermediate.dense", INTERMEDIATE, HIDDEN)
        linear(p + "output.dense", HIDDEN, INTERMEDIATE)
        norm(p + "output.LayerNorm")
    linear("bert.pooler.dense", HIDDEN, HIDDEN)  # BertModel's pooler: present, not used
    linear("cls.predictions.transform.dense", HIDDEN, HIDDEN)
    norm("cls.predictions.transform.LayerNorm")
    w["cls.predictions.bias"] = normal(vocab, std=0.1)
    return w


def layer_norm(x, w, name):
    return torch.nn.functional.layer_norm(x, (HIDDEN,), w[name + ".weight"], w[name + ".bias"], EPS)


def dense(x, w, name):
    return x @ w[name + ".weight"].T + w[name + ".bias"]


def gelu(x):  # the exact form: x Φ(x)
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def forward(w, ids, lengths):
    """BertForMaskedLM's forward, written from its published structure, in w's dtype."""
    batch, length = ids.shape
    x = (w["bert.embeddings.word_embeddings.weight"][ids]
         + w["bert.embeddings.position_embeddings.weight"][:length]
         + w["bert.embeddings.token_type_embeddings.weight"][0])
    x = layer_norm(x, w, "bert.embeddings.LayerNorm")
    keys_allowed = torch.arange(length)[None, :] < torch.tensor(lengths)[:, None]  # [B, S]
    head_dim = HIDDEN // HEADS
    for layer in range(LAYERS):
        p = f"bert.encoder.layer.{layer}."

        def heads(t):
            return t.view(batch, length, HEADS, head_dim).transpose(1, 2)

        q, k, v = (heads(dense(x, w, p + "attention.self." + part)) for part in ("query", "key", "value"))
        scores = q @ k.transpose(-1, -2) / math.sqrt(head_dim)
        scores = scores.masked_fill(~keys_allowed[:, None, None, :], float("-inf"))
        context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, length, HIDDEN)
        x = layer_norm(dense(context, w, p + "attention.output.dense") + x, w, p + "attention.output.LayerNorm")
        inner = gelu(dense(x, w, p + "intermediate.dense"))
        x = layer_norm(dense(inner, w, p + "output.dense") + x, w, p + "output.LayerNorm")
    h = layer_norm(gelu(dense(x, w, "cls.predictions.transform.dense")), w, "cls.predictions.transform.LayerNorm")
    logits = h @ w["bert.embeddings.word_embeddings.weight"].T + w["cls.predictions.bias"]
    return x, logits


def make():
    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(20181011)
    pieces = vocabulary()
    weights = random_weights(len(pieces), generator)
    lengths = [9, 6]
    ids = torch.randint(6, len(pieces), (2, 9), generator=generator)
    ids[:, 0] = pieces.index("[CLS]")
    for row, n in enumerate(lengths):
        ids[row, n - 1] = pieces.index("[SEP]")
        ids[row, n:] = pieces.index("[PAD]")
    ids[0, 3] = ids[1, 2] = pieces.index("[MASK]")
    reference = {"input_ids": ids, "lengths": torch.tensor(lengths)}
    hidden, logits = forward(weights, ids, lengths)
    reference.update({"hidden_f64": hidden, "logits_f64": logits})
    weights32 = {k: (v.float() if v.is_floating_point() else v) for k, v in weights.items()}
    hidden, logits = forward(weights32, ids, lengths)
    reference.update({"hidden_f32": hidden, "logits_f32": logits})
    config = {"architectures": ["BertForMaskedLM"], "hidden_act": "gelu", "hidden_size": HIDDEN,
              "intermediate_size": INTERMEDIATE, "layer_norm_eps": EPS,
              "max_position_embeddings": POSITIONS, "model_type": "bert",
              "num_attention_heads": HEADS, "num_hidden_layers": LAYERS,
              "type_vocab_size": TYPES, "vocab_size": len(pieces)}
    return pieces, weights, config, reference


def main():
    pieces, weights, config, reference = make()
    if "--check" in sys.argv:
        from_file = load(os.path.join(OUT, "reference.safetensors"))
        worst = max((from_file[k].double() - reference[k].double()).abs().max().item() for k in reference)
        print(f"largest difference from the committed reference: {worst:.3g}")
        return 0 if worst < 1e-12 else 1
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "vocab.txt"), "w", encoding="utf-8") as file:
        file.write("".join(p + "\n" for p in pieces))
    with open(os.path.join(OUT, "config.json"), "w") as file:
        json.dump(config, file, indent=2, sort_keys=True)
        file.write("\n")
    save_safetensors(os.path.join(OUT, "model.safetensors"), weights, {"format": "pt"})
    save_safetensors(os.path.join(OUT, "reference.safetensors"), reference, {})
    return 0


def load(path):
    """A safetensors file (F64, F32, I64 only) as torch tensors."""
    import struct
    with open(path, "rb") as file:
        size = struct.unpack("<Q", file.read(8))[0]
        header = json.loads(file.read(size))
        data = file.read()
    kinds = {"F64": torch.float64, "F32": torch.float32, "I64": torch.int64}
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        out[name] = torch.frombuffer(bytearray(data[start:end]), dtype=kinds[entry["dtype"]]).reshape(entry["shape"])
    return out


if __name__ == "__main__":
    sys.exit(main())
