#!/usr/bin/python3
"""bench/busy_loops.py — the machine a learner really has: N busy loops beside a benchmark.

A busy loop is a process that only spins (`while :; do :; done`), as a compile or another
training run would keep a core busy; with one per core, every thread of the benchmark shares
its core with one. compare.py's `--busy N` runs its rounds beside N of them (busy_loops.running).

Run as a program, it measures two builds of the same Google Benchmark program against each other
(A/B), in alternating rounds (A B, B A, A B, ...) so that both sides see the same load:

    /usr/bin/python3 bench/busy_loops.py --busy 2 --rounds 5 \\
        --a /path/to/main/build --b build --program bench_attention \\
        --filter 'mha_forward_backward/B64_T20_D128_H4/threads:(1|2)$' --metric tokens_per_second

It prints each case's median (min–max) on each side and B's ratio of medians over A's.
"""

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
from typing import Dict, Iterator, List


@contextlib.contextmanager
def running(count: int) -> Iterator[None]:
    """`count` busy loops, as separate processes, while the block runs."""
    loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def one_run(build: str, program: str, filter_: str, metrics: List[str], min_time: float,
            env: Dict[str, str]) -> Dict[str, float]:
    """Each case's figure for each metric it reports, keyed "name" (one metric) or "name metric"."""
    command = [os.path.join(build, "bench", program), "--benchmark_format=json",
               f"--benchmark_filter={filter_}", f"--benchmark_min_time={min_time}"]
    output = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    return {entry["name"] + ("" if len(metrics) == 1 else f" {metric}"): entry[metric]
            for entry in json.loads(output)["benchmarks"] for metric in metrics if metric in entry}


def spread(values: List[float]) -> str:
    return f"{statistics.median(values):.4g} ({min(values):.4g}–{max(values):.4g})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside both sides")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--a", required=True, help="build directory of side A (the old one)")
    parser.add_argument("--b", required=True, help="build directory of side B (the new one)")
    parser.add_argument("--program", default="bench_attention")
    parser.add_argument("--filter", default="")
    parser.add_argument("--metric", default="tokens_per_second",
                        help="a counter, or several separated by commas (a row for each)")
    parser.add_argument("--min-time", type=float, default=0.5)
    args = parser.parse_args()
    if args.rounds < 3:
        parser.error("--rounds must be at least 3: a median and a range need them")

    env = dict(os.environ)
    figures: Dict[str, Dict[str, List[float]]] = {"A": {}, "B": {}}
    with running(args.busy):
        for round_number in range(args.rounds):
            order = ["A", "B"] if round_number % 2 == 0 else ["B", "A"]
            for side in order:
                build = args.a if side == "A" else args.b
                for name, value in one_run(build, args.program, args.filter,
                                           args.metric.split(","), args.min_time, env).items():
                    figures[side].setdefault(name, []).append(value)
            print(f"round {round_number + 1} of {args.rounds} done", file=sys.stderr)
    print(f"{args.busy} busy loops, {args.rounds} alternating rounds of {args.min_time} s; "
          f"{args.metric}, median (min–max)\n")
    print(f"| case | A: {args.a} | B: {args.b} | B / A |")
    print("|---|---|---|---|")
    for name, a_values in figures["A"].items():
        b_values = figures["B"].get(name, [])
        if not b_values:
            continue
        ratio = statistics.median(b_values) / statistics.median(a_values)
        print(f"| {name} | {spread(a_values)} | {spread(b_values)} | {ratio:.2f}× |")


if __name__ == "__main__":
    main()
