"""Running the two sides: atencion's benchmark programs and the baselines' worker processes,
each in a process of its own, over alternating rounds."""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from comparison.backends import backends
from comparison.cases import CASES, Case

# The script whose --worker mode measures one baseline setting in a child process.
COMPARE_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              "compare.py")


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
        command = [sys.executable, COMPARE_SCRIPT, "--worker", backend,
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
