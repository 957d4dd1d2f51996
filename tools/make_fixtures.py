#!/usr/bin/python3
"""tools/make_fixtures.py — writes the PyTorch reference fixtures in tests/fixtures/.

Run it with Debian's Python, the one that sees python3-torch:

    /usr/bin/python3 tools/make_fixtures.py [output directory, default tests/fixtures]

Each fixture is a small safetensors file (the layout of tensor/safetensors.h) holding one
module's parameters, inputs, outputs, per-head attention weights, and the gradients of the loss

    loss = sum(output * grad_output)

with respect to every input and parameter; grad_output is drawn at random, so that every
gradient is non-trivial. The C++ tests (tests/nn/, through tests/nn/fixture.h) load the
parameters into our modules, run the same inputs and compare.

Tensor names inside a fixture
-----------------------------
    param.<name>        a parameter, named as our module's state_dict() names it
    input.<name>        an input: x (self-attention, q = k = v = x), query, memory
                        (cross-attention, k = v = memory), key, value; and for masks:
                          input.key_lengths       I64 [batch]: real (unpadded) keys per sequence
                          input.key_padding_mask  BOOL [batch, m_k], torch's convention
                          input.attn_mask         BOOL [m_q, m_k], torch's convention (causal)
    output              the module's output
    attention_weights   per head, [batch, heads, m_q, m_k] (torch's need_weights=True,
                        average_attn_weights=False)
    grad_output         dL/d(output)
    grad.param.<name>   dL/d(parameter)
    grad.input.<name>   dL/d(input) (for self-attention, x's gradient sums its three uses)
The "__metadata__" of each file describes the case: the module and its sizes, the call, the
mask convention.

MASKS: torch's Bool masks are True where attention is NOT allowed. atencion's are the
opposite (true = may attend, nn/masks.h): input.key_padding_mask is the logical_not of
nn::padding_mask(input.key_lengths, m_k), and input.attn_mask the logical_not of
nn::causal_mask(m).

Parameter names. torch.nn.MultiheadAttention packs the three input projections into
in_proj_weight [3·E, E] / in_proj_bias [3·E] (or keeps q_proj_weight, k_proj_weight,
v_proj_weight apart when kdim or vdim differ from E). The fixtures always store them cut into
row blocks [0, E), [E, 2E), [2E, 3E) as separate Linear layers, the names of
nn/multi_head_attention.h:
    param.q_proj.weight [E, E]     param.q_proj.bias [E]
    param.k_proj.weight [E, kdim]  param.k_proj.bias [E]
    param.v_proj.weight [E, vdim]  param.v_proj.bias [E]
    param.out_proj.weight [E, E]   param.out_proj.bias [E]
torch.nn.Linear: param.weight [out, in], param.bias [out].
Notebook 004's SelfAttentionWithTricks (nn/wide_self_attention.h): param.toqueries.weight,
param.tokeys.weight, param.tovalues.weight [k·heads, k], param.unifyheads.weight [k, k·heads],
param.unifyheads.bias [k].

Determinism: every value comes from a seeded torch.Generator (drawn in float64; float32 cases
are the same numbers rounded), torch runs on one thread, and the writer sorts names and JSON
keys, so running the script again rewrites the committed files byte for byte:

    /usr/bin/python3 tools/make_fixtures.py && git diff --exit-code tests/fixtures
"""

import json
import math
import os
import sys

import numpy
import torch

# Every dtype of the safetensors format: torch 1.13 has no uint16/32/64, so those come as numpy
# arrays.
DTYPE_NAMES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.bool: "BOOL",
               torch.float16: "F16", torch.bfloat16: "BF16", torch.int32: "I32",
               torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8"}
NUMPY_DTYPE_NAMES = {numpy.dtype("<u2"): "U16", numpy.dtype("<u4"): "U32",
                     numpy.dtype("<u8"): "U64"}
GENERATOR = "tools/make_fixtures.py"


# ---- the safetensors writer (the `safetensors` package may be absent) ------------------------

def save_safetensors(path, tensors, metadata):
    """8-byte little-endian header length, JSON header padded with spaces to a multiple of 8,
    then each tensor's row-major little-endian bytes, in name order."""
    assert sys.byteorder == "little"
    header = {"__metadata__": metadata} if metadata else {}
    chunks = []
    offset = 0
    for name in sorted(tensors):
        if isinstance(tensors[name], numpy.ndarray):
            array = tensors[name]
            data, dtype, shape = array.tobytes(), NUMPY_DTYPE_NAMES[array.dtype], array.shape
        else:
            tensor = tensors[name].detach().contiguous()
            # numpy has no bfloat16: its bits go out as int16.
            bits = tensor.view(torch.int16) if tensor.dtype == torch.bfloat16 else tensor
            data, dtype, shape = bits.numpy().tobytes(), DTYPE_NAMES[tensor.dtype], tensor.shape
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "wb") as file:
        file.write(len(text).to_bytes(8, "little"))
        file.write(text)
        for data in chunks:
            file.write(data)
    os.replace(temporary, path)


# ---- helpers ---------------------------------------------------------------------------------

class Case:
    """Random numbers for one fixture, from its own seed, always drawn in float64."""

    def __init__(self, seed, dtype):
        self.generator = torch.Generator().manual_seed(seed)
        self.dtype = dtype

    def randn(self, *shape, scale=1.0):
        values = torch.randn(*shape, generator=self.generator, dtype=torch.float64) * scale
        return values.to(self.dtype)

    def fill_parameters(self, module):
        """Replaces torch's initialisation (zero biases for attention) by random values, so
        that every parameter matters; weights scaled by 1/sqrt(fan_in) keep outputs O(1)."""
        with torch.no_grad():
            for _, parameter in module.named_parameters():
                fan_in = parameter.shape[-1] if parameter.dim() == 2 else 1
                scale = 1 / math.sqrt(fan_in) if parameter.dim() == 2 else 0.5
                parameter.copy_(self.randn(*parameter.shape, scale=scale))


def suffix(dtype):
    return {torch.float64: "f64", torch.float32: "f32"}[dtype]


def backward(output, grad_output):
    """loss = sum(output * grad_output): its gradient with respect to output is grad_output."""
    (output * grad_output).sum().backward()


def check_finite(name, tensors):
    for key, tensor in tensors.items():
        if key.startswith("grad") and tensor.is_floating_point():
            assert torch.isfinite(tensor).all(), f"{name}: {key} is not finite"


def save_case(directory, name, tensors, metadata, generator):
    """name.safetensors in directory, its metadata (all values as strings) naming the case and
    the script that wrote it; used by the other fixture scripts."""
    check_finite(name, tensors)
    metadata = {key: str(value) for key, value in dict(metadata, case=name,
                                                       generator=generator).items()}
    save_safetensors(os.path.join(directory, name + ".safetensors"), tensors, metadata)


def write(directory, name, tensors, metadata):
    check_finite(name, tensors)
    metadata = dict(metadata, case=name, generator=GENERATOR, loss="sum(output * grad_output)")
    save_safetensors(os.path.join(directory, name + ".safetensors"), tensors, metadata)


# ---- the cases -------------------------------------------------------------------------------

def format_fixture(directory):
    """One tensor of each dtype with known values, to test the C++ reader on a file it did not
    write (tests/tensor/test_safetensors.cpp)."""
    tensors = {
        # [[0, .25, .5], [.75, 1, 1.25]]
        "f32": torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4,
        "f64": torch.tensor([0.1, -2.5], dtype=torch.float64),
        "i64": torch.tensor([-3, 0, 2**40], dtype=torch.int64),
        "bool": torch.tensor([[True, False], [False, True]]),
        "scalar": torch.tensor(3.5, dtype=torch.float64),
    }
    save_safetensors(os.path.join(directory, "format.safetensors"), tensors,
                     {"generator": GENERATOR, "purpose": "format check"})


def dtypes_fixture(directory):
    """The dtypes torch checkpoints use besides ours, with their extremes, to test how
    load_safetensors converts them (tests/tensor/test_safetensors_dtypes.cpp):
      f16, bf16                  16-bit floats: ±0, normals, the largest finite, the smallest
                                 normal and subnormals, ±inf, NaN; <name>.as_f32 is torch's
                                 exact widening .float()
      f16.from_f32, f16.from_f64, bf16.from_f32
                                 float32 / float64 values with rounding ties, overflow and
                                 underflow; <name>.rounded is torch's .half() / .bfloat16() of them
      i32, i16, i8, u8           torch integers at both ends of their range
      u16, u32, u64              the same, from numpy (torch 1.13 has no unsigned types but u8)"""
    inf, nan = math.inf, math.nan
    f16 = torch.tensor([0.0, -0.0, 1.0, -2.5, 65504.0, -65504.0, 2.0**-14, 2.0**-24,
                        3 * 2.0**-24, 1023 * 2.0**-24, inf, -inf, nan, 1 / 3, 0.1],
                       dtype=torch.float64).half()
    bf16 = torch.tensor([0.0, -0.0, 1.0, -2.5, 3.3895313892515355e38, 2.0**-126, 2.0**-133,
                         inf, -inf, nan, 1 / 3, 0.1], dtype=torch.float64).bfloat16()
    f16_from_f32 = torch.tensor([1 + 2.0**-11, 1 + 3 * 2.0**-11, 65519.0, 65520.0, -70000.0,
                                 2.0**-25, 3 * 2.0**-26, 1.5 * 2.0**-24, 2.5 * 2.0**-24, 1e-10,
                                 -1e-10, nan, 1 / 3, 0.1, 2.0**-14 - 2.0**-26],
                                dtype=torch.float32)
    # 1 + 2^-11 + 2^-40 rounds to 1 + 2^-11 in float32 and then, a tie, to 1 in float16; rounded
    # at once it would be 1 + 2^-10. torch goes through float32.
    f16_from_f64 = torch.tensor([1 + 2.0**-11 + 2.0**-40, 0.1, -1e300, 1e-300],
                                dtype=torch.float64)
    bf16_from_f32 = torch.tensor([1 + 2.0**-8, 1 + 3 * 2.0**-8, 3.4028234663852886e38, -1e-40,
                                  nan, 1 / 3, 0.1, -inf], dtype=torch.float32)
    tensors = {
        "f16": f16, "f16.as_f32": f16.float(), "bf16": bf16, "bf16.as_f32": bf16.float(),
        "f16.from_f32": f16_from_f32, "f16.from_f32.rounded": f16_from_f32.half(),
        "f16.from_f64": f16_from_f64, "f16.from_f64.rounded": f16_from_f64.half(),
        "bf16.from_f32": bf16_from_f32, "bf16.from_f32.rounded": bf16_from_f32.bfloat16(),
        "i32": torch.tensor([-2**31, -1, 0, 2**31 - 1], dtype=torch.int32),
        "i16": torch.tensor([[-2**15, -1], [0, 2**15 - 1]], dtype=torch.int16),
        "i8": torch.tensor([-128, -1, 0, 127], dtype=torch.int8),
        "u8": torch.tensor([0, 1, 128, 255], dtype=torch.uint8),
        "u16": numpy.array([0, 1, 2**15, 2**16 - 1], dtype="<u2"),
        "u32": numpy.array([0, 1, 2**31, 2**32 - 1], dtype="<u4"),
        "u64": numpy.array([0, 1, 2**32, 2**63 - 1], dtype="<u8"),
    }
    save_safetensors(os.path.join(directory, "dtypes.safetensors"), tensors,
                     {"generator": GENERATOR, "purpose": "every safetensors dtype"})


def linear_fixture(directory, *, bias, dtype, seed):
    case = Case(seed, dtype)
    in_features, out_features = 4, 3
    linear = torch.nn.Linear(in_features, out_features, bias=bias, dtype=dtype)
    case.fill_parameters(linear)
    x = case.randn(2, 3, in_features).requires_grad_()  # leading dims [2, 3]
    output = linear(x)
    grad_output = case.randn(*output.shape)
    backward(output, grad_output)

    tensors = {"input.x": x, "output": output, "grad_output": grad_output,
               "grad.input.x": x.grad}
    for name, parameter in linear.named_parameters():
        tensors["param." + name] = parameter
        tensors["grad.param." + name] = parameter.grad
    name = f"linear{'' if bias else '_no_bias'}_{suffix(dtype)}"
    write(directory, name, tensors, {
        "module": f"torch.nn.Linear({in_features}, {out_features}, bias={bias})",
        "call": "output = linear(x)", "in_features": str(in_features),
        "out_features": str(out_features), "bias": str(bias).lower()})


def softmax_input(case):
    """[2, 3, 6] with -inf (masked) entries in some rows and a row of large values, which
    overflow exp() unless the row maximum is subtracted first (docs/04-softmax.md)."""
    x = case.randn(2, 3, 6, scale=2.0)
    x[0, 1, 2] = -math.inf
    x[1, 0, 0] = -math.inf
    x[1, 0, 5] = -math.inf
    x[1, 2] = 1000 + case.randn(6)
    return x.requires_grad_()


def softmax_fixture(directory, *, log, dtype, seed):
    case = Case(seed, dtype)
    x = softmax_input(case)
    function = torch.log_softmax if log else torch.softmax
    output = function(x, dim=-1)
    grad_output = case.randn(*output.shape)
    # Where log_softmax is -inf the product -inf * g makes the loss infinite, but the
    # gradients stay finite: autograd multiplies grad_output by local derivatives only.
    backward(output, grad_output)
    name = f"{'log_softmax' if log else 'softmax'}_{suffix(dtype)}"
    write(directory, name,
          {"input.x": x, "output": output, "grad_output": grad_output, "grad.input.x": x.grad},
          {"module": f"torch.{function.__name__}",
           "call": f"output = {function.__name__}(x, dim=-1)", "dim": "-1"})


def split_in_projection(mha, embed_dim, parameter_of):
    """torch's packed (or separate) input projections, as q_proj / k_proj / v_proj Linears.
    parameter_of(p) is p itself or p.grad."""
    if mha._qkv_same_embed_dim:
        weights = parameter_of(mha.in_proj_weight).split(embed_dim, dim=0)
    else:
        weights = [parameter_of(mha.q_proj_weight), parameter_of(mha.k_proj_weight),
                   parameter_of(mha.v_proj_weight)]
    biases = parameter_of(mha.in_proj_bias).split(embed_dim, dim=0)
    tensors = {}
    for projection, weight, bias in zip(("q_proj", "k_proj", "v_proj"), weights, biases):
        tensors[projection + ".weight"] = weight
        tensors[projection + ".bias"] = bias
    tensors["out_proj.weight"] = parameter_of(mha.out_proj.weight)
    tensors["out_proj.bias"] = parameter_of(mha.out_proj.bias)
    return tensors


def mha_fixture(directory, name, *, use, dtype, seed, padding=False, causal=False,
                embed_dim=8, num_heads=2, batch=2, m_q=4, m_k=4, kdim=None, vdim=None):
    """torch.nn.MultiheadAttention(batch_first=True) in one of the notebooks' uses:
    "self"  (encoder self-attention, q = k = v = x; with causal: the decoder's masked one),
    "cross" (encoder-decoder: query from the decoder, m_q = m_D tokens; key = value = memory
             from the encoder, m_k = m_E tokens),
    "separate" (query, key, value all different, with key/value widths kdim, vdim)."""
    case = Case(seed, dtype)
    kdim = kdim or embed_dim
    vdim = vdim or embed_dim
    mha = torch.nn.MultiheadAttention(embed_dim, num_heads, batch_first=True, kdim=kdim,
                                      vdim=vdim, dtype=dtype)
    case.fill_parameters(mha)

    inputs = {}
    if use == "self":
        assert m_q == m_k
        inputs["x"] = case.randn(batch, m_q, embed_dim).requires_grad_()
        query = key = value = inputs["x"]
        call = "mha(x, x, x"
    elif use == "cross":
        inputs["query"] = case.randn(batch, m_q, embed_dim).requires_grad_()
        inputs["memory"] = case.randn(batch, m_k, embed_dim).requires_grad_()
        query, key, value = inputs["query"], inputs["memory"], inputs["memory"]
        call = "mha(query, memory, memory"
    else:
        inputs["query"] = case.randn(batch, m_q, embed_dim).requires_grad_()
        inputs["key"] = case.randn(batch, m_k, kdim).requires_grad_()
        inputs["value"] = case.randn(batch, m_k, vdim).requires_grad_()
        query, key, value = inputs["query"], inputs["key"], inputs["value"]
        call = "mha(query, key, value"

    masks = {}
    key_padding_mask = attn_mask = None
    if padding:
        # The first sequence is full, the others lose keys at the end (never all of them: a
        # query with no key to attend gives NaN in torch, zeros in atencion).
        key_lengths = torch.tensor([m_k] + [max(1, m_k - 1 - b) for b in range(1, batch)],
                                   dtype=torch.int64)
        key_padding_mask = torch.arange(m_k)[None, :] >= key_lengths[:, None]
        masks["key_lengths"] = key_lengths
        masks["key_padding_mask"] = key_padding_mask
        call += ", key_padding_mask=key_padding_mask"
    if causal:
        assert m_q == m_k
        attn_mask = torch.triu(torch.ones(m_q, m_k, dtype=torch.bool), diagonal=1)
        masks["attn_mask"] = attn_mask
        call += ", attn_mask=attn_mask"
    call += ", need_weights=True, average_attn_weights=False)"

    output, attention_weights = mha(query, key, value, key_padding_mask=key_padding_mask,
                                    attn_mask=attn_mask, need_weights=True,
                                    average_attn_weights=False)
    grad_output = case.randn(*output.shape)
    backward(output, grad_output)

    tensors = {"output": output, "attention_weights": attention_weights,
               "grad_output": grad_output}
    for input_name, tensor in inputs.items():
        tensors["input." + input_name] = tensor
        tensors["grad.input." + input_name] = tensor.grad
    for mask_name, tensor in masks.items():
        tensors["input." + mask_name] = tensor
    for parameter_name, tensor in split_in_projection(mha, embed_dim, lambda p: p).items():
        tensors["param." + parameter_name] = tensor
    for parameter_name, tensor in split_in_projection(mha, embed_dim, lambda p: p.grad).items():
        tensors["grad.param." + parameter_name] = tensor
    write(directory, f"{name}_{suffix(dtype)}", tensors, {
        "module": (f"torch.nn.MultiheadAttention({embed_dim}, {num_heads}, batch_first=True, "
                   f"kdim={kdim}, vdim={vdim})"),
        "call": "output, attention_weights = " + call,
        "use": use, "embed_dim": str(embed_dim), "num_heads": str(num_heads),
        "kdim": str(kdim), "vdim": str(vdim), "batch": str(batch),
        "query_length": str(m_q), "key_length": str(m_k),
        "causal": str(causal).lower(), "padding": str(padding).lower(),
        "mask_convention": "torch: True = masked out; atencion: true = may attend (logical_not)"})


class SelfAttentionWithTricks(torch.nn.Module):
    """Notebook 004's module (after Peter Bloem's "Transformers from scratch"), with its typos
    fixed: wide heads (each sees all k features), queries and keys each scaled by k^(1/4)."""

    def __init__(self, k, heads, causal):
        super().__init__()
        self.k, self.heads, self.causal = k, heads, causal
        self.tokeys = torch.nn.Linear(k, k * heads, bias=False, dtype=torch.float64)
        self.toqueries = torch.nn.Linear(k, k * heads, bias=False, dtype=torch.float64)
        self.tovalues = torch.nn.Linear(k, k * heads, bias=False, dtype=torch.float64)
        self.unifyheads = torch.nn.Linear(heads * k, k, dtype=torch.float64)

    def forward(self, x):
        b, t, k = x.shape
        h = self.heads
        queries = self.toqueries(x).view(b, t, h, k).transpose(1, 2) / k ** 0.25
        keys = self.tokeys(x).view(b, t, h, k).transpose(1, 2) / k ** 0.25
        values = self.tovalues(x).view(b, t, h, k).transpose(1, 2)
        scores = queries @ keys.transpose(-2, -1)  # [b, h, t, t]
        if self.causal:
            future = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, -math.inf)
        self.weights = torch.softmax(scores, dim=-1)
        out = (self.weights @ values).transpose(1, 2).reshape(b, t, h * k)
        return self.unifyheads(out)


def wide_fixture(directory, *, causal, seed, k=4, heads=3, batch=2, tokens=5):
    case = Case(seed, torch.float64)
    module = SelfAttentionWithTricks(k, heads, causal)
    case.fill_parameters(module)
    x = case.randn(batch, tokens, k).requires_grad_()
    output = module(x)
    grad_output = case.randn(*output.shape)
    backward(output, grad_output)
    tensors = {"input.x": x, "output": output, "attention_weights": module.weights,
               "grad_output": grad_output, "grad.input.x": x.grad}
    for name, parameter in module.named_parameters():
        tensors["param." + name] = parameter
        tensors["grad.param." + name] = parameter.grad
    write(directory, f"wide_self_attention{'_causal' if causal else ''}_f64", tensors, {
        "module": f"SelfAttentionWithTricks(k={k}, heads={heads}) of notebook 004",
        "call": "output = module(x)", "k": str(k), "heads": str(heads),
        "causal": str(causal).lower()})


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
    os.makedirs(directory, exist_ok=True)
    torch.set_num_threads(1)  # the same sums in the same order on every run

    format_fixture(directory)
    dtypes_fixture(directory)
    for dtype in (torch.float64, torch.float32):
        linear_fixture(directory, bias=True, dtype=dtype, seed=1)
    linear_fixture(directory, bias=False, dtype=torch.float64, seed=2)
    for dtype in (torch.float64, torch.float32):
        softmax_fixture(directory, log=False, dtype=dtype, seed=3)
    softmax_fixture(directory, log=True, dtype=torch.float64, seed=4)

    f64 = torch.float64
    # Encoder self-attention (notebook 003), with and without padded keys.
    mha_fixture(directory, "mha_self", use="self", dtype=f64, seed=10)
    mha_fixture(directory, "mha_self_padding", use="self", padding=True, dtype=f64, seed=11)
    # Decoder masked self-attention (notebook 000): causal, then causal + padding.
    mha_fixture(directory, "mha_causal", use="self", causal=True, dtype=f64, seed=12)
    mha_fixture(directory, "mha_causal_padding", use="self", causal=True, padding=True,
                dtype=f64, seed=13)
    # Encoder-decoder attention (notebook 001): m_D = 3 decoder tokens, m_E = 5 encoder tokens.
    mha_fixture(directory, "mha_cross", use="cross", m_q=3, m_k=5, dtype=f64, seed=14)
    mha_fixture(directory, "mha_cross_padding", use="cross", m_q=3, m_k=5, padding=True,
                dtype=f64, seed=15)
    # Key and value widths that differ from d_model (notebook 002's MultiHead).
    mha_fixture(directory, "mha_kvdim", use="separate", m_q=3, m_k=5, kdim=5, vdim=6,
                dtype=f64, seed=16)
    mha_fixture(directory, "mha_kvdim_padding", use="separate", m_q=3, m_k=5, kdim=5, vdim=6,
                padding=True, dtype=f64, seed=17)
    # float32 variants: the same numbers as the float64 cases of the same seed, rounded.
    mha_fixture(directory, "mha_self", use="self", dtype=torch.float32, seed=10)
    mha_fixture(directory, "mha_cross_padding", use="cross", m_q=3, m_k=5, padding=True,
                dtype=torch.float32, seed=15)
    # Notebook 004's wide heads.
    wide_fixture(directory, causal=False, seed=20)
    wide_fixture(directory, causal=True, seed=21)


if __name__ == "__main__":
    main()
