#!/usr/bin/python3
"""bench/compare.py — atencion's benchmarks next to PyTorch and OpenBLAS, in one run.

Runs the Google Benchmark programs of bench/ (JSON output) and the same cases in PyTorch and in
OpenBLAS's cblas_sgemm (through ctypes), each baseline over a small grid of settings (see
backends(): threads of each pool, OPENBLAS_CORETYPE as set or unset), and compares atencion with
each baseline at its BEST setting (the one with the highest median), which the table names. Every
setting runs in its own process. The rounds alternate the order of the two sides, atencion first
in one round and last in the next (A B, B A, A B, ...), so that a busy moment on a shared machine
does not fall on one side only; each side's figure is given as min / median / max over the
rounds, and atencion's ratio as the ratio of the medians with its range (our min over their max
to our max over their min). The output opens with the CPU model, its core count and its measured
FMA peak (bench_peak); then a markdown table of the rates, the ratios and the fraction of that
peak (for attention, whose products are counted, also PyTorch's fraction and the ratio to PyTorch
that running at the peak would give: a bound no code can pass on that machine), the time per token and peak RSS of the long-attention cases and of the cases that run alone
in a process (a training step), and the page faults and system time of atencion's steps
(docs/performance.md).

    /usr/bin/python3 bench/compare.py --build build            # every case
    /usr/bin/python3 bench/compare.py --build build --filter 'matmul/(512|1024)' --rounds 5
    /usr/bin/python3 bench/compare.py --build build --threads 16 --sweep --filter mha   # 1..16
    /usr/bin/python3 bench/compare.py --build build --filter attention_long --rounds 3
    /usr/bin/python3 bench/compare.py --build build --busy 2 --filter mha   # a busy loop per core

Adding a case: append a Case to CASES with the program and benchmark name that measure it in
C++, the metric that program reports as a counter, and a `setup` ("pytorch", "openblas") that
builds the inputs and returns a function doing one unit of work (e.g. one forward+backward).
Each setup runs under every setting of its baseline; a case without one shows "—".
"""

import argparse
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import busy_loops  # bench/busy_loops.py, beside this file

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- cases ----------------------------------------------------------------------------------


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

    def benchmark_name(self, threads: int) -> str:
        return f"{self.name}/threads:{threads}" if self.threaded else self.name


def torch_matmul_setup(batch, m, n, k, trans_a, trans_b):
    def setup(threads):
        import torch

        torch.set_num_threads(threads)
        generator = torch.Generator().manual_seed(42)
        shape_a = (k, m) if trans_a else (m, k)
        shape_b = (n, k) if trans_b else (k, n)
        if batch > 1:
            shape_a, shape_b = (batch,) + shape_a, (batch,) + shape_b
        a = torch.randn(shape_a, generator=generator)
        b = torch.randn(shape_b, generator=generator)
        # Transposes as views, like atencion's Trans::Yes: no copy is made.
        op_a = a.transpose(-2, -1) if trans_a else a
        op_b = b.transpose(-2, -1) if trans_b else b
        out = torch.empty((batch, m, n) if batch > 1 else (m, n))

        def run():
            torch.matmul(op_a, op_b, out=out)

        return run

    return setup


def openblas_matmul_setup(batch, m, n, k, trans_a, trans_b):
    def setup(threads):
        import numpy as np

        library = ctypes.CDLL("libopenblas.so.0")
        library.openblas_set_num_threads(threads)
        sgemm = library.cblas_sgemm
        pointer, integer, single = ctypes.c_void_p, ctypes.c_int, ctypes.c_float
        sgemm.argtypes = [integer] * 6 + [single, pointer, integer, pointer, integer, single,
                                          pointer, integer]
        row_major, no_trans, trans = 101, 111, 112
        rng = np.random.default_rng(42)
        a = rng.standard_normal((batch,) + ((k, m) if trans_a else (m, k)), dtype=np.float32)
        b = rng.standard_normal((batch,) + ((n, k) if trans_b else (k, n)), dtype=np.float32)
        c = np.empty((batch, m, n), dtype=np.float32)
        lda, ldb = a.shape[2], b.shape[2]
        calls = [(a[i].ctypes.data, b[i].ctypes.data, c[i].ctypes.data) for i in range(batch)]
        flags = (trans if trans_a else no_trans, trans if trans_b else no_trans)

        def run(arrays=(a, b, c)):  # the arrays live as long as run does
            for a_data, b_data, c_data in calls:  # OpenBLAS 0.3.21 has no batched sgemm
                sgemm(row_major, flags[0], flags[1], m, n, k, 1.0, a_data, lda, b_data, ldb,
                      0.0, c_data, n)

        return run

    return setup


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
# is also shown as a fraction of it. PEAK_ALL_THREADS is set once --threads is known.
PEAK_ONE_THREAD = "peak/fma/threads:1"
PEAK_ALL_THREADS = PEAK_ONE_THREAD


def torch_attention_setup(batch, tokens, d_model, heads, backward, causal=False):
    """torch.nn.MultiheadAttention self-attention (batch_first, no dropout; causal: a Bool
    attn_mask hiding the future, torch's True = hidden), forward with autograd recording as
    atencion does, and optionally backward from a fixed gradient."""
    def setup(threads):
        import torch

        torch.set_num_threads(threads)
        torch.manual_seed(42)
        attention = torch.nn.MultiheadAttention(d_model, heads, batch_first=True)
        x = torch.randn(batch, tokens, d_model, requires_grad=backward)
        grad_output = torch.randn(batch, tokens, d_model)
        mask = (torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), diagonal=1)
                if causal else None)

        def run():
            y, _ = attention(x, x, x, attn_mask=mask, need_weights=False)
            if backward:
                y.backward(grad_output)
                attention.zero_grad()
                x.grad = None

        return run

    return setup


def torch_train_step_setup(d_model, d_ff, vocabulary, batch, tokens):
    """bench_train_step's train_step/* in PyTorch: embeddings·√d + sinusoidal positions,
    torch.nn.Transformer (d_model, 4 heads, 2 + 2 layers, d_ff, dropout 0.1, post-norm),
    Linear to the vocabulary's logits, label-smoothed cross-entropy, Adam."""
    def setup(threads):
        return torch_train_step(threads, d_model, d_ff, vocabulary, batch, tokens)
    return setup


def torch_train_step(threads, d_model, d_ff, vocabulary, batch, tokens):
    import math

    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(42)
    source_embedding = torch.nn.Embedding(vocabulary, d_model)
    target_embedding = torch.nn.Embedding(vocabulary, d_model)
    transformer = torch.nn.Transformer(d_model, 4, 2, 2, d_ff, 0.1, batch_first=True)
    output_projection = torch.nn.Linear(d_model, vocabulary)
    modules = torch.nn.ModuleList([source_embedding, target_embedding, transformer,
                                   output_projection])
    optimizer = torch.optim.Adam(modules.parameters())
    position = torch.arange(tokens).unsqueeze(1)
    frequency = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    positional_encoding = torch.zeros(tokens, d_model)
    positional_encoding[:, 0::2] = torch.sin(position * frequency)
    positional_encoding[:, 1::2] = torch.cos(position * frequency)
    source = torch.randint(vocabulary, (batch, tokens))
    target_input = torch.randint(vocabulary, (batch, tokens))
    target_output = torch.randint(vocabulary, (batch, tokens))
    causal_mask = transformer.generate_square_subsequent_mask(tokens)
    scale = math.sqrt(d_model)

    def run():
        optimizer.zero_grad()
        hidden = transformer(source_embedding(source) * scale + positional_encoding,
                             target_embedding(target_input) * scale + positional_encoding,
                             tgt_mask=causal_mask)
        logits = output_projection(hidden)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocabulary),
                                                 target_output.reshape(-1), label_smoothing=0.1)
        loss.backward()
        optimizer.step()

    return run


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

def torch_decode_setup(beam):
    """bench_decode's decode/greedy and decode/beam4 in PyTorch: the translator's default model
    as torch.nn.Transformer (tools/export_torch.py's TorchTranslator, random weights), 64 sources
    of 4 to 14 ids, decoded in one batch to 16 output pieces each (as in bench_decode, where
    random weights never end a sentence early). torch.nn.Transformer has no key/value cache:
    each step runs the whole prefix through the decoder, as PyTorch code written on it does."""
    def setup(threads):
        import torch

        sys.path.insert(0, os.path.join(HERE, "..", "tools"))
        from export_torch import TorchTranslator

        torch.set_num_threads(threads)
        torch.manual_seed(42)
        vocabulary, sentences, steps, bos = 8000, 64, 16, 2
        config = {"src_vocab": vocabulary, "tgt_vocab": vocabulary, "d_model": 256, "heads": 4,
                  "encoder_layers": 2, "decoder_layers": 2, "d_ff": 1024, "max_len": 128,
                  "norm_first": False, "tie_target_embeddings": False, "padding_idx": 0}
        model = TorchTranslator(config).eval()
        lengths = torch.randint(4, 15, (sentences,))
        source = torch.randint(4, vocabulary, (sentences, int(lengths.max())))
        padding = torch.arange(source.shape[1]) >= lengths[:, None]  # torch's mask: True = pad
        source = source.masked_fill(padding, 0)

        @torch.no_grad()
        def run():
            memory = model.encode(source, padding)
            rows_memory, rows_padding = memory, padding
            if beam > 1:  # every source's hypotheses side by side: [sentences · beam, ...]
                rows_memory = memory.repeat_interleave(beam, dim=0)
                rows_padding = padding.repeat_interleave(beam, dim=0)
            prefix = torch.full((rows_memory.shape[0], 1), bos, dtype=torch.int64)
            scores = torch.zeros(sentences, beam)
            scores[:, 1:] = -float("inf")  # at first, one live hypothesis per source
            for _ in range(steps):
                logits = model.decode(prefix, rows_memory, rows_padding)[:, -1]
                log_probs = torch.log_softmax(logits, dim=-1)
                if beam == 1:
                    best = log_probs.argmax(dim=-1, keepdim=True)
                    prefix = torch.cat([prefix, best], dim=1)
                    continue
                total = (scores[:, :, None] + log_probs.view(sentences, beam, -1))
                scores, index = total.view(sentences, -1).topk(beam, dim=-1)
                parent = (index // vocabulary + torch.arange(sentences)[:, None] * beam).view(-1)
                prefix = torch.cat([prefix[parent], (index % vocabulary).view(-1, 1)], dim=1)

        return run

    return setup


for beam, name in [(1, "greedy"), (4, "beam4")]:
    CASES.append(Case(f"decode/{name}", "bench_decode", "sentences_per_second", 64,
                      {"pytorch": torch_decode_setup(beam)}))

# ---- backends -------------------------------------------------------------------------------


@dataclass
class Backend:
    title: str  # what the column or the winning setting is called
    setup: str  # which of a case's setups it runs: "pytorch" or "openblas"
    env: Dict[str, Optional[str]]  # changes to its process's environment (None removes one)
    setup_threads: int  # the threads argument its setups get (torch's intra-op threads)


def backends(threads: int) -> Dict[str, Backend]:
    """Every setting each baseline runs with; a baseline's figure is the best of its settings.

    PyTorch's best setting is not one to guess: Debian's torch multiplies through OpenBLAS
    (its own pthreads) while its other ops use OpenMP (intra-op threads), and the two pools of
    threads compete for the same cores; on an AVX-512 machine, OPENBLAS_CORETYPE (set to
    Haswell on some machines) holds OpenBLAS to its AVX2 kernels. So PyTorch runs with intra-op
    threads x OpenBLAS threads in {1, threads} x {the core type as set, unset}, and OpenBLAS
    alone with {the core type as set, unset}. A core type "as set" that is not set is the same
    setting as "unset", and runs once."""
    core_types = {"auto": {"OPENBLAS_CORETYPE": None, "OPENBLAS_L2_SIZE": None}}
    if os.environ.get("OPENBLAS_CORETYPE"):
        core_types[os.environ["OPENBLAS_CORETYPE"]] = {}
    counts = sorted({1, threads})
    result: Dict[str, Backend] = {}
    for core_type, core_env in core_types.items():
        for intra_op in counts:
            for blas in counts:
                result[f"pytorch_i{intra_op}_b{blas}_{core_type}"] = Backend(
                    f"PyTorch {intra_op} intra-op, {blas} BLAS, {core_type}", "pytorch",
                    dict(core_env, OMP_NUM_THREADS=str(intra_op), OPENBLAS_NUM_THREADS=str(blas)),
                    intra_op)
        result[f"openblas_{core_type}"] = Backend(f"OpenBLAS {core_type}", "openblas",
                                                  dict(core_env), threads)
    return result


def columns_of(all_backends: Dict[str, Backend], setup: str) -> List[str]:
    return [name for name, backend in all_backends.items() if backend.setup == setup]


def best_rate(run: Callable[[], None], work: float, min_time: float) -> float:
    """Units of work per second over at least min_time seconds (after one warm-up call)."""
    run()
    calls, start = 0, time.perf_counter()
    while True:
        run()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return work * calls / elapsed


def worker(backend: str, names: List[str], threads: int, min_time: float) -> None:
    """Runs in a child process: measures the named cases on one backend, prints JSON."""
    chosen = backends(threads)[backend]
    results = {}
    for case in CASES:
        if case.name in names and chosen.setup in case.setups:
            setup = case.setups[chosen.setup]
            results[case.name] = best_rate(setup(chosen.setup_threads), case.work, min_time)
    print(json.dumps(results))


def child_environment(changes: Dict[str, Optional[str]], threads: int) -> Dict[str, str]:
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(threads)
    env["OPENBLAS_NUM_THREADS"] = str(threads)
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run_child(command: List[str], env: Dict[str, str]) -> Tuple[str, float]:
    """Runs command to the end; returns its standard output and its peak RSS in MiB."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(process.pid, 0)  # this child's own resource usage
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{' '.join(command)} failed: {err.read()}")
        out.seek(0)
        return out.read(), usage.ru_maxrss / 1024.0  # Linux counts it in KiB


def process_groups(cases: List[Case]) -> List[List[Case]]:
    """The cases that run in one process together, and each own_process case on its own."""
    shared = [c for c in cases if not c.own_process]
    return ([shared] if shared else []) + [[c] for c in cases if c.own_process]


def run_backend(backend: str, cases: List[Case], args, threads: int,
                peak_rss: Dict[str, float]) -> Dict[str, float]:
    chosen = backends(threads)[backend]
    results = {}
    for group in process_groups([c for c in cases if chosen.setup in c.setups]):
        command = [sys.executable, os.path.abspath(__file__), "--worker", backend,
                   "--threads", str(threads), "--min-time", str(args.min_time),
                   "--cases", json.dumps([c.name for c in group])]
        output, peak = run_child(command, child_environment(chosen.env, threads))
        results.update(json.loads(output.strip().splitlines()[-1]))
        if group[0].own_process:
            peak_rss[group[0].name] = peak
    return results


def run_atencion(cases: List[Case], args, threads: int, peak_rss: Dict[str, float],
                 counters: Dict[str, Dict[str, float]]) -> Dict[str, float]:
    """Runs atencion's benchmark programs on `threads` threads; returns each case's figure and
    keeps each case's other counters (page faults, system time) of the last round in
    `counters`."""
    results = {}
    groups = [group for program in sorted({c.program for c in cases})
              for group in process_groups([c for c in cases if c.program == program])]
    for wanted in groups:
        program = wanted[0].program
        pattern = "^(" + "|".join(re.escape(c.benchmark_name(threads)) for c in wanted) + ")$"
        binary = os.path.join(args.build, "bench", program)
        command = [binary, "--benchmark_format=json", f"--benchmark_filter={pattern}",
                   f"--benchmark_min_time={args.min_time}"]
        output, peak = run_child(command, child_environment({}, threads))
        if wanted[0].own_process:
            peak_rss[wanted[0].name] = peak
        for entry in json.loads(output)["benchmarks"]:
            case = next((c for c in wanted if c.benchmark_name(threads) == entry["name"]), None)
            if case is not None and case.metric in entry:
                results[case.name] = entry[case.metric]
                counters[case.name] = {key: value for key, value in entry.items()
                                       if isinstance(value, float)}
    return results


# ---- the table ------------------------------------------------------------------------------


def format_rate(value: Optional[float]) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def spread(values: Optional[List[float]]) -> Optional[Tuple[float, float, float]]:
    """min, median, max of one side's rounds."""
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    median = (ordered[middle] if len(ordered) % 2
              else (ordered[middle - 1] + ordered[middle]) / 2)
    return ordered[0], median, ordered[-1]


def format_spread(values: Optional[List[float]]) -> str:
    """ "median (min–max)" of a side's rounds."""
    s = spread(values)
    if s is None:
        return "—"
    return f"{format_rate(s[1])} ({format_rate(s[0])}–{format_rate(s[2])})"


def format_ratio(ours: Optional[List[float]], theirs: Optional[List[float]]) -> str:
    """The ratio of the medians, and its range: our slowest round over their fastest to our
    fastest over their slowest."""
    a, b = spread(ours), spread(theirs)
    if a is None or b is None or not b[0]:
        return "—"
    return f"{a[1] / b[1]:.2f}× ({a[0] / b[2]:.2f}–{a[2] / b[0]:.2f})"


def best_of(rounds: Dict[str, Dict[str, List[float]]], columns: List[str],
            name: str) -> Tuple[Optional[List[float]], Optional[str]]:
    """A baseline's rounds at its best setting (the highest median), and that setting."""
    measured = [(spread(rounds[c][name])[1], c) for c in columns if rounds[c].get(name)]
    if not measured:
        return None, None
    setting = max(measured)[1]
    return rounds[setting][name], setting


def gflops_median(case: Case, values: Optional[List[float]]) -> Optional[float]:
    """The median rate in GFLOP/s: the rate itself, or tokens/s times the case's FLOP count."""
    middle = spread(values)
    if not middle:
        return None
    if case.metric == "gflops":
        return middle[1]
    return middle[1] * case.flop_per_unit * 1e-9 if case.flop_per_unit else None


def format_fraction(case: Case, values: Optional[List[float]], peak) -> str:
    rate = gflops_median(case, values)
    return f"{rate / peak[1]:.0%}" if rate and peak else "—"


def format_bound(case: Case, theirs: Optional[List[float]], peak) -> str:
    """The ratio to the baseline that running at the FMA peak would give: no code can beat
    the baseline by more on this machine (a target above it cannot be met here)."""
    rate = gflops_median(case, theirs)
    return f"{peak[1] / rate:.2f}×" if rate and peak and case.flop_per_unit else "—"


def table(cases: List[Case], rounds: Dict[str, Dict[str, List[float]]],
          all_backends: Dict[str, Backend]) -> str:
    """atencion next to each baseline at its best setting (named), median (min–max) over the
    rounds, with atencion's ratios of medians (range); for GFLOP/s, also the fraction of this
    machine's measured FMA peak (peak/fma, median, same run)."""
    titles = ["case", "unit", "atencion", "fraction of peak", "best PyTorch", "its setting",
              "best OpenBLAS", "its setting", "vs best PyTorch", "vs best OpenBLAS",
              "the most the peak allows vs PyTorch"]
    lines = ["| " + " | ".join(titles) + " |", "|" + "---|" * len(titles)]
    units = {"gflops": "GFLOP/s", "tokens_per_second": "tokens/s",
             "sentences_per_second": "sentences/s"}
    ours = rounds["atencion"]
    for case in cases:
        if case.name.startswith("peak/"):
            continue
        value = ours.get(case.name)
        torch, torch_setting = best_of(rounds, columns_of(all_backends, "pytorch"), case.name)
        blas, blas_setting = best_of(rounds, columns_of(all_backends, "openblas"), case.name)
        # micro_kernel/f32 runs on one thread: its ceiling is one thread's peak.
        peak = spread(ours.get("peak/fma/threads:1" if case.name.startswith("micro_kernel")
                               else PEAK_ALL_THREADS))
        row = [f"`{case.name}`", units.get(case.metric, case.metric), format_spread(value),
               format_fraction(case, value, peak), format_spread(torch),
               all_backends[torch_setting].title if torch_setting else "—",
               format_spread(blas), all_backends[blas_setting].title if blas_setting else "—",
               format_ratio(value, torch), format_ratio(value, blas),
               format_bound(case, torch, peak)]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def long_table(cases: List[Case], rounds: Dict[str, Dict[str, List[float]]],
               peak_rss: Dict[str, Dict[str, float]], all_backends: Dict[str, Backend]) -> str:
    """The long-attention cases: time per token (median over the rounds, and its range) and the
    peak RSS of the process, atencion's and PyTorch's at its best setting, with the ratios."""
    lines = ["| case | atencion µs/token | PyTorch µs/token | speed ratio | atencion MiB | "
             "PyTorch MiB | memory ratio |", "|---|---|---|---|---|---|---|"]

    def per_token(values: Optional[List[float]]) -> str:
        s = spread(values)
        if s is None:
            return "—"
        return f"{1e6 / s[1]:.1f} ({1e6 / s[2]:.1f}–{1e6 / s[0]:.1f})"

    for case in cases:
        if not case.name.startswith("attention_long"):
            continue
        ours = rounds["atencion"].get(case.name)
        theirs, setting = best_of(rounds, columns_of(all_backends, "pytorch"), case.name)
        our_rss = peak_rss["atencion"].get(case.name)
        their_rss = peak_rss[setting].get(case.name) if setting else None
        lines.append(f"| `{case.name}` | {per_token(ours)} | {per_token(theirs)} | "
                     f"{format_ratio(ours, theirs)} | "
                     f"{f'{our_rss:,.0f}' if our_rss else '—'} | "
                     f"{f'{their_rss:,.0f}' if their_rss else '—'} | "
                     f"{f'{our_rss / their_rss:.2f}' if our_rss and their_rss else '—'} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def rss_table(cases: List[Case], rounds: Dict[str, Dict[str, List[float]]],
              peak_rss: Dict[str, Dict[str, float]], all_backends: Dict[str, Backend]) -> str:
    """Peak resident memory of the process that ran each own_process case, in MiB (for PyTorch,
    the process of its best setting)."""
    lines = ["| case | atencion MiB | PyTorch MiB | atencion / PyTorch |", "|---|---|---|---|"]
    for case in cases:
        ours = peak_rss["atencion"].get(case.name)
        _, fastest = best_of(rounds, columns_of(all_backends, "pytorch"), case.name)
        theirs = peak_rss[fastest].get(case.name) if fastest else None
        if case.own_process and ours is not None and not case.name.startswith("attention_long"):
            ratio = f"{ours / theirs:.2f}" if theirs else "—"
            lines.append(f"| `{case.name}` | {ours:.0f} | "
                         f"{format_rate(theirs) if theirs else '—'} | {ratio} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def counters_table(cases: List[Case], counters: Dict[str, Dict[str, float]]) -> str:
    """What the kernel costs atencion's training steps: page faults and system time a step."""
    lines = ["| case | minor page faults per step | system time / CPU time |", "|---|---|---|"]
    for case in cases:
        values = counters.get(case.name, {})
        if "minor_faults_per_step" in values:
            lines.append(f"| `{case.name}` | {values['minor_faults_per_step']:,.0f} | "
                         f"{values['system_time_share']:.1%} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def settings_table(cases: List[Case], rounds: Dict[str, Dict[str, List[float]]],
                   all_backends: Dict[str, Backend]) -> str:
    lines = ["| case | setting | median (min–max) |", "|---|---|---|"]
    for case in cases:
        for name, backend in all_backends.items():
            if rounds[name].get(case.name):
                lines.append(f"| `{case.name}` | {backend.title} | "
                             f"{format_spread(rounds[name][case.name])} |")
    return "\n".join(lines)


@dataclass
class Measured:
    """Every column's figure per case in each round at one thread count, with the peak RSS of
    own-process cases (the last round) and atencion's other counters."""
    rounds: Dict[str, Dict[str, List[float]]]
    peak_rss: Dict[str, Dict[str, float]]
    counters: Dict[str, Dict[str, float]]


def measure(cases: List[Case], args, threads: int) -> Measured:
    """args.rounds rounds; atencion runs first in the even rounds and last in the odd ones
    (A B, B A, A B, ...), so each side gets as many early and late places."""
    all_backends = backends(threads)
    names = ["atencion"] + list(all_backends)
    measured = Measured({b: {} for b in names}, {b: {} for b in names}, {})
    for round_number in range(args.rounds):
        order = names if round_number % 2 == 0 else list(all_backends) + ["atencion"]
        print(f"{threads} threads, round {round_number + 1} of {args.rounds} "
              f"({'atencion first' if order[0] == 'atencion' else 'atencion last'})",
              file=sys.stderr)
        for backend in order:
            if backend == "atencion":
                values = run_atencion(cases, args, threads, measured.peak_rss["atencion"],
                                      measured.counters)
            else:
                values = run_backend(backend, cases, args, threads, measured.peak_rss[backend])
            for name, value in values.items():
                measured.rounds[backend].setdefault(name, []).append(value)
    return measured


def sweep_counts(most: int) -> List[int]:
    """1, 2, 4, ... below `most`, and `most`: the counts bench/thread_sweep.h runs."""
    counts, threads = [], 1
    while threads < most:
        counts.append(threads)
        threads *= 2
    return counts + [most]


def sweep_table(cases: List[Case], by_count: Dict[int, Measured]) -> str:
    """For every threaded case, atencion and the best PyTorch at each thread count (medians and
    ranges), atencion's ratio to it, and atencion's parallel efficiency
    median(T) / (T · median(1)); for a case whose FLOPs are counted, both sides' fraction of the
    FMA peak at that thread count (measured at 1 thread and at the most) and the ratio to
    PyTorch that the peak itself would give."""
    counts = sorted(by_count)
    titles = ["case", "threads", "atencion", "parallel efficiency", "best PyTorch",
              "its setting", "vs best PyTorch", "fraction of peak, atencion / PyTorch",
              "the most the peak allows vs PyTorch"]
    top = by_count[counts[-1]].rounds["atencion"]  # the peaks, measured at 1 and at the most
    lines = ["| " + " | ".join(titles) + " |", "|" + "---|" * len(titles)]
    for case in cases:
        if not case.threaded:
            continue
        one = (spread(by_count[counts[0]].rounds["atencion"].get(case.name))
               if counts[0] == 1 else None)
        for threads in counts:
            measured, all_backends = by_count[threads], backends(threads)
            value = measured.rounds["atencion"].get(case.name)
            torch, setting = best_of(measured.rounds, columns_of(all_backends, "pytorch"),
                                     case.name)
            efficiency = (f"{spread(value)[1] / (threads * one[1]):.2f}" if value and one
                          else "—")
            peak = spread(top.get(f"peak/fma/threads:{threads}"))
            fractions = (f"{format_fraction(case, value, peak)} / "
                         f"{format_fraction(case, torch, peak)}" if case.flop_per_unit else "—")
            lines.append(f"| `{case.name}` | {threads} | {format_spread(value)} | {efficiency} | "
                         f"{format_spread(torch)} | "
                         f"{all_backends[setting].title if setting else '—'} | "
                         f"{format_ratio(value, torch)} | {fractions} | "
                         f"{format_bound(case, torch, peak)} |")
    return "\n".join(lines)


def cpu_model() -> str:
    """The CPU's model name as /proc/cpuinfo gives it."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def torch_version() -> str:
    try:
        output = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                                capture_output=True, text=True, timeout=120)
        return output.stdout.strip() or "not installed"
    except (OSError, subprocess.TimeoutExpired):
        return "not installed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"),
                        help="the CMake build directory holding bench/ (default: build)")
    parser.add_argument("--filter", default="", help="regular expression on case names")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--sweep", action="store_true",
                        help="also measure at 1, 2, 4, ... --threads threads and print each "
                             "case's row with its parallel efficiency")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds over both sides, alternating their order (at least 3)")
    parser.add_argument("--min-time", type=float, default=0.3,
                        help="seconds each case runs per round")
    parser.add_argument("--busy", type=int, default=0,
                        help="run every round beside this many busy loops (bench/busy_loops.py)")
    parser.add_argument("--all-settings", action="store_true",
                        help="also print every baseline setting's figure, not only the best")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--cases", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        worker(args.worker, json.loads(args.cases), args.threads, args.min_time)
        return
    if args.rounds < 3:
        parser.error("--rounds must be at least 3: a median and a range need them")

    global PEAK_ALL_THREADS
    PEAK_ALL_THREADS = f"peak/fma/threads:{args.threads}"
    peaks = [PEAK_ONE_THREAD] if args.threads == 1 else [PEAK_ONE_THREAD, PEAK_ALL_THREADS]
    CASES.extend(Case(name, "bench_peak", "gflops", 0.0) for name in peaks)
    cases = [c for c in CASES if re.search(args.filter, c.name) and c.name not in peaks]
    cases += [c for c in CASES if c.name in peaks]  # the peak heads every table

    counts = sweep_counts(args.threads) if args.sweep else [args.threads]
    with busy_loops.running(args.busy):
        by_count = {threads: measure(cases if threads == args.threads
                                     else [c for c in cases if c.threaded], args, threads)
                    for threads in counts}
    measured, all_backends = by_count[args.threads], backends(args.threads)

    print(f"{cpu_model()}, {os.cpu_count()} logical cores; PyTorch {torch_version()}")
    for peak in peaks:
        value = spread(measured.rounds["atencion"].get(peak))
        if value:
            print(f"Measured FMA peak ({peak}): {value[1]:.1f} GFLOP/s "
                  f"(min {value[0]:.1f}, max {value[2]:.1f})")
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.threads} threads, "
          f"{args.rounds} rounds of {args.min_time} s per case, the two sides in alternating "
          f"order; each cell is median (min–max) over the rounds"
          + (f"; beside {args.busy} busy loops" if args.busy else "") + "\n")
    print(table(cases, measured.rounds, all_backends))
    long_inputs = long_table(cases, measured.rounds, measured.peak_rss, all_backends)
    if long_inputs:
        print("\nLong inputs (time per token, and peak RSS of the whole process):\n")
        print(long_inputs)
    memory = rss_table(cases, measured.rounds, measured.peak_rss, all_backends)
    if memory:
        print("\nPeak RSS of the whole process (the last round):\n")
        print(memory)
    kernel_costs = counters_table(cases, measured.counters)
    if kernel_costs:
        print("\nWhat the kernel costs atencion's steps (the last round):\n")
        print(kernel_costs)
    if args.sweep and any(c.threaded for c in cases):
        print(f"\nThreads 1 to {args.threads} (parallel efficiency = median(T) / "
              f"(T · median(1))):\n")
        print(sweep_table(cases, by_count))
    if args.all_settings:
        print("\nEvery setting (median and range of the rounds):\n")
        print(settings_table(cases, measured.rounds, all_backends))


if __name__ == "__main__":
    main()
