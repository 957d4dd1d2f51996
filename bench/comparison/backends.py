"""The baselines' settings: every setting each baseline runs with, in a process of its own."""

import os
from dataclasses import dataclass
from typing import Dict, List, Optional


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
