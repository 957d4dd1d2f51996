// exercises/causal_mask/wrong.cpp — off by one: query i sees keys 0..i−1, not itself, so the
// first query sees nothing at all (its output is zeros) and every other one misses its token.
#include "exercises/causal_mask/causal_mask.h"

namespace atencion::exercise {

Tensor causal_mask(int64_t n) {
  Tensor mask = Tensor::zeros({n, n}, DType::Bool);
  bool* may_attend = mask.data<bool>();
  for (int64_t query = 0; query < n; ++query) {
    for (int64_t key = 0; key < query; ++key) may_attend[query * n + key] = true;
  }
  return mask;
}

}  // namespace atencion::exercise
