// nn/masks.cpp — causal and padding masks (true = may attend).
// Lessons: docs/07-masked-attention.md#the-causal-mask, docs/06-multi-head-attention.md#padding
#include "nn/masks.h"

#include <stdexcept>
#include <string>

#include "tensor/ops.h"

namespace atencion::nn {

Tensor causal_mask(int64_t n) {
  if (n < 0) throw std::invalid_argument("causal_mask: size " + std::to_string(n) + " < 0");
  Tensor mask = Tensor::zeros({n, n}, DType::Bool);
  bool* may_attend = mask.data<bool>();
  for (int64_t query = 0; query < n; ++query) {
    for (int64_t key = 0; key <= query; ++key) may_attend[query * n + key] = true;
  }
  return mask;
}

Tensor causal_mask_after(int64_t past, int64_t queries) {
  if (past < 0 || queries < 0)
    throw std::invalid_argument("causal_mask_after: past " + std::to_string(past) + " and queries " +
                                std::to_string(queries) + ": both must be >= 0");
  if (queries == 1) return Tensor();
  if (past == 0) return causal_mask(queries);
  const int64_t keys = past + queries;
  Tensor mask = Tensor::zeros({queries, keys}, DType::Bool);
  bool* may_attend = mask.data<bool>();
  for (int64_t query = 0; query < queries; ++query) {
    for (int64_t key = 0; key <= past + query; ++key) may_attend[query * keys + key] = true;
  }
  return mask;
}

Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t n) {
  const auto batch = static_cast<int64_t>(lengths.size());
  Tensor mask = Tensor::zeros({batch, 1, 1, n}, DType::Bool);
  bool* may_attend = mask.data<bool>();
  for (int64_t b = 0; b < batch; ++b) {
    if (lengths[b] < 0 || lengths[b] > n) {
      throw std::invalid_argument("padding_mask: length " + std::to_string(lengths[b]) +
                                  " of sequence " + std::to_string(b) + " is outside [0, " +
                                  std::to_string(n) + "]");
    }
    for (int64_t key = 0; key < lengths[b]; ++key) may_attend[b * n + key] = true;
  }
  return mask;
}

Tensor combine_masks(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  if (a.dtype() != DType::Bool || b.dtype() != DType::Bool) {
    throw std::invalid_argument(std::string("combine_masks: masks must be bool, got ") +
                                dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()));
  }
  return logical_and(a, b);
}

}  // namespace atencion::nn
