// exercises/causal_mask/starter.cpp — copy me to a file of your own, write causal_mask, and run:
//   tools/exercise.sh causal_mask your_file.cpp
//
// Tensor::zeros({n, n}, DType::Bool) gives all false; mask.data<bool>() is its row-major
// storage (element [i][j] at i·n + j). Which cells must be true? Can query i see itself?
#include <stdexcept>

#include "exercises/causal_mask/causal_mask.h"

namespace atencion::exercise {

Tensor causal_mask(int64_t n) {
  // TODO
  (void)n;
  throw std::logic_error("causal_mask: not written yet (exercise causal_mask)");
}

}  // namespace atencion::exercise
