"""The markdown tables compare.py prints: rates, ratios, fractions of the FMA peak, time per
token, peak RSS, kernel costs, every setting, and the thread sweep."""

from typing import Dict, List, Optional, Tuple

from comparison.backends import Backend, backends, columns_of
from comparison.cases import Case
from comparison.processes import Measured


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
          all_backends: Dict[str, Backend], peak_all_threads: str) -> str:
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
                               else peak_all_threads))
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
