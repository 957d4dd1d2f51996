// tensor/threads.cpp — how many OpenMP threads the kernels use.
// Lesson: docs/01-tensor.md#broadcasting (kernels split their outputs between threads) and
// docs/performance.md
//
// The default is OpenMP's own (OMP_NUM_THREADS if set, else one per core), never more than the
// machine's cores: oversubscribing a shared machine only makes every kernel slower.
#include <omp.h>

#include <algorithm>

#include "tensor/threads.h"

namespace atencion {

namespace {

// The cores this process may run on, asked once: omp_get_num_procs() makes a system call
// (sched_getaffinity) every time, and num_threads() is asked by every parallel loop.
int cores() {
  static const int count = omp_get_num_procs();
  return count;
}

}  // namespace

int num_threads() { return std::clamp(omp_get_max_threads(), 1, cores()); }

void set_num_threads(int threads) { omp_set_num_threads(std::clamp(threads, 1, cores())); }

}  // namespace atencion
