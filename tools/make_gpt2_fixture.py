#!/usr/bin/python3
"""tools/make_gpt2_fixture.py — a tiny random GPT-2 in Hugging Face's GPT2LMHeadModel layout, and
its logits from a PyTorch forward written here from the published layout (not `transformers`):
tests/fixtures/gpt2_tiny/{model.safetensors, config.json, reference.safetensors}.

    /usr/bin/python3 tools/make_gpt2_fixture.py           writes them (deterministic)
    /usr/bin/python3 tools/make_gpt2_fixture.py --check   recomputes the logits from the shipped
                                                          model.safetensors and compares them with
                                                          reference.safetensors (exit 77 without
                                                          torch: tests/examples/gpt2_reference.sh)

The layout (what examples/gpt/gpt2_weights.cpp maps): "transformer." + wte, wpe, h.N.ln_1,
h.N.attn.c_attn (Conv1D: weight [d, 3d], y = x W + b, columns Q | K | V), h.N.attn.c_proj,
h.N.ln_2, h.N.mlp.c_fc [d, 4d], h.N.mlp.c_proj [4d, d], ln_f; no lm_head.weight (it is
wte.weight, and safetensors files as published leave tied copies out); and the causal-mask buffer h.N.attn.bias [1, 1, n_positions, n_positions], which is not a weight.
The vocabulary (2257) is that of the cut tokenizer files beside it
(tools/make_gpt2_tokenizer_fixture.sh), so the directory is a whole `--gpt2 DIR`.
"""
import json
import math
import os
import sys

try:
    import torch
except ImportError:
    print("skipped: no torch (Debian's python3-torch, under /usr/bin/python3)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_torch import read_safetensors  # noqa: E402
from make_fixtures import save_safetensors  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures",
                       "gpt2_tiny")
CONFIG = {"model_type": "gpt2", "vocab_size": 2257, "n_positions": 16, "n_embd": 8, "n_layer": 2,
          "n_head": 2, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
IDS = [[464, 1290, 318, 257, 2256]]  # 5 positions (their float64 logits: 90 KB)


def random_weights():
    generator = torch.Generator().manual_seed(20190214)  # GPT-2's announcement

    def normal(*shape, std=0.3):
        return (torch.randn(*shape, generator=generator, dtype=torch.float64) * std).float()

    c = CONFIG
    d, positions = c["n_embd"], c["n_positions"]
    weights = {"transformer.wte.weight": normal(c["vocab_size"], d),
               "transformer.wpe.weight": normal(positions, d),
               "transformer.ln_f.weight": 1 + normal(d, std=0.1),
               "transformer.ln_f.bias": normal(d, std=0.1)}
    for i in range(c["n_layer"]):
        h = f"transformer.h.{i}."
        weights.update({
            h + "ln_1.weight": 1 + normal(d, std=0.1), h + "ln_1.bias": normal(d, std=0.1),
            h + "attn.c_attn.weight": normal(d, 3 * d), h + "attn.c_attn.bias": normal(3 * d),
            h + "attn.c_proj.weight": normal(d, d), h + "attn.c_proj.bias": normal(d),
            h + "ln_2.weight": 1 + normal(d, std=0.1), h + "ln_2.bias": normal(d, std=0.1),
            h + "mlp.c_fc.weight": normal(d, 4 * d), h + "mlp.c_fc.bias": normal(4 * d),
            h + "mlp.c_proj.weight": normal(4 * d, d), h + "mlp.c_proj.bias": normal(d),
            h + "attn.bias": torch.tril(torch.ones(positions, positions)).view(
                1, 1, positions, positions)})
    return weights


def gpt2_logits(weights, ids, config):
    """GPT-2's forward, from the layout, in float64."""
    w = {name: tensor.double() for name, tensor in weights.items()}
    d, heads = config["n_embd"], config["n_head"]
    eps = config["layer_norm_epsilon"]
    ids = torch.tensor(ids)
    batch, length = ids.shape

    def layer_norm(x, prefix):
        return torch.nn.functional.layer_norm(x, (d,), w[prefix + ".weight"], w[prefix + ".bias"],
                                              eps)

    def conv1d(x, prefix):  # Conv1D: x W + b with W [in, out]
        return x @ w[prefix + ".weight"] + w[prefix + ".bias"]

    x = w["transformer.wte.weight"][ids] + w["transformer.wpe.weight"][:length]
    causal = torch.tril(torch.ones(length, length, dtype=torch.bool))
    for i in range(config["n_layer"]):
        h = f"transformer.h.{i}."
        query, key, value = conv1d(layer_norm(x, h + "ln_1"), h + "attn.c_attn").split(d, dim=-1)

        def split_heads(t):  # [B, T, d] -> [B, heads, T, d / heads]
            return t.view(batch, length, heads, d // heads).transpose(1, 2)

        scores = split_heads(query) @ split_heads(key).transpose(-1, -2) / math.sqrt(d // heads)
        scores = scores.masked_fill(~causal, float("-inf"))
        attended = (scores.softmax(-1) @ split_heads(value)).transpose(1, 2).reshape(batch, length, d)
        x = x + conv1d(attended, h + "attn.c_proj")
        hidden = torch.nn.functional.gelu(conv1d(layer_norm(x, h + "ln_2"), h + "mlp.c_fc"),
                                          approximate="tanh")
        x = x + conv1d(hidden, h + "mlp.c_proj")
    return layer_norm(x, "transformer.ln_f") @ w["transformer.wte.weight"].T  # lm_head = wte


def main():
    torch.set_num_threads(1)
    if "--check" in sys.argv:
        weights, _ = read_safetensors(os.path.join(FIXTURE, "model.safetensors"))
        reference, _ = read_safetensors(os.path.join(FIXTURE, "reference.safetensors"))
        logits = gpt2_logits(weights, reference["ids"].tolist(), CONFIG)
        difference = (logits - reference["logits"]).abs().max().item()
        print(f"torch's logits against reference.safetensors: largest difference {difference:.3g}")
        sys.exit(0 if difference <= 1e-12 else 1)
    weights = random_weights()
    save_safetensors(os.path.join(FIXTURE, "model.safetensors"), weights,
                     {"format": "pt", "generator": "tools/make_gpt2_fixture.py"})
    with open(os.path.join(FIXTURE, "config.json"), "w") as file:
        json.dump(CONFIG, file, indent=2, sort_keys=True)
        file.write("\n")
    save_safetensors(os.path.join(FIXTURE, "reference.safetensors"),
                     {"ids": torch.tensor(IDS), "logits": gpt2_logits(weights, IDS, CONFIG)},
                     {"generator": "tools/make_gpt2_fixture.py"})


if __name__ == "__main__":
    main()
