#!/usr/bin/python3
"""bench/gpt_vs_torch.py — atencion-gpt against the same GPT written in PyTorch, in one run.

Training: `atencion-gpt train --minutes N` on the default text (byte tokens, the default model
and recipe), then the same architecture, recipe and data in PyTorch for the same N minutes
(counted, as the program counts them, from the start including the data), with the same
evaluation schedule (a checkpoint's held-out score every 250 steps and at the end, on the first
65,536 held-out predictions). Printed for each: steps, tokens/s (training tokens over the
training loop's seconds, evaluations included on both sides) and the final held-out loss and bits
per byte.

Sampling: tokens/s generating with a key/value cache (one token per step, no top-k), for the
default model (the run just trained) and for a random GPT-2-small-sized model (12 layers,
d 768, 12 heads, vocab 50257, context 1024) saved in Hugging Face's layout and loaded with
--gpt2; PyTorch runs the same weights with its own cache (the keys and values of each layer kept
in preallocated tensors).

    /usr/bin/python3 bench/gpt_vs_torch.py --build build --minutes 5          (the issue's figure)
    /usr/bin/python3 bench/gpt_vs_torch.py --build build --minutes 0.5 --skip-gpt2   (a check)

--threads sets both sides' threads (default: all cores). The PyTorch side replicates the data
of examples/gpt/text_data.cpp exactly (the English side, SplitMix64's shuffle, the 5% split);
the script checks the byte counts against the program's "data:" line.
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

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from make_fixtures import save_safetensors  # noqa: E402
from splitmix import SplitMix64, shuffle  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# examples/gpt defaults (gpt.h, train.h)
CONTEXT, D_MODEL, HEADS, LAYERS, DROPOUT = 128, 128, 4, 4, 0.1
BATCH, WARMUP, LR_FACTOR, CLIP = 16, 200, 0.25, 1.0
EVAL_TOKENS, CHECKPOINT_EVERY, SPLIT_SEED, SEED = 65536, 250, 20180513, 1


# ---- the data, as examples/gpt/text_data.cpp makes it ---------------------------------------

def default_text():
    seen, sentences = set(), []
    with open(os.path.join(ROOT, "examples/translate/data/spa-eng.tsv"), encoding="utf-8") as file:
        for line in file:
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            english = line.split("\t")[1].strip(" ")
            if english not in seen:
                seen.add(english)
                sentences.append(english)
    shuffle(sentences, SplitMix64(SPLIT_SEED))
    return "".join(s + "\n" for s in sentences).encode("utf-8")


def split_text(text, held_out_fraction=0.05):
    cut = int(len(text) * (1 - held_out_fraction))
    line_start = text.find(b"\n", cut)
    if line_start != -1 and line_start + 1 < len(text):
        cut = line_start + 1
    return text[:cut], text[cut:]


# ---- the model: GPT-2's layout from torch.nn, as examples/gpt/gpt.cpp from nn/ --------------

def gelu_tanh(x):
    return torch.nn.functional.gelu(x, approximate="tanh")


class GPT(torch.nn.Module):
    def __init__(self, vocab, context, d, heads, layers, dropout):
        super().__init__()
        self.token_embedding = torch.nn.Embedding(vocab, d)
        self.position_embedding = torch.nn.Embedding(context, d)
        self.dropout = torch.nn.Dropout(dropout)
        self.layers = torch.nn.ModuleList(torch.nn.TransformerEncoderLayer(
            d, heads, 4 * d, dropout, activation=gelu_tanh, batch_first=True, norm_first=True)
            for _ in range(layers))
        self.final_norm = torch.nn.LayerNorm(d)
        self.register_buffer("mask", torch.triu(torch.full((context, context), float("-inf")), 1))
        for name, parameter in self.named_parameters():  # GPT-2's initialisation
            if name.endswith("bias") and "norm" not in name:
                torch.nn.init.zeros_(parameter)
            elif parameter.dim() >= 2:
                last = name.endswith("out_proj.weight") or name.endswith("linear2.weight")
                torch.nn.init.normal_(parameter, 0, 0.02 / math.sqrt(2 * layers) if last else 0.02)

    def forward(self, ids):
        length = ids.shape[1]
        x = self.dropout(self.token_embedding(ids) +
                         self.position_embedding(torch.arange(length)))
        for layer in self.layers:
            x = layer(x, src_mask=self.mask[:length, :length])
        return self.final_norm(x) @ self.token_embedding.weight.T


def torch_training(minutes, threads, start):
    torch.set_num_threads(threads)
    torch.manual_seed(SEED)
    train_text, held_out_text = split_text(default_text())
    train_tokens = torch.tensor(list(train_text))
    held_out = torch.tensor(list(held_out_text))
    model = GPT(256, CONTEXT, D_MODEL, HEADS, LAYERS, DROPOUT)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.99), eps=1e-8)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: LR_FACTOR * D_MODEL ** -0.5 * min(
        (step + 1) ** -0.5, (step + 1) * WARMUP ** -1.5))
    windows = (len(train_tokens) - 1) // CONTEXT
    evaluation = [held_out[i:i + CONTEXT + 1] for i in range(0, EVAL_TOKENS, CONTEXT)]

    def evaluate():
        model.eval()
        with torch.no_grad():
            ids = torch.stack([w[:-1] for w in evaluation])
            targets = torch.stack([w[1:] for w in evaluation])
            total = 0.0
            for i in range(0, len(ids), BATCH):
                logits = model(ids[i:i + BATCH])
                total += torch.nn.functional.cross_entropy(
                    logits.reshape(-1, 256), targets[i:i + BATCH].reshape(-1), reduction="sum").item()
        model.train()
        return total / (len(evaluation) * CONTEXT)

    deadline = start + minutes * 60
    loop_start, step, loss = time.time(), 0, float("nan")
    order = torch.randperm(windows)
    while time.time() < deadline:
        batch = (order[(step * BATCH) % (windows - BATCH):][:BATCH] * CONTEXT)[:, None] + torch.arange(CONTEXT + 1)
        chunk = train_tokens[batch]
        logits = model(chunk[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 256), chunk[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()
        schedule.step()
        step += 1
        if step % CHECKPOINT_EVERY == 0:
            evaluate()
    dev = evaluate()
    seconds = time.time() - loop_start
    return {"steps": step, "tokens_per_second": step * BATCH * CONTEXT / seconds, "dev_loss": dev,
            "train_bytes": len(train_text), "held_out_bytes": len(held_out_text)}


def atencion_training(binary, minutes, threads, out):
    result = subprocess.run([binary, "--threads", str(threads), "train", "--minutes", str(minutes),
                             "--out", out, "--overwrite"], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("atencion-gpt train failed:\n" + result.stdout + result.stderr)
    data = re.search(r"data: (\d+) bytes to train on, (\d+) held out", result.stdout)
    latest = open(os.path.join(out, "latest")).read().strip()
    trainer = json.load(open(os.path.join(out, latest, "trainer.json")))
    return {"steps": trainer["step"],
            "tokens_per_second": trainer["step"] * BATCH * CONTEXT / trainer["seconds"],
            "dev_loss": trainer["dev_loss"], "train_bytes": int(data.group(1)),
            "held_out_bytes": int(data.group(2))}


# ---- sampling with a key/value cache ---------------------------------------------------------

def gpt2_weights(config, generator):
    d, vocab, positions = config["n_embd"], config["vocab_size"], config["n_positions"]

    def normal(*shape, std=0.02):
        return torch.randn(*shape, generator=generator) * std

    w = {"wte.weight": normal(vocab, d), "wpe.weight": normal(positions, d),
         "ln_f.weight": torch.ones(d), "ln_f.bias": torch.zeros(d)}
    for i in range(config["n_layer"]):
        h = f"h.{i}."
        w.update({h + "ln_1.weight": torch.ones(d), h + "ln_1.bias": torch.zeros(d),
                  h + "attn.c_attn.weight": normal(d, 3 * d), h + "attn.c_attn.bias": torch.zeros(3 * d),
                  h + "attn.c_proj.weight": normal(d, d), h + "attn.c_proj.bias": torch.zeros(d),
                  h + "ln_2.weight": torch.ones(d), h + "ln_2.bias": torch.zeros(d),
                  h + "mlp.c_fc.weight": normal(d, 4 * d), h + "mlp.c_fc.bias": torch.zeros(4 * d),
                  h + "mlp.c_proj.weight": normal(4 * d, d), h + "mlp.c_proj.bias": torch.zeros(d)})
    return w


def write_gpt2_dir(directory, config, weights):
    os.makedirs(directory, exist_ok=True)
    save_safetensors(os.path.join(directory, "model.safetensors"), weights, {"format": "pt"})
    json.dump(config, open(os.path.join(directory, "config.json"), "w"))
    # A stand-in tokenizer of the right size: the 256 byte symbols, then "t<i>" symbols, no merges.
    printable = [b for b in range(256) if 33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255]
    symbols, shifted = [], 0
    for b in range(256):
        if b in printable:
            symbols.append(chr(b))
        else:
            symbols.append(chr(256 + shifted))
            shifted += 1
    symbols += [f"t{i}" for i in range(config["vocab_size"] - 257)] + ["<|endoftext|>"]
    json.dump({s: i for i, s in enumerate(symbols)}, open(os.path.join(directory, "vocab.json"), "w"))
    open(os.path.join(directory, "merges.txt"), "w").write("#version: 0.2\n")


def torch_sampling(weights, config, tokens, threads):
    """Tokens/s of GPT-2's forward with a cache, one token a step, from a one-token prompt."""
    torch.set_num_threads(threads)
    d, heads, layers = config["n_embd"], config["n_head"], config["n_layer"]
    head_dim = d // heads
    w = weights
    keys = torch.zeros(layers, 1, heads, tokens + 1, head_dim)
    values = torch.zeros_like(keys)
    generator = torch.Generator().manual_seed(1)

    def layer_norm(x, prefix):
        return torch.nn.functional.layer_norm(x, (d,), w[prefix + ".weight"], w[prefix + ".bias"])

    token = torch.tensor([[10]])
    with torch.no_grad():
        start = time.time()
        for position in range(tokens):
            x = w["wte.weight"][token] + w["wpe.weight"][position]
            for i in range(layers):
                h = f"h.{i}."
                qkv = layer_norm(x, h + "ln_1") @ w[h + "attn.c_attn.weight"] + w[h + "attn.c_attn.bias"]
                q, k, v = (t.view(1, 1, heads, head_dim).transpose(1, 2) for t in qkv.split(d, -1))
                keys[i, :, :, position:position + 1] = k
                values[i, :, :, position:position + 1] = v
                scores = q @ keys[i, :, :, :position + 1].transpose(-1, -2) / math.sqrt(head_dim)
                attended = (scores.softmax(-1) @ values[i, :, :, :position + 1]).transpose(1, 2).reshape(1, 1, d)
                x = x + attended @ w[h + "attn.c_proj.weight"] + w[h + "attn.c_proj.bias"]
                hidden = gelu_tanh(layer_norm(x, h + "ln_2") @ w[h + "mlp.c_fc.weight"] + w[h + "mlp.c_fc.bias"])
                x = x + hidden @ w[h + "mlp.c_proj.weight"] + w[h + "mlp.c_proj.bias"]
            logits = layer_norm(x, "ln_f") @ w["wte.weight"].T
            token = torch.multinomial(logits[0, -1].softmax(-1), 1, generator=generator).view(1, 1)
        return tokens / (time.time() - start)


def atencion_sampling(binary, source, tokens, threads):
    """Tokens/s of `sample` as it reports them on stderr (the prompt's forward and every new
    token, loading excluded): the best of two runs."""
    rates = []
    for _ in range(2):
        result = subprocess.run([binary, "--threads", str(threads), "sample", *source,
                                 "--max-new-tokens", str(tokens), "--seed", "1", "a"],
                                check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        rates.append(float(re.search(r"\(([0-9.]+) tokens/s\)", result.stderr).group(1)))
    return max(rates)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--sample-tokens", type=int, default=120)
    parser.add_argument("--skip-gpt2", action="store_true", help="no GPT-2-small sampling")
    args = parser.parse_args()
    binary = os.path.join(args.build, "examples/gpt/atencion-gpt")
    print(f"CPU: {open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()}"
          f", {args.threads} threads; torch {torch.__version__}")
    with tempfile.TemporaryDirectory() as work:
        run_dir = os.path.join(work, "run")
        ours = atencion_training(binary, args.minutes, args.threads, run_dir)
        theirs = torch_training(args.minutes, args.threads, time.time())
        if (ours["train_bytes"], ours["held_out_bytes"]) != (theirs["train_bytes"], theirs["held_out_bytes"]):
            sys.exit(f"the data differ: atencion {ours}, torch {theirs}")
        print(f"\ntraining for {args.minutes} minutes (default model, byte tokens, batch {BATCH} × {CONTEXT})")
        print("| side | steps | tokens/s | held-out loss | bits per byte |\n|---|---|---|---|---|")
        for name, side in (("atencion", ours), ("PyTorch", theirs)):
            print(f"| {name} | {side['steps']} | {side['tokens_per_second']:.0f} | "
                  f"{side['dev_loss']:.4f} | {side['dev_loss'] / math.log(2):.4f} |")
        print(f"tokens/s ratio {ours['tokens_per_second'] / theirs['tokens_per_second']:.2f}")

        print(f"\nsampling {args.sample_tokens} tokens with a key/value cache (tokens/s)")
        print("| model | atencion | PyTorch | ratio |\n|---|---|---|---|")
        from export_torch import read_safetensors  # noqa: E402
        latest = open(os.path.join(run_dir, "latest")).read().strip()
        ours_weights, _ = read_safetensors(os.path.join(run_dir, latest, "model.safetensors"))
        default_config = {"n_embd": D_MODEL, "n_head": HEADS, "n_layer": LAYERS,
                          "n_positions": CONTEXT, "vocab_size": 256}
        as_gpt2 = to_gpt2_names(ours_weights, default_config)
        tokens = min(args.sample_tokens, CONTEXT - 1)
        a = atencion_sampling(binary, ["--model", run_dir], tokens, args.threads)
        t = max(torch_sampling(as_gpt2, default_config, tokens, args.threads) for _ in range(2))
        print(f"| default (d {D_MODEL}, {LAYERS} layers) | {a:.0f} | {t:.0f} | {a / t:.2f} |")
        if not args.skip_gpt2:
            config = {"n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024,
                      "vocab_size": 50257}
            weights = gpt2_weights(config, torch.Generator().manual_seed(2))
            write_gpt2_dir(os.path.join(work, "gpt2"), config, weights)
            a = atencion_sampling(binary, ["--gpt2", os.path.join(work, "gpt2")], args.sample_tokens,
                                  args.threads)
            t = max(torch_sampling(weights, config, args.sample_tokens, args.threads) for _ in range(2))
            print(f"| GPT-2 small sized, random (d 768, 12 layers) | {a:.1f} | {t:.1f} | {a / t:.2f} |")


def to_gpt2_names(ours, config):
    """Our checkpoint's names back to GPT-2's layout (the inverse of gpt2_weights.cpp)."""
    w = {"wte.weight": ours["token_embedding.weight"], "wpe.weight": ours["position_embedding.weight"],
         "ln_f.weight": ours["final_norm.weight"], "ln_f.bias": ours["final_norm.bias"]}
    for i in range(config["n_layer"]):
        h, l = f"h.{i}.", f"layers.{i}."
        w[h + "ln_1.weight"], w[h + "ln_1.bias"] = ours[l + "norm1.weight"], ours[l + "norm1.bias"]
        w[h + "ln_2.weight"], w[h + "ln_2.bias"] = ours[l + "norm2.weight"], ours[l + "norm2.bias"]
        w[h + "attn.c_attn.weight"] = torch.cat([ours[l + f"self_attn.{p}_proj.weight"].T for p in "qkv"], 1)
        w[h + "attn.c_attn.bias"] = torch.cat([ours[l + f"self_attn.{p}_proj.bias"] for p in "qkv"])
        w[h + "attn.c_proj.weight"] = ours[l + "self_attn.out_proj.weight"].T
        w[h + "attn.c_proj.bias"] = ours[l + "self_attn.out_proj.bias"]
        w[h + "mlp.c_fc.weight"] = ours[l + "feed_forward.linear1.weight"].T
        w[h + "mlp.c_fc.bias"] = ours[l + "feed_forward.linear1.bias"]
        w[h + "mlp.c_proj.weight"] = ours[l + "feed_forward.linear2.weight"].T
        w[h + "mlp.c_proj.bias"] = ours[l + "feed_forward.linear2.bias"]
    return w


if __name__ == "__main__":
    main()
