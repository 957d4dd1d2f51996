#!/usr/bin/python3
"""bench/bert_vs_torch.py — atencion-bert against the same BERT in PyTorch (docs/16-bert.md).

1. Pre-training for the same minutes: `atencion-bert train --minutes N` (the defaults: 4 layers of
   256, 4 heads, the Spanish side of the shipped pairs, SentencePiece pieces, batches of 2048
   padded pieces, BERT's masking, Adam with the warm-up schedule), then the same architecture,
   recipe, pieces (atencion's own SentencePiece model, through `atencion-bert tokenize --ids`),
   split and masking rule in PyTorch (torch.nn.TransformerEncoderLayer, post-norm, GELU, eps
   1e-12) for the same minutes of its training loop. Both are scored on the same held-out
   sentences with the same masked positions (BERT's masking from the fixed seed, reproduced here
   bit for bit), and both report input pieces per second of training.
2. fill-mask on a BERT-base-sized random model (12 layers of 768, 12 heads, 30,522 pieces) in
   Hugging Face's layout: `atencion-bert fill-mask --bert DIR` on N sentences from stdin, against
   PyTorch's forward + softmax + top-5 on the same padded batches, in sentences per second
   (atencion's rate without its start-up: (N2 - N1) / (t2 - t1) over two runs).

    /usr/bin/python3 bench/bert_vs_torch.py --build build --minutes 5      # the issue's figures
    /usr/bin/python3 bench/bert_vs_torch.py --build build --minutes 0.5 --fill-sentences 64   # a check

PyTorch runs at each thread count of --torch-threads for fill-mask (the best is compared) and at
the largest for training. Needs Debian's python3-torch; exits 77 without it.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("torch is not installed (Debian: python3-torch): skipped")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from make_fixtures import save_safetensors  # noqa: E402
from splitmix import SplitMix64, derive_seed, shuffle  # noqa: E402

def mask_sentence(ids, special, vocab, mask_id, seed):
    """examples/bert/masking.cpp, bit for bit: (inputs, labels)."""
    g = SplitMix64(seed)
    inputs, labels = list(ids), [-100] * len(ids)
    candidates = [i for i, piece in enumerate(ids) if piece not in special]
    chosen = [i for i in candidates if g.uniform() < 0.15]
    if not chosen and candidates:
        chosen = [candidates[g.below(len(candidates))]]
    for i in chosen:
        labels[i] = ids[i]
        draw = g.uniform()
        if draw < 0.8:
            inputs[i] = mask_id
        elif draw < 0.9:
            while True:
                piece = g.below(vocab)
                if piece not in special:
                    inputs[i] = piece
                    break
    return inputs, labels


def shipped_sentences():
    """examples/bert/text.cpp's default: the distinct Spanish sides, in file order."""
    path = os.path.join(HERE, "..", "examples", "translate", "data", "spa-eng.tsv")
    seen, out = set(), []
    with open(path, encoding="utf-8-sig") as file:
        for line in file:
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip():
                continue
            source = line.split("\t")[0].strip(" \t")
            if source not in seen:
                seen.add(source)
                out.append(source)
    return out


def split(sentences, seed=20181011):
    sentences = list(sentences)
    shuffle(sentences, SplitMix64(seed))
    held = min(1000, len(sentences) // 20 + 1)
    return sentences[held:], sentences[:held]


class Bert(torch.nn.Module):
    """examples/bert/bert.h in PyTorch: embeddings + LayerNorm, post-norm GELU layers, the tied MLM head."""

    def __init__(self, vocab, hidden=256, heads=4, layers=4, intermediate=1024, positions=128,
                 dropout=0.1):
        super().__init__()
        self.word = torch.nn.Embedding(vocab, hidden)
        self.position = torch.nn.Embedding(positions, hidden)
        self.token_type = torch.nn.Embedding(2, hidden)
        self.norm = torch.nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = torch.nn.Dropout(dropout)
        layer = torch.nn.TransformerEncoderLayer(hidden, heads, intermediate, dropout,
                                                 activation="gelu", layer_norm_eps=1e-12,
                                                 batch_first=True, norm_first=False)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.dense = torch.nn.Linear(hidden, hidden)
        self.head_norm = torch.nn.LayerNorm(hidden, eps=1e-12)
        self.bias = torch.nn.Parameter(torch.zeros(vocab))
        with torch.no_grad():  # BERT's initialisation, as bert::Bert's
            for name, p in self.named_parameters():
                if p.dim() == 2:
                    p.normal_(0, 0.02)
                elif "norm" not in name:
                    p.zero_()

    def hidden(self, ids, lengths):
        length = ids.shape[1]
        x = self.word(ids) + self.position(torch.arange(length)) + self.token_type(torch.zeros_like(ids))
        x = self.dropout(self.norm(x))
        padding = torch.arange(length)[None, :] >= lengths[:, None]  # torch: True = ignore
        return self.encoder(x, src_key_padding_mask=padding)

    def head(self, h):
        return self.head_norm(F.gelu(self.dense(h))) @ self.word.weight.T + self.bias


def padded(rows, pad=0):
    length = max(len(r) for r in rows)
    return (torch.tensor([r + [pad] * (length - len(r)) for r in rows]),
            torch.tensor([len(r) for r in rows]))


def batches_by_tokens(order, ids, max_tokens):
    batch, longest = [], 0
    for index in order:
        longest_if = max(longest, len(ids[index]))
        if batch and longest_if * (len(batch) + 1) > max_tokens:
            yield batch
            batch, longest_if = [], len(ids[index])
        batch.append(index)
        longest = longest_if
    if batch:
        yield batch


def score(model, held_out, special, vocab, mask_id, max_tokens=2048):
    """examples/bert/masked_lm.cpp's score_masked: the same positions, the same figures."""
    model.eval()
    total, correct, masked = 0.0, 0, 0
    with torch.no_grad():
        for batch in batches_by_tokens(range(len(held_out)), held_out, max_tokens):
            pairs = [mask_sentence(held_out[i], special, vocab, mask_id, derive_seed(15, i)) for i in batch]
            ids, lengths = padded([p[0] for p in pairs])
            labels, _ = padded([p[1] for p in pairs], -100)
            rows = labels.reshape(-1) != -100
            logits = model.head(model.hidden(ids, lengths).reshape(-1, model.word.weight.shape[1])[rows])
            targets = labels.reshape(-1)[rows]
            total += F.cross_entropy(logits, targets, reduction="sum").item()
            correct += (logits.argmax(-1) == targets).sum().item()
            masked += len(targets)
    model.train()
    return total / masked, correct / masked, masked


def train_torch(train_ids, held_out, vocab, minutes, threads, seed=1, max_tokens=2048):
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    mask_id = vocab - 1
    special = {0, 1, 2, 3, mask_id}
    model = Bert(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    warmup, factor, d = 200, 0.5, 256
    step, pieces, epoch, start = 0, 0, 0, time.perf_counter()
    g = SplitMix64(seed)
    while time.perf_counter() - start < minutes * 60:
        # Shuffle, sort by length in pools, cut by tokens, shuffle the batches (as BatchStream).
        order = list(range(len(train_ids)))
        shuffle(order, g)
        order.sort(key=lambda i: len(train_ids[i]))
        plan = list(batches_by_tokens(order, train_ids, max_tokens))
        shuffle(plan, g)
        epoch_seed = derive_seed(seed, epoch + 1)
        for batch in plan:
            if time.perf_counter() - start >= minutes * 60:
                break
            pairs = [mask_sentence(train_ids[i], special, vocab, mask_id, derive_seed(epoch_seed, i)) for i in batch]
            ids, lengths = padded([p[0] for p in pairs])
            labels, _ = padded([p[1] for p in pairs], -100)
            rows = labels.reshape(-1) != -100
            step += 1
            for group in optimizer.param_groups:
                group["lr"] = factor * d ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
            optimizer.zero_grad()
            hidden = model.hidden(ids, lengths).reshape(-1, d)[rows]
            loss = F.cross_entropy(model.head(hidden), labels.reshape(-1)[rows])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            pieces += int(lengths.sum())
        epoch += 1
    seconds = time.perf_counter() - start
    loss, accuracy, masked = score(model, held_out, special, vocab, mask_id)
    return {"accuracy": accuracy, "loss": loss, "masked": masked, "pieces_per_s": pieces / seconds,
            "steps": step, "seconds": seconds}


def train_atencion(program, minutes, out, threads):
    command = [program, "--threads", str(threads), "train", "--minutes", str(minutes), "--out", out,
               "--overwrite", "--checkpoint-every", "0"]
    log = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    held = re.search(r"held out: masked-token accuracy ([\d.]+)%, loss ([\d.]+) over (\d+)", log)
    speed = re.search(r"speed: (\d+) pieces/s over ([\d.]+) s of training \((\d+) steps\)", log)
    text = re.search(r"text: (\d+) training sentences, (\d+) held out", log)
    return {"accuracy": float(held.group(1)) / 100, "loss": float(held.group(2)),
            "masked": int(held.group(3)), "pieces_per_s": float(speed.group(1)),
            "seconds": float(speed.group(2)), "steps": int(speed.group(3)),
            "sentences": (int(text.group(1)), int(text.group(2)))}


def tokenize(program, run_dir, sentences):
    ids = subprocess.run([program, "tokenize", "--ids", "--model", run_dir], input="\n".join(sentences) + "\n",
                         check=True, capture_output=True, text=True).stdout.splitlines()
    return [[int(x) for x in line.split()] for line in ids]


def latest_config(run_dir):
    steps = sorted(d for d in os.listdir(run_dir) if d.startswith("step-"))
    with open(os.path.join(run_dir, steps[-1], "config.json")) as file:
        return json.load(file)


def compare_training(program, minutes, threads, work):
    print(f"== pre-training for {minutes} minutes on the default text ==", flush=True)
    ours = train_atencion(program, minutes, os.path.join(work, "atencion"), threads)
    run_dir = os.path.join(work, "atencion")
    vocab = latest_config(run_dir)["model"]["vocab"]
    max_positions = latest_config(run_dir)["model"]["max_positions"]
    train_text, held_text = split(shipped_sentences())
    assert (len(train_text), len(held_text)) == ours["sentences"], (
        f"the split differs: {len(train_text)}/{len(held_text)} here, {ours['sentences']} in atencion")
    train_ids = [s for s in tokenize(program, run_dir, train_text) if len(s) <= max_positions]
    held_ids = [s for s in tokenize(program, run_dir, held_text) if len(s) <= max_positions]
    theirs = train_torch(train_ids, held_ids, vocab, minutes, threads)
    assert theirs["masked"] == ours["masked"], "the held-out masking differs from atencion's"
    print(f"| {minutes} min, {threads} threads | held-out masked-token accuracy | loss | pieces/s | steps |")
    print("|---|---|---|---|---|")
    for name, r in (("atencion-bert", ours), (f"PyTorch {torch.__version__}", theirs)):
        print(f"| {name} | {100 * r['accuracy']:.2f}% | {r['loss']:.4f} | {r['pieces_per_s']:.0f} | {r['steps']} |")
    print(f"atencion / PyTorch pieces/s: {ours['pieces_per_s'] / theirs['pieces_per_s']:.2f}x "
          f"({ours['masked']} masked held-out pieces, the same positions for both)\n", flush=True)


def write_bert_base(directory, generator):
    words = [f"w{i}" for i in range(30522 - 106)]
    pieces = ["[PAD]"] + [f"[unused{i}]" for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "##a"] + words
    with open(os.path.join(directory, "vocab.txt"), "w") as file:
        file.write("".join(p + "\n" for p in pieces))
    hidden, inter, vocab = 768, 3072, len(pieces)
    w = {}

    def normal(*shape):
        return torch.randn(*shape, generator=generator) * 0.02

    def linear(name, rows, columns):
        w[name + ".weight"], w[name + ".bias"] = normal(rows, columns), torch.zeros(rows)

    def norm(name):
        w[name + ".weight"], w[name + ".bias"] = torch.ones(hidden), torch.zeros(hidden)

    w["bert.embeddings.word_embeddings.weight"] = normal(vocab, hidden)
    w["bert.embeddings.position_embeddings.weight"] = normal(512, hidden)
    w["bert.embeddings.token_type_embeddings.weight"] = normal(2, hidden)
    norm("bert.embeddings.LayerNorm")
    for layer in range(12):
        p = f"bert.encoder.layer.{layer}."
        for part in ("query", "key", "value"):
            linear(p + "attention.self." + part, hidden, hidden)
        linear(p + "attention.output.dense", hidden, hidden)
        norm(p + "attention.output.LayerNorm")
        linear(p + "intermediate.dense", inter, hidden)
        linear(p + "output.dense", hidden, inter)
        norm(p + "output.LayerNorm")
    linear("cls.predictions.transform.dense", hidden, hidden)
    norm("cls.predictions.transform.LayerNorm")
    w["cls.predictions.bias"] = torch.zeros(vocab)
    save_safetensors(os.path.join(directory, "model.safetensors"), w, {"format": "pt"})
    with open(os.path.join(directory, "config.json"), "w") as file:
        json.dump({"num_attention_heads": 12, "layer_norm_eps": 1e-12, "hidden_act": "gelu"}, file)
    return vocab


def fill_mask_sentences(count, generator, words=30416):
    sentences, ids = [], []
    for _ in range(count):
        n = 8 + int(torch.randint(0, 8, (1,), generator=generator))
        chosen = [int(x) for x in torch.randint(0, words, (n,), generator=generator)]
        where = int(torch.randint(0, n, (1,), generator=generator))
        text = " ".join("[MASK]" if i == where else f"w{c}" for i, c in enumerate(chosen))
        sentences.append(text)
        ids.append([101] + [103 if i == where else 106 + c for i, c in enumerate(chosen)] + [102])
    return sentences, ids


def time_atencion_fill(program, directory, sentences, batch, threads):
    start = time.perf_counter()
    subprocess.run([program, "--threads", str(threads), "fill-mask", "--bert", directory, "--batch-size", str(batch)],
                   input="\n".join(sentences) + "\n", check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def time_torch_fill(model, ids, batch, threads):
    torch.set_num_threads(threads)
    model.eval()
    start = time.perf_counter()
    with torch.no_grad():
        for first in range(0, len(ids), batch):
            rows = ids[first:first + batch]
            tokens, lengths = padded(rows)
            hidden = model.hidden(tokens, lengths)
            masked = hidden[tokens == 103]
            torch.softmax(model.head(masked), -1).topk(5, dim=-1)
    return time.perf_counter() - start


def compare_fill_mask(program, count, batch, thread_counts, work):
    print(f"== fill-mask, BERT-base-sized random model, {count} sentences, batches of {batch} ==", flush=True)
    generator = torch.Generator().manual_seed(7)
    directory = os.path.join(work, "bert-base-random")
    os.makedirs(directory, exist_ok=True)
    vocab = write_bert_base(directory, generator)
    sentences, ids = fill_mask_sentences(count, generator)
    few = max(1, batch // 4)
    model = Bert(vocab, hidden=768, heads=12, layers=12, intermediate=3072, positions=512, dropout=0)
    print("| threads | atencion-bert sentences/s | PyTorch sentences/s | ratio |")
    print("|---|---|---|---|")
    for threads in thread_counts:
        t_many = time_atencion_fill(program, directory, sentences, batch, threads)
        t_few = time_atencion_fill(program, directory, sentences[:few], batch, threads)
        ours = (count - few) / max(t_many - t_few, 1e-9)
        time_torch_fill(model, ids[:batch], batch, threads)  # warm-up
        theirs = count / time_torch_fill(model, ids, batch, threads)
        print(f"| {threads} | {ours:.1f} | {theirs:.1f} | {ours / theirs:.2f}x |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="for training, both sides")
    parser.add_argument("--torch-threads", default="", help="fill-mask thread counts (default: 1 and --threads)")
    parser.add_argument("--fill-sentences", type=int, default=512)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--skip-training", action="store_true")
    args = parser.parse_args()
    program = os.path.join(args.build, "examples", "bert", "atencion-bert")
    threads = sorted({int(t) for t in args.torch_threads.split(",") if t} or {1, args.threads})
    print(f"CPU: {cpu_model()}, {os.cpu_count()} cores; PyTorch {torch.__version__}\n")
    with tempfile.TemporaryDirectory(prefix="bert-vs-torch-") as work:
        if not args.skip_training:
            compare_training(program, args.minutes, args.threads, work)
        compare_fill_mask(program, args.fill_sentences, args.batch_size, threads, work)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as file:
            for line in file:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
