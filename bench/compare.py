#!/usr/bin/python3
"""bench/compare.py — atencion's benchmarks next to PyTorch and OpenBLAS, in one run.

Runs the Google Benchmark programs of bench/ (JSON output) and the same cases in PyTorch and in
OpenBLAS's cblas_sgemm (through ctypes), twice for OpenBLAS: once with this machine's
OPENBLAS_CORETYPE (Haswell kernels, AVX2) and once with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
unset (OpenBLAS picks its own kernels, AVX-512 here). Every backend runs in its own process
with the same number of threads; the rounds alternate between backends so that a busy moment
on a shared machine does not fall on one column only, and each cell is the best of the rounds.
Prints a markdown table of the rates and of atencion's ratios (docs/performance.md).

    /usr/bin/python3 bench/compare.py --build build            # every case
    /usr/bin/python3 bench/compare.py --build build --filter 'matmul/(512|1024)' --rounds 5

Adding a case: append a Case to CASES with the program and benchmark name that measure it in
C++, the metric that program reports as a counter, and a `setup` per backend that builds the
inputs and returns a function doing one unit of work (e.g. one forward+backward). Backends
without a setup show "—".
"""

import argparse
import ctypes
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

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
        "openblas_haswell": openblas_matmul_setup(*args),
        "openblas_auto": openblas_matmul_setup(*args),
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

# ---- backends -------------------------------------------------------------------------------

BACKENDS = {
    # column title, environment changes for its process (None removes a variable)
    "pytorch": ("PyTorch", {}),
    "openblas_haswell": ("OpenBLAS Haswell", {"OPENBLAS_CORETYPE": os.environ.get(
        "OPENBLAS_CORETYPE", "Haswell")}),
    "openblas_auto": ("OpenBLAS auto", {"OPENBLAS_CORETYPE": None, "OPENBLAS_L2_SIZE": None}),
}


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
        if case.name in names and backend in case.setups:
            results[case.name] = best_rate(case.setups[backend](threads), case.work, min_time)
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


def run_backend(backend: str, cases: List[Case], args) -> Dict[str, float]:
    names = [c.name for c in cases if backend in c.setups]
    if not names:
        return {}
    command = [sys.executable, os.path.abspath(__file__), "--worker", backend,
               "--threads", str(args.threads), "--min-time", str(args.min_time),
               "--cases", json.dumps(names)]
    output = subprocess.run(command, env=child_environment(BACKENDS[backend][1], args.threads),
                            check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def run_atencion(cases: List[Case], args) -> Dict[str, float]:
    results = {}
    for program in sorted({c.program for c in cases}):
        wanted = [c for c in cases if c.program == program]
        pattern = "^(" + "|".join(re.escape(c.name) for c in wanted) + ")$"
        binary = os.path.join(args.build, "bench", program)
        command = [binary, "--benchmark_format=json", f"--benchmark_filter={pattern}",
                   f"--benchmark_min_time={args.min_time}"]
        output = subprocess.run(command, env=child_environment({}, args.threads), check=True,
                                capture_output=True, text=True).stdout
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
    titles += ["vs PyTorch", "vs best OpenBLAS"]
    lines = ["| " + " | ".join(titles) + " |", "|" + "---|" * len(titles)]
    units = {"gflops": "GFLOP/s", "tokens_per_second": "tokens/s"}
    for case in cases:
        values = {column: best[column].get(case.name) for column in columns}
        blas = [values[b] for b in ("openblas_haswell", "openblas_auto") if values[b]]
        row = [f"`{case.name}`", units.get(case.metric, case.metric)]
        row += [format_rate(values[column]) for column in columns]
        row += [format_ratio(values["atencion"], values["pytorch"]),
                format_ratio(values["atencion"], max(blas) if blas else None)]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


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
    for round_number in range(args.rounds):
        print(f"round {round_number + 1} of {args.rounds}", file=sys.stderr)
        results = {"atencion": run_atencion(cases, args)}
        for backend in BACKENDS:
            results[backend] = run_backend(backend, cases, args)
        for backend, values in results.items():
            for name, value in values.items():
                best[backend][name] = max(value, best[backend].get(name, 0.0))

    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.threads} threads, "
          f"best of {args.rounds} rounds of {args.min_time} s per case\n")
    print(table(cases, best))


if __name__ == "__main__":
    main()
