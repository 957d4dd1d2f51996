#!/usr/bin/python3
"""bench/compare.py — atencion's benchmarks next to PyTorch and OpenBLAS, in one run.

Runs the Google Benchmark programs of bench/ (JSON output) and the same cases in PyTorch and in
OpenBLAS's cblas_sgemm (through ctypes), twice for OpenBLAS: once with this machine's
OPENBLAS_CORETYPE (Haswell kernels, AVX2) and once with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
unset (OpenBLAS picks its own kernels, AVX-512 here). Every backend runs in its own process
with the same number of threads; the rounds alternate between backends so that a busy moment
on a shared machine does not fall on one column only, and each cell is the best of the rounds.
Prints a markdown table of the rates and of atencion's ratios (docs/performance.md), and for
the cases that run alone in a process (a training step) the peak RSS of each side's process.

    /usr/bin/python3 bench/compare.py --build build            # every case
    /usr/bin/python3 bench/compare.py --build build --filter 'matmul/(512|1024)' --rounds 5

Adding a case: append a Case to CASES with the program and benchmark name that measure it in
C++, the metric that program reports as a counter, and a `setup` ("pytorch", "openblas") that
builds the inputs and returns a function doing one unit of work (e.g. one forward+backward).
Each setup runs under every backend (column) that names it; columns without one show "—".
PyTorch runs twice, with OpenBLAS's threads as many as ours and held to one (its step is faster
so here: its OpenMP ops and OpenBLAS's own threads compete for the cores), and the ratio is
taken against the faster.
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


def matmul_case(name, batch, m, n, k, trans_a=False, trans_b=False):
    args = (batch, m, n, k, trans_a, trans_b)
    return Case(name, "bench_matmul", "gflops", 2.0 * batch * m * n * k * 1e-9, {
        "pytorch": torch_matmul_setup(*args),
        "openblas": openblas_matmul_setup(*args),  # run with both core types (BACKENDS)
    })


CASES: List[Case] = []
for size in (64, 128, 256, 512, 1024, 2048):
    CASES.append(matmul_case(f"matmul/{size}", 1, size, size, size))
for size in (64, 128, 256, 512, 1024, 2048):
    CASES.append(matmul_case(f"matmul_nt/{size}", 1, size, size, size, trans_b=True))
for size in (64, 128, 256, 512, 1024, 2048):
    CASES.append(matmul_case(f"matmul_tn/{size}", 1, size, size, size, trans_a=True))
CASES.append(matmul_case("bmm/64x64x64x64", 64, 64, 64, 64))
# The float32 micro-kernel alone on one thread: atencion's own ceiling, no other backend.
CASES.append(Case("micro_kernel/f32", "bench_matmul", "gflops", 0.0))


def torch_attention_setup(batch, tokens, d_model, heads, backward):
    """torch.nn.MultiheadAttention self-attention (batch_first, no mask, no dropout), forward
    with autograd recording as atencion does, and optionally backward from a fixed gradient."""
    def setup(threads):
        import torch

        torch.set_num_threads(threads)
        torch.manual_seed(42)
        attention = torch.nn.MultiheadAttention(d_model, heads, batch_first=True)
        x = torch.randn(batch, tokens, d_model, requires_grad=backward)
        grad_output = torch.randn(batch, tokens, d_model)

        def run():
            y, _ = attention(x, x, x, need_weights=False)
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


for shape, (batch, tokens, d_model, heads) in [("B32_T64_D512_H8", (32, 64, 512, 8)),
                                               ("B64_T20_D128_H4", (64, 20, 128, 4))]:
    for kind, backward in [("mha_forward", False), ("mha_forward_backward", True)]:
        CASES.append(Case(f"{kind}/{shape}", "bench_attention", "tokens_per_second",
                          batch * tokens, {"pytorch": torch_attention_setup(
                              batch, tokens, d_model, heads, backward)}))
for name, (d_model, d_ff, vocabulary, batch, tokens) in [("tiny", (128, 512, 4000, 64, 20)),
                                                        ("translator", (256, 1024, 8000, 128, 16))]:
    CASES.append(Case(f"train_step/{name}", "bench_train_step", "tokens_per_second",
                      batch * tokens, {"pytorch": torch_train_step_setup(
                          d_model, d_ff, vocabulary, batch, tokens)}, own_process=True))

# ---- backends -------------------------------------------------------------------------------

BACKENDS = {
    # column title, environment changes for its process (None removes a variable), and which of
    # a case's setups it runs
    "pytorch": ("PyTorch", {}, "pytorch"),
    # Debian's PyTorch multiplies through OpenBLAS (pthreads) while its own ops use OpenMP; in a
    # training step the two pools of threads compete for the same cores. With OpenBLAS held to
    # one thread the step runs faster here; the ratio is taken against the better setting.
    "pytorch_blas1": ("PyTorch, 1 BLAS thread", {"OPENBLAS_NUM_THREADS": "1"}, "pytorch"),
    "openblas_haswell": ("OpenBLAS Haswell", {"OPENBLAS_CORETYPE": os.environ.get(
        "OPENBLAS_CORETYPE", "Haswell")}, "openblas"),
    "openblas_auto": ("OpenBLAS auto", {"OPENBLAS_CORETYPE": None, "OPENBLAS_L2_SIZE": None},
                      "openblas"),
}
PYTORCH_COLUMNS = ("pytorch", "pytorch_blas1")
OPENBLAS_COLUMNS = ("openblas_haswell", "openblas_auto")


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
    results = {}
    for case in CASES:
        if case.name in names and BACKENDS[backend][2] in case.setups:
            setup = case.setups[BACKENDS[backend][2]]
            results[case.name] = best_rate(setup(threads), case.work, min_time)
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


def run_backend(backend: str, cases: List[Case], args,
                peak_rss: Dict[str, float]) -> Dict[str, float]:
    results = {}
    for group in process_groups([c for c in cases if BACKENDS[backend][2] in c.setups]):
        command = [sys.executable, os.path.abspath(__file__), "--worker", backend,
                   "--threads", str(args.threads), "--min-time", str(args.min_time),
                   "--cases", json.dumps([c.name for c in group])]
        output, peak = run_child(command, child_environment(BACKENDS[backend][1], args.threads))
        results.update(json.loads(output.strip().splitlines()[-1]))
        if group[0].own_process:
            peak_rss[group[0].name] = peak
    return results


def run_atencion(cases: List[Case], args, peak_rss: Dict[str, float]) -> Dict[str, float]:
    results = {}
    groups = [group for program in sorted({c.program for c in cases})
              for group in process_groups([c for c in cases if c.program == program])]
    for wanted in groups:
        program = wanted[0].program
        pattern = "^(" + "|".join(re.escape(c.name) for c in wanted) + ")$"
        binary = os.path.join(args.build, "bench", program)
        command = [binary, "--benchmark_format=json", f"--benchmark_filter={pattern}",
                   f"--benchmark_min_time={args.min_time}"]
        output, peak = run_child(command, child_environment({}, args.threads))
        if wanted[0].own_process:
            peak_rss[wanted[0].name] = peak
        for entry in json.loads(output)["benchmarks"]:
            case = next((c for c in wanted if c.name == entry["name"]), None)
            if case is not None and case.metric in entry:
                results[case.name] = entry[case.metric]
    return results


# ---- the table ------------------------------------------------------------------------------


def format_rate(value: Optional[float]) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def format_ratio(ours: Optional[float], theirs: Optional[float]) -> str:
    return "—" if ours is None or not theirs else f"{ours / theirs:.2f}×"


def table(cases: List[Case], best: Dict[str, Dict[str, float]]) -> str:
    columns = ["atencion"] + list(BACKENDS)
    titles = ["case", "unit", "atencion"] + [BACKENDS[b][0] for b in BACKENDS]
    titles += ["vs best PyTorch", "vs best OpenBLAS"]
    lines = ["| " + " | ".join(titles) + " |", "|" + "---|" * len(titles)]
    units = {"gflops": "GFLOP/s", "tokens_per_second": "tokens/s"}
    for case in cases:
        values = {column: best[column].get(case.name) for column in columns}
        torch = [values[b] for b in PYTORCH_COLUMNS if values[b]]
        blas = [values[b] for b in OPENBLAS_COLUMNS if values[b]]
        row = [f"`{case.name}`", units.get(case.metric, case.metric)]
        row += [format_rate(values[column]) for column in columns]
        row += [format_ratio(values["atencion"], max(torch) if torch else None),
                format_ratio(values["atencion"], max(blas) if blas else None)]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def rss_table(cases: List[Case], best: Dict[str, Dict[str, float]],
              peak_rss: Dict[str, Dict[str, float]]) -> str:
    """Peak resident memory of the process that ran each own_process case, in MiB (for PyTorch,
    the process of its faster setting)."""
    lines = ["| case | atencion MiB | PyTorch MiB | atencion / PyTorch |", "|---|---|---|---|"]
    for case in cases:
        ours = peak_rss["atencion"].get(case.name)
        faster = max(PYTORCH_COLUMNS, key=lambda b: best[b].get(case.name, 0.0))
        theirs = peak_rss[faster].get(case.name)
        if case.own_process and ours is not None:
            ratio = f"{ours / theirs:.2f}" if theirs else "—"
            lines.append(f"| `{case.name}` | {ours:.0f} | "
                         f"{format_rate(theirs) if theirs else '—'} | {ratio} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"),
                        help="the CMake build directory holding bench/ (default: build)")
    parser.add_argument("--filter", default="", help="regular expression on case names")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds over all backends; each cell is the best round")
    parser.add_argument("--min-time", type=float, default=0.3,
                        help="seconds each case runs per round")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--cases", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        worker(args.worker, json.loads(args.cases), args.threads, args.min_time)
        return

    cases = [c for c in CASES if re.search(args.filter, c.name)]
    best: Dict[str, Dict[str, float]] = {b: {} for b in ["atencion"] + list(BACKENDS)}
    peak_rss: Dict[str, Dict[str, float]] = {b: {} for b in ["atencion"] + list(BACKENDS)}
    for round_number in range(args.rounds):
        print(f"round {round_number + 1} of {args.rounds}", file=sys.stderr)
        results = {"atencion": run_atencion(cases, args, peak_rss["atencion"])}
        for backend in BACKENDS:
            results[backend] = run_backend(backend, cases, args, peak_rss[backend])
        for backend, values in results.items():
            for name, value in values.items():
                best[backend][name] = max(value, best[backend].get(name, 0.0))

    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.threads} threads, "
          f"best of {args.rounds} rounds of {args.min_time} s per case\n")
    print(table(cases, best))
    memory = rss_table(cases, best, peak_rss)
    if memory:
        print("\nPeak RSS of the whole process (the last round):\n")
        print(memory)


if __name__ == "__main__":
    main()
