// exercises/split_heads/wrong.cpp — notebook 002's split: view [batch, tokens, head_dim, heads],
// so head i gets the features i, i+h, i+2h, … (stride h) instead of a block. The shapes are
// right and merge_heads undoes it exactly: only the values tell.
#include "autograd/ops.h"
#include "exercises/split_heads/split_heads.h"

namespace atencion::exercise {

Variable split_heads(const Variable& x, int64_t heads) {
  const int64_t batch = x.size(0), tokens = x.size(1), head_dim = x.size(2) / heads;
  Variable strided = reshape(x, {batch, tokens, head_dim, heads});
  return permute(strided, {0, 3, 1, 2});  // [batch, heads, tokens, head_dim]
}

Variable merge_heads(const Variable& x) {
  const int64_t batch = x.size(0), heads = x.size(1), tokens = x.size(2), head_dim = x.size(3);
  return reshape(permute(x, {0, 2, 3, 1}), {batch, tokens, head_dim * heads});
}

}  // namespace atencion::exercise
