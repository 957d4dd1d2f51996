// exercises/split_heads/starter.cpp — copy me to a file of your own, write the two functions,
// and run:  tools/exercise.sh split_heads your_file.cpp
//
// Tools you need (autograd/ops.h): reshape(x, {…}) and transpose(x, dim0, dim1). Both record
// their backward, so the gradients come for free. x.size(d) reads a dimension.
#include <stdexcept>

#include "autograd/ops.h"
#include "exercises/split_heads/split_heads.h"

namespace atencion::exercise {

Variable split_heads(const Variable& x, int64_t heads) {
  // TODO: view x [batch, tokens, features] as [batch, tokens, heads, head_dim], then swap
  // the tokens and heads dims.
  (void)x, (void)heads;
  throw std::logic_error("split_heads: not written yet (exercise split_heads)");
}

Variable merge_heads(const Variable& x) {
  // TODO: undo split_heads.
  (void)x;
  throw std::logic_error("merge_heads: not written yet (exercise split_heads)");
}

}  // namespace atencion::exercise
