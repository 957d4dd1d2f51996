#!/usr/bin/python3
"""tools/make_fixtures_torch.py — torch modules saved under torch's own parameter names, for
nn/torch_state_dict.h (tests/nn/test_torch_state_dict.cpp).

    /usr/bin/python3 tools/make_fixtures_torch.py [output directory, default tests/fixtures]

It shares the writer and the seeded Case of tools/make_fixtures.py (one thread, seeded
generators, sorted names: rerunning rewrites the files byte for byte) and builds the
Transformer with tools/export_torch.py's TorchTranslator. Every file is float64, with random
parameters, dropout 0 and these tensors:

    param.<torch name>        the module's state_dict(), exactly as torch names and lays it out
                              (in_proj_weight packed, or q_proj_weight ... when kdim/vdim differ;
                              multihead_attn, linear1, encoder.norm ...)
    grad.param.<torch name>   dL/d(parameter) for loss = sum(output * grad_output)
    input.<name>              the inputs; masks as lengths (input.*_lengths, I64): the C++ side
                              builds its own masks (true = may attend), torch got the opposite
    output, grad_output, grad.input.<name>

torch_mha_packed_f64      MultiheadAttention(8, 2, batch_first=True): cross-attention,
                          query [2, 3, 8], key = value = memory [2, 5, 8], key padding [5, 3]
torch_mha_separate_f64    the same with kdim = 5, vdim = 6: query, key [2, 5, 5], value [2, 5, 6]
torch_transformer_post_f64, torch_transformer_pre_f64
                          TorchTranslator (torch.nn.Transformer + embeddings ×√d + sinusoidal
                          PE + output Linear): d_model 8, 2 heads, 2 + 1 layers, d_ff 16,
                          vocabularies 11 and 13, padding id 0, norm_first False / True, with
                          torch's final encoder.norm and decoder.norm in both; source [2, 5] and
                          target [2, 4] ids padded to lengths [5, 3] and [4, 2]
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_torch import TorchTranslator  # noqa: E402
from make_fixtures import Case, backward, save_case  # noqa: E402

GENERATOR = "tools/make_fixtures_torch.py"


def save(directory, name, tensors, metadata):
    save_case(directory, name, tensors, metadata, GENERATOR)


def parameters_and_gradients(module):
    tensors = {}
    for name, parameter in module.named_parameters():
        tensors["param." + name] = parameter
        tensors["grad.param." + name] = parameter.grad
    return tensors


def padding(lengths, steps):
    """torch's key_padding_mask: True where a sequence has no token (the padding)."""
    return torch.arange(steps)[None, :] >= lengths[:, None]


def mha_fixture(directory, name, *, seed, kdim=None, vdim=None):
    case = Case(seed, torch.float64)
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True, kdim=kdim, vdim=vdim,
                                      dtype=torch.float64)
    case.fill_parameters(mha)
    inputs = {"query": case.randn(2, 3, 8).requires_grad_()}
    if kdim is None:
        inputs["memory"] = case.randn(2, 5, 8).requires_grad_()
        key = value = inputs["memory"]
    else:
        inputs["key"] = case.randn(2, 5, kdim).requires_grad_()
        inputs["value"] = case.randn(2, 5, vdim).requires_grad_()
        key, value = inputs["key"], inputs["value"]
    key_lengths = torch.tensor([5, 3])
    output, _ = mha(inputs["query"], key, value, key_padding_mask=padding(key_lengths, 5),
                    need_weights=False)
    grad_output = case.randn(*output.shape)
    backward(output, grad_output)
    tensors = parameters_and_gradients(mha)
    tensors.update({"output": output, "grad_output": grad_output,
                    "input.key_lengths": key_lengths})
    for input_name, tensor in inputs.items():
        tensors["input." + input_name] = tensor
        tensors["grad.input." + input_name] = tensor.grad
    save(directory, name, tensors, {
        "module": f"torch.nn.MultiheadAttention(8, 2, batch_first=True, kdim={kdim}, "
                  f"vdim={vdim})", "key_padding": "lengths [5, 3]"})


def transformer_fixture(directory, name, *, norm_first, seed):
    case = Case(seed, torch.float64)
    config = {"src_vocab": 11, "tgt_vocab": 13, "d_model": 8, "heads": 2, "encoder_layers": 2,
              "decoder_layers": 1, "d_ff": 16, "dropout": 0.0, "max_len": 16,
              "norm_first": norm_first, "tie_target_embeddings": False, "padding_idx": 0,
              "final_norm": True}
    model = TorchTranslator(config, dtype=torch.float64)
    case.fill_parameters(model)
    with torch.no_grad():  # LayerNorm scales near 1, as after training, rather than near 0
        for parameter_name, parameter in model.named_parameters():
            if "norm" in parameter_name and parameter_name.endswith("weight"):
                parameter.add_(1.0)
        for embedding in (model.src_embedding, model.tgt_embedding):
            embedding.weight[0] = 0  # the padding row, as torch.nn.Embedding keeps it
    source_lengths, target_lengths = torch.tensor([5, 3]), torch.tensor([4, 2])
    source = torch.randint(1, 11, (2, 5), generator=case.generator)
    target = torch.randint(1, 13, (2, 4), generator=case.generator)
    source_padding, target_padding = padding(source_lengths, 5), padding(target_lengths, 4)
    source[source_padding] = 0
    target[target_padding] = 0
    output = model.logits(source, target, source_padding, target_padding)
    grad_output = case.randn(*output.shape)
    backward(output, grad_output)
    tensors = parameters_and_gradients(model)
    tensors.update({"output": output, "grad_output": grad_output, "input.source": source,
                    "input.target": target, "input.source_lengths": source_lengths,
                    "input.target_lengths": target_lengths})
    save(directory, name, tensors, dict(config, module="TorchTranslator (tools/export_torch.py)"))


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
    os.makedirs(directory, exist_ok=True)
    torch.set_num_threads(1)
    mha_fixture(directory, "torch_mha_packed_f64", seed=130)
    mha_fixture(directory, "torch_mha_separate_f64", seed=131, kdim=5, vdim=6)
    transformer_fixture(directory, "torch_transformer_post_f64", norm_first=False, seed=132)
    transformer_fixture(directory, "torch_transformer_pre_f64", norm_first=True, seed=133)


if __name__ == "__main__":
    main()
