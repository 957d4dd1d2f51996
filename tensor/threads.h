// tensor/threads.h — how many threads the kernels use.
// Follows OMP_NUM_THREADS by default; never more than the machine's cores.
#pragma once

namespace atencion {

int num_threads();
void set_num_threads(int threads);  // clamps to [1, cores]

}  // namespace atencion
