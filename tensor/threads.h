// tensor/threads.h — how many threads the kernels use.
// Follows OMP_NUM_THREADS by default; never more than the machine's cores.
#pragma once

#include <cstdint>

namespace atencion {

int num_threads();
void set_num_threads(int threads);  // clamps to [1, cores]

// Below this much work (elements, or elements × cost per element) a kernel runs on one thread:
// starting threads costs more. detail::parallel_for and the OpenMP loops of nn/ both use it.
inline constexpr int64_t kParallelThreshold = 32768;

}  // namespace atencion
