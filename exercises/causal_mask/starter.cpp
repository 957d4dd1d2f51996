// exercises/causal_mask/starter.cpp — where the exercise starts (docs/exercises.md#causal_mask).
// Either way of starting judges the same: `tools/exercise.sh causal_mask` copies me to
// exercises/causal_mask/mine.cpp (git ignores it) and judges that file; or copy me anywhere and run
// `tools/exercise.sh causal_mask FILE`. I compile as I am, and my judge fails "not written yet".
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
