// nn/heads.cpp — split_heads / merge_heads in the paper's contiguous block layout.
// Lesson: docs/06-multi-head-attention.md#split-and-concat
#include "nn/heads.h"

#include <stdexcept>
#include <string>

#include "autograd/ops.h"

namespace atencion::nn {

Variable split_heads(const Variable& x, int64_t heads) {
  if (x.dim() != 3 || heads <= 0 || x.size(2) % heads != 0) {
    throw std::invalid_argument("split_heads: input " + shape_to_string(x.shape()) +
                                " must be [batch, tokens, features] with features divisible by " +
                                std::to_string(heads) + " heads");
  }
  const int64_t batch = x.size(0), tokens = x.size(1), head_dim = x.size(2) / heads;
  // Head i takes the block of features [i·head_dim, (i+1)·head_dim).
  Variable per_token = reshape(x, {batch, tokens, heads, head_dim});
  return transpose(per_token, 1, 2);  // [batch, heads, tokens, head_dim]
}

Variable merge_heads(const Variable& x) {
  if (x.dim() != 4) {
    throw std::invalid_argument("merge_heads: input " + shape_to_string(x.shape()) +
                                " must be [batch, heads, tokens, head_dim]");
  }
  const int64_t batch = x.size(0), heads = x.size(1), tokens = x.size(2), head_dim = x.size(3);
  Variable per_token = transpose(x, 1, 2);  // [batch, tokens, heads, head_dim]
  // Concat: the heads' outputs side by side, head i in features [i·head_dim, (i+1)·head_dim).
  return reshape(per_token, {batch, tokens, heads * head_dim});
}

}  // namespace atencion::nn
