#!/usr/bin/python3
"""tools/make_fixtures_training.py — PyTorch references for training: optimizers, the
cross-entropy loss and a whole tiny Transformer, written to tests/fixtures/.

    /usr/bin/python3 tools/make_fixtures_training.py [output directory, default tests/fixtures]

It shares the safetensors writer and the seeded Case of tools/make_fixtures.py (same
determinism: one thread, seeded generators, sorted names), so

    /usr/bin/python3 tools/make_fixtures_training.py && git diff --exit-code tests/fixtures

checks the committed files. Tensor names, per kind of file:

optim_<name>_<dtype>      (tests/nn/optim/test_sgd.cpp, test_adam.cpp)
    A Linear(4, 3) fitted to input.target from input.x with loss = mean((x Wᵀ + b − target)²):
    param.weight, param.bias    the starting values
    step<k>.weight, step<k>.bias, step<k>.loss
                                the parameters after optimizer step k = 1..5, and the loss
                                computed just before that step
    The optimizer and its options are in the metadata ("optimizer", "lr", ...).

cross_entropy_<case>_<dtype>   (tests/nn/test_loss.cpp)
    input.logits [2, 4, 6], input.targets I64 [2, 4], output (the loss), grad_output (a random
    [2, 4] for reduction "none", else 1), grad.input.logits. Metadata: ignore_index,
    label_smoothing, reduction. torch wants the classes in dim 1, so it is called on
    logits.view(-1, 6) and targets.view(-1), which is what ours does with the last dim.

transformer_<norm>_<dtype>     (tests/nn/test_transformer.cpp)
    A tiny Transformer (d_model 8, 2 heads, 1 encoder + 1 decoder layer, d_ff 16, dropout 0,
    vocabularies 11 and 13, padding id 0) built from torch.nn.TransformerEncoderLayer /
    DecoderLayer (batch_first=True) plus embeddings (×√d_model), the sinusoidal positional
    encoding and an output Linear:
    param.<name>        the weights, named as our nn::Transformer names them (in_proj cut into
                        q/k/v_proj, linear1 → feed_forward.linear1, multihead_attn → cross_attn)
    input.source [2, 5], input.target_in [2, 4], input.target_out [2, 4] (I64, 0 = padding),
    input.source_lengths, input.target_lengths (I64 [2])
    output              the logits [2, 4, 13]
    loss                cross_entropy(logits, target_out, ignore_index=0, label_smoothing=0.1)
    grad.param.<name>   dL/d(parameter) of that loss
    adam.losses [4]     the loss before each of 3 Adam(lr=0.01) steps, and after the last
    "post" is the paper's post-norm layer (torch's norm_first=False, with no final encoder /
    decoder LayerNorm); "pre" is norm_first=True with a final LayerNorm on each side.
"""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import Case, save_case, split_in_projection, suffix  # noqa: E402

GENERATOR = "tools/make_fixtures_training.py"


def save(directory, name, tensors, metadata):
    save_case(directory, name, tensors, metadata, GENERATOR)


# ---- optimizers ---------------------------------------------------------------------------

def optim_fixture(directory, name, make_optimizer, options, *, dtype, seed, steps=5):
    case = Case(seed, dtype)
    linear = torch.nn.Linear(4, 3, dtype=dtype)
    case.fill_parameters(linear)
    x, target = case.randn(6, 4), case.randn(6, 3)
    tensors = {"input.x": x, "input.target": target,
               "param.weight": linear.weight.detach().clone(),
               "param.bias": linear.bias.detach().clone()}
    optimizer = make_optimizer(linear.parameters(), **options)
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        loss = ((linear(x) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        tensors[f"step{step}.loss"] = loss.detach().clone()
        tensors[f"step{step}.weight"] = linear.weight.detach().clone()
        tensors[f"step{step}.bias"] = linear.bias.detach().clone()
    save(directory, f"optim_{name}_{suffix(dtype)}", tensors,
         dict(options, optimizer=make_optimizer.__name__, steps=steps,
              loss="mean((x W^T + b - target)^2)"))


# ---- cross-entropy --------------------------------------------------------------------------

def cross_entropy_fixture(directory, name, *, dtype, seed, ignore_index=-100,
                          label_smoothing=0.0, reduction="mean"):
    case = Case(seed, dtype)
    logits = case.randn(2, 4, 6, scale=2.0).requires_grad_()
    targets = torch.randint(0, 6, (2, 4), generator=case.generator)
    if ignore_index >= 0:
        targets[0, 3] = ignore_index  # padding at the end of both sequences
        targets[1, 2:] = ignore_index
        targets[0, 0] = (ignore_index + 1) % 6  # and no ignored position at the start
    output = torch.nn.functional.cross_entropy(
        logits.view(-1, 6), targets.view(-1), ignore_index=ignore_index,
        label_smoothing=label_smoothing, reduction=reduction)
    if reduction == "none":
        output = output.view(2, 4)
        grad_output = case.randn(2, 4)
    else:
        grad_output = torch.ones((), dtype=dtype)
    (output * grad_output).sum().backward()
    save(directory, f"cross_entropy_{name}_{suffix(dtype)}",
         {"input.logits": logits, "input.targets": targets, "output": output,
          "grad_output": grad_output, "grad.input.logits": logits.grad},
         {"ignore_index": ignore_index, "label_smoothing": label_smoothing,
          "reduction": reduction, "call": "cross_entropy(logits.view(-1, 6), targets.view(-1))"})


# ---- a tiny Transformer ----------------------------------------------------------------------

def sinusoidal_table(max_len, d_model, dtype):
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(the same)."""
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    frequency = torch.pow(10000.0, -torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table.to(dtype)


class TinyTransformer(torch.nn.Module):
    def __init__(self, *, src_vocab, tgt_vocab, d_model, heads, d_ff, layers, norm_first, dtype):
        super().__init__()
        self.d_model = d_model
        self.src_embedding = torch.nn.Embedding(src_vocab, d_model, padding_idx=0, dtype=dtype)
        self.tgt_embedding = torch.nn.Embedding(tgt_vocab, d_model, padding_idx=0, dtype=dtype)
        encoder_layer = torch.nn.TransformerEncoderLayer(
            d_model, heads, d_ff, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=dtype)
        decoder_layer = torch.nn.TransformerDecoderLayer(
            d_model, heads, d_ff, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=dtype)
        # The paper's post-norm stack has no final LayerNorm; a pre-norm stack needs one.
        final_norm = (lambda: torch.nn.LayerNorm(d_model, dtype=dtype)) if norm_first else (lambda: None)
        self.encoder = torch.nn.TransformerEncoder(encoder_layer, layers, norm=final_norm(),
                                                   enable_nested_tensor=False)
        self.decoder = torch.nn.TransformerDecoder(decoder_layer, layers, norm=final_norm())
        self.output_projection = torch.nn.Linear(d_model, tgt_vocab, dtype=dtype)
        self.register_buffer("positions", sinusoidal_table(32, d_model, dtype))

    def embed(self, embedding, ids):
        return embedding(ids) * math.sqrt(self.d_model) + self.positions[: ids.shape[1]]

    def forward(self, source, target, source_padding, target_padding):
        """source_padding, target_padding: torch's Bool convention, True = padding."""
        steps = target.shape[1]
        causal = torch.triu(torch.ones(steps, steps, dtype=torch.bool), diagonal=1)  # True = hide
        memory = self.encoder(self.embed(self.src_embedding, source),
                              src_key_padding_mask=source_padding)
        hidden = self.decoder(self.embed(self.tgt_embedding, target), memory, tgt_mask=causal,
                              tgt_key_padding_mask=target_padding,
                              memory_key_padding_mask=source_padding)
        return self.output_projection(hidden)


def our_names(model, parameter_of):
    """The model's parameters (or gradients) under nn::Transformer's names."""
    tensors = {}
    for name, parameter in model.named_parameters():
        if ".self_attn." in name or ".multihead_attn." in name:
            continue  # written below, cut into q/k/v_proj
        ours = name.replace(".linear1.", ".feed_forward.linear1.").replace(
            ".linear2.", ".feed_forward.linear2.")
        tensors[ours] = parameter_of(parameter)
    for side, layers in (("encoder", model.encoder.layers), ("decoder", model.decoder.layers)):
        for index, layer in enumerate(layers):
            attentions = [("self_attn", layer.self_attn)]
            if side == "decoder":
                attentions.append(("cross_attn", layer.multihead_attn))
            for ours, attention in attentions:
                for key, value in split_in_projection(attention, model.d_model, parameter_of).items():
                    tensors[f"{side}.layers.{index}.{ours}.{key}"] = value
    return tensors


def transformer_fixture(directory, *, norm_first, dtype, seed):
    case = Case(seed, dtype)
    model = TinyTransformer(src_vocab=11, tgt_vocab=13, d_model=8, heads=2, d_ff=16, layers=1,
                            norm_first=norm_first, dtype=dtype)
    case.fill_parameters(model)
    with torch.no_grad():  # LayerNorm scales near 1, as after training, rather than near 0
        for name, parameter in model.named_parameters():
            if "norm" in name and name.endswith("weight"):
                parameter.add_(1.0)
    source_lengths, target_lengths = torch.tensor([5, 3]), torch.tensor([4, 2])
    source = torch.randint(1, 11, (2, 5), generator=case.generator)
    target_in = torch.randint(1, 13, (2, 4), generator=case.generator)
    target_out = torch.randint(1, 13, (2, 4), generator=case.generator)
    source_padding = torch.arange(5)[None, :] >= source_lengths[:, None]
    target_padding = torch.arange(4)[None, :] >= target_lengths[:, None]
    source[source_padding] = 0
    target_in[target_padding] = 0
    target_out[target_padding] = 0
    initial = {"param." + k: v.detach().clone() for k, v in our_names(model, lambda p: p).items()}

    def loss_of(logits):
        return torch.nn.functional.cross_entropy(logits.reshape(-1, 13), target_out.reshape(-1),
                                                 ignore_index=0, label_smoothing=0.1)

    logits = model(source, target_in, source_padding, target_padding)
    loss = loss_of(logits)
    loss.backward()
    tensors = dict(initial)
    tensors.update({"input.source": source, "input.target_in": target_in,
                    "input.target_out": target_out, "input.source_lengths": source_lengths,
                    "input.target_lengths": target_lengths, "output": logits,
                    "loss": loss.detach().clone()})
    tensors.update({"grad.param." + k: v.clone()
                    for k, v in our_names(model, lambda p: p.grad).items()})

    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = [loss.item()]
    optimizer.step()
    for _ in range(3):
        optimizer.zero_grad()
        loss = loss_of(model(source, target_in, source_padding, target_padding))
        losses.append(loss.item())
        if len(losses) < 4:
            loss.backward()
            optimizer.step()
    tensors["adam.losses"] = torch.tensor(losses, dtype=dtype)
    save(directory, f"transformer_{'pre' if norm_first else 'post'}_{suffix(dtype)}", tensors,
         {"src_vocab": 11, "tgt_vocab": 13, "d_model": 8, "heads": 2, "encoder_layers": 1,
          "decoder_layers": 1, "d_ff": 16, "dropout": 0.0, "padding_idx": 0,
          "norm_first": str(norm_first).lower(), "label_smoothing": 0.1, "adam_lr": 0.01,
          "loss": "cross_entropy(logits, target_out, ignore_index=0, label_smoothing=0.1)"})


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
    os.makedirs(directory, exist_ok=True)
    torch.set_num_threads(1)
    f64, f32 = torch.float64, torch.float32

    sgd, adam, adamw = torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW
    optim_fixture(directory, "sgd_momentum", sgd,
                  {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}, dtype=f64, seed=100)
    optim_fixture(directory, "sgd_nesterov", sgd,
                  {"lr": 0.05, "momentum": 0.8, "nesterov": True}, dtype=f64, seed=101)
    optim_fixture(directory, "adam", adam,
                  {"lr": 0.05, "betas": (0.9, 0.98), "eps": 1e-9, "weight_decay": 0.1},
                  dtype=f64, seed=102)
    optim_fixture(directory, "adamw", adamw, {"lr": 0.05, "weight_decay": 0.1}, dtype=f64,
                  seed=103)
    optim_fixture(directory, "adam", adam, {"lr": 0.05}, dtype=f32, seed=104)

    cross_entropy_fixture(directory, "plain", dtype=f64, seed=110)
    cross_entropy_fixture(directory, "ignore_smoothing", dtype=f64, seed=111, ignore_index=0,
                          label_smoothing=0.1)
    cross_entropy_fixture(directory, "sum", dtype=f64, seed=112, ignore_index=0,
                          label_smoothing=0.2, reduction="sum")
    cross_entropy_fixture(directory, "none", dtype=f64, seed=113, ignore_index=0,
                          label_smoothing=0.1, reduction="none")
    cross_entropy_fixture(directory, "ignore_smoothing", dtype=f32, seed=111, ignore_index=0,
                          label_smoothing=0.1)

    transformer_fixture(directory, norm_first=False, dtype=f64, seed=120)
    transformer_fixture(directory, norm_first=True, dtype=f64, seed=121)
    transformer_fixture(directory, norm_first=False, dtype=f32, seed=120)


if __name__ == "__main__":
    main()
