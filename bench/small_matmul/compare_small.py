#!/usr/bin/python3
"""bench/small_matmul/compare_small.py — small and batched float32 products: atencion next to
OpenBLAS and Eigen, in alternating rounds. Lesson:
docs/performance.md#small-products-the-kernel-on-the-operands-where-they-are

Runs build/bench/bench_small_matmul once per side, thread count and round, each in its own
process, in the order A B C in one round and C B A in the next, so that a busy moment on a
shared machine does not fall on one side only. Prints, per thread count, each side's GFLOP/s as
median (min–max) over the rounds, and atencion's ratio to each baseline as the ratio of the
medians with its range (our slowest round over their fastest to our fastest over their
slowest), as bench/compare.py does.

    /usr/bin/python3 bench/small_matmul/compare_small.py --build build
    /usr/bin/python3 bench/small_matmul/compare_small.py --build build --threads 1 --filter bmm_
    /usr/bin/python3 bench/small_matmul/compare_small.py --build build --against ../main/build

--against adds another build's atencion as a side ("before"), for an A/B of a change.
Needs only the Python standard library.
"""

import argparse
import datetime
import os
import subprocess
import sys
from typing import Dict, List

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from compare import cpu_model, format_ratio, format_spread  # noqa: E402  (bench/compare.py)


def run_side(program: str, backend: str, threads: int, args) -> Dict[str, float]:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    command = [program, "--backend", backend, "--threads", str(threads),
               "--min-time", str(args.min_time)]
    if args.filter:
        command += ["--filter", args.filter]
    output = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    rates = {}
    for line in output.splitlines():
        name, rate = line.split()
        rates[name] = float(rate)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the CMake build directory")
    parser.add_argument("--against", help="another build directory: its atencion as 'before'")
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--filter", help="only the cases whose name contains this")
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="seconds per timed run (each side takes the best of three)")
    args = parser.parse_args()

    program = os.path.join(args.build, "bench", "bench_small_matmul")
    sides = [("atencion", program, "atencion"), ("OpenBLAS", program, "openblas"),
             ("Eigen", program, "eigen")]
    if args.against:
        sides.insert(1, ("before", os.path.join(args.against, "bench", "bench_small_matmul"),
                         "atencion"))
    print(f"{cpu_model()}, {os.cpu_count()} cores; "
          f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; {args.rounds} alternating rounds")
    for threads in [int(t) for t in args.threads.split(",")]:
        rounds: Dict[str, Dict[str, List[float]]] = {label: {} for label, _, _ in sides}
        for round_index in range(args.rounds):
            order = sides if round_index % 2 == 0 else list(reversed(sides))
            for label, path, backend in order:
                for name, rate in run_side(path, backend, threads, args).items():
                    rounds[label].setdefault(name, []).append(rate)
        labels = [label for label, _, _ in sides]
        baselines = labels[1:]
        print(f"\n### {threads} thread{'s' if threads > 1 else ''}: GFLOP/s, median (min–max)\n")
        print("| case | " + " | ".join(labels) + " | " +
              " | ".join(f"vs {b}" for b in baselines) + " |")
        print("|---" * (len(labels) + len(baselines) + 1) + "|")
        for name in rounds["atencion"]:
            cells = [format_spread(rounds[label].get(name)) for label in labels]
            ratios = [format_ratio(rounds["atencion"][name], rounds[b].get(name))
                      for b in baselines]
            print(f"| {name} | " + " | ".join(cells + ratios) + " |")


if __name__ == "__main__":
    main()
