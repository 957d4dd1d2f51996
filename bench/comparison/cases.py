"""The cases compare.py measures: each a bench/ program's benchmark and, where a baseline has
one, the setup that does the same work in PyTorch or OpenBLAS.

Adding a case: append a Case to CASES with the program and benchmark name that measure it in
C++, the metric that program reports as a counter, and a `setup` ("pytorch", "openblas") that
builds the inputs and returns a function doing one unit of work (e.g. one forward+backward).
Each setup runs under every setting of its baseline; a case without one shows "—".
"""

from dataclasses import dataclass, field
from typing import Callable, Dict, List

from comparison.openblas_setups import openblas_matmul_setup
from comparison.torch_setups import (torch_attention_setup, torch_decode_setup,
                                     torch_gpt_decode_setup, torch_matmul_setup,
                                     torch_train_step_setup)


@dataclass
class Case:
    name: str  # the Google Benchmark name, e.g. "matmul/1024"
    program: str  # the bench/ program that measures it, e.g. "bench_matmul"
    metric: str  # the counter it reports: "gflops" or "tokens_per_second"
    work: float  # units of the metric done by one call (GFLOP, or tokens)
    # backend name -> setup(threads) returning a function that does the work once
    setups: Dict[str, Callable[[int], Callable[[], None]]] = field(default_factory=dict)
    # Run alone in its own process on every backend, whose peak RSS is then reported.
    own_process: bool = False
    # Registered with a `threads` argument (bench/thread_sweep.h): the C++ name is
    # "<name>/threads:T".
    threaded: bool = False
    # Floating-point operations per unit of a tokens/s case (multiply and add counted apart),
    # so that its rate can be set against the FMA peak; 0: not counted.
    flop_per_unit: float = 0.0
    # Registered with UseRealTime(): the C++ name ends in "/real_time".
    real_time: bool = False

    def benchmark_name(self, threads: int) -> str:
        name = f"{self.name}/threads:{threads}" if self.threaded else self.name
        return name + "/real_time" if self.real_time else name


def matmul_case(name, batch, m, n, k, trans_a=False, trans_b=False, threaded=True):
    args = (batch, m, n, k, trans_a, trans_b)
    return Case(name, "bench_matmul", "gflops", 2.0 * batch * m * n * k * 1e-9, {
        "pytorch": torch_matmul_setup(*args),
        "openblas": openblas_matmul_setup(*args),  # run with every core type (backends())
    }, threaded=threaded)


CASES: List[Case] = []
for size in (32, 64, 128, 256, 512, 1024, 2048):
    CASES.append(matmul_case(f"matmul/{size}", 1, size, size, size))
for size in (32, 64, 128, 256, 512, 1024, 2048):
    CASES.append(matmul_case(f"matmul_nt/{size}", 1, size, size, size, trans_b=True))
for size in (32, 64, 128, 256, 512, 1024, 2048):
    CASES.append(matmul_case(f"matmul_tn/{size}", 1, size, size, size, trans_a=True))
CASES.append(matmul_case("bmm/64x64x64x64", 64, 64, 64, 64, threaded=False))
# Step-by-step attention's products (bench_matmul's bmm_*), 256 = batch x heads each: Q·Kᵀ and
# dO·Vᵀ (nt), P·V and dS·K (nn), Pᵀ·dO and dSᵀ·Q (tn). The OpenBLAS column calls cblas_sgemm
# once per product from Python (about a microsecond each through ctypes): at these sizes that
# is a large part of its time, so bench/small_matmul/compare_small.py makes the same calls from
# C++ for the comparison with OpenBLAS and Eigen.
for tokens, d_head in ((64, 64), (20, 32), (20, 16)):
    CASES.append(matmul_case(f"bmm_nt/256x{tokens}x{tokens}x{d_head}", 256, tokens, tokens,
                             d_head, trans_b=True))
    CASES.append(matmul_case(f"bmm_nn/256x{tokens}x{d_head}x{tokens}", 256, tokens, d_head,
                             tokens))
    CASES.append(matmul_case(f"bmm_tn/256x{tokens}x{d_head}x{tokens}", 256, tokens, d_head,
                             tokens, trans_a=True))
# The float32 micro-kernel alone on one thread: atencion's own ceiling, no other backend.
CASES.append(Case("micro_kernel/f32", "bench_matmul", "gflops", 0.0))
# The machine's FMA peak on one thread and on all of them (bench_peak.cpp): every GFLOP/s figure
# is also shown as a fraction of it (peak_name(threads) for all of them, once --threads is known).
PEAK_ONE_THREAD = "peak/fma/threads:1"



def peak_name(threads: int) -> str:
    """bench_peak's case for the FMA peak on `threads` threads."""
    return f"peak/fma/threads:{threads}"


def attention_flop_per_token(tokens, d_model, backward):
    """Self-attention's products per token: the four d x d projections (2·d² each) and Q·Kᵀ
    and P·V (2·T·d each, over the heads); the backward does each product twice (the gradient
    of each operand), so forward + backward is three times the forward."""
    forward = 4 * 2 * d_model * d_model + 2 * 2 * tokens * d_model
    return 3 * forward if backward else forward


for shape, (batch, tokens, d_model, heads) in [("B32_T64_D512_H8", (32, 64, 512, 8)),
                                               ("B64_T20_D128_H4", (64, 20, 128, 4))]:
    for kind, backward in [("mha_forward", False), ("mha_forward_backward", True)]:
        CASES.append(Case(f"{kind}/{shape}", "bench_attention", "tokens_per_second",
                          batch * tokens, {"pytorch": torch_attention_setup(
                              batch, tokens, d_model, heads, backward)}, threaded=True,
                          flop_per_unit=attention_flop_per_token(tokens, d_model, backward)))
# Long inputs: causal self-attention, forward + backward, B·T = 8,192 tokens, d 512, 8 heads, each
# length in a process of its own (its peak RSS is the memory that length needs). The
# step-by-step cases are atencion alone, on the path that holds the [B, 8, T, T] weights.
LONG_TOKENS = 8192
for tokens in (256, 1024, 4096):
    CASES.append(Case(f"attention_long/T{tokens}", "bench_attention", "tokens_per_second",
                      LONG_TOKENS, {"pytorch": torch_attention_setup(
                          LONG_TOKENS // tokens, tokens, 512, 8, True, causal=True)},
                      own_process=True, threaded=True))
for tokens in (256, 1024, 4096):
    CASES.append(Case(f"attention_long_step_by_step/T{tokens}", "bench_attention",
                      "tokens_per_second", LONG_TOKENS, own_process=True, threaded=True))
for name, (d_model, d_ff, vocabulary, batch, tokens) in [("tiny", (128, 512, 4000, 64, 20)),
                                                        ("translator", (256, 1024, 8000, 128, 16))]:
    CASES.append(Case(f"train_step/{name}", "bench_train_step", "tokens_per_second",
                      batch * tokens, {"pytorch": torch_train_step_setup(
                          d_model, d_ff, vocabulary, batch, tokens)}, own_process=True,
                      threaded=True))


for beam, name in [(1, "greedy"), (4, "beam4")]:
    CASES.append(Case(f"decode/{name}", "bench_decode", "sentences_per_second", 64,
                      {"pytorch": torch_decode_setup(beam)}))

# Decoding a GPT-2-small-sized model one token at a time (bench_gpt_decode.cpp): 32 tokens a call,
# each reading every weight once; PyTorch with its weights in the same type.
for dtype in ("float32", "bfloat16"):
    CASES.append(Case(f"gpt_decode/{dtype}", "bench_gpt_decode", "tokens_per_second", 32,
                      {"pytorch": torch_gpt_decode_setup(dtype)}, own_process=True,
                      threaded=True, real_time=True))
