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

The parts, one job each, are in bench/comparison/: cases.py (what is measured; how to add a
case), torch_setups.py and openblas_setups.py (the baselines' side of each case), backends.py
(the baselines' settings), processes.py (running both sides in rounds) and tables.py (the
output). Adding a case: see comparison/cases.py.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

from comparison.backends import backends
from comparison.cases import CASES, PEAK_ONE_THREAD, Case, peak_name
from comparison.processes import measure, sweep_counts, worker
from comparison.tables import (counters_table, long_table, rss_table, settings_table, spread,
                               sweep_table, table)

HERE = os.path.dirname(os.path.abspath(__file__))


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

    peak_all_threads = peak_name(args.threads)
    peaks = [PEAK_ONE_THREAD] if args.threads == 1 else [PEAK_ONE_THREAD, peak_all_threads]
    CASES.extend(Case(name, "bench_peak", "gflops", 0.0) for name in peaks)
    cases = [c for c in CASES if re.search(args.filter, c.name) and c.name not in peaks]
    cases += [c for c in CASES if c.name in peaks]  # the peak heads every table

    counts = sweep_counts(args.threads) if args.sweep else [args.threads]
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
          f"order; each cell is median (min–max) over the rounds\n")
    print(table(cases, measured.rounds, all_backends, peak_all_threads))
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
