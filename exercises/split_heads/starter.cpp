// exercises/split_heads/starter.cpp — where the exercise starts (docs/exercises.md#split_heads).
// Either way of starting judges the same: `tools/exercise.sh split_heads` copies me to
// exercises/split_heads/mine.cpp (git ignores it) and judges that file; or copy me anywhere and run
// `tools/exercise.sh split_heads FILE`. I compile as I am, and my judge fails "not written yet".
//
// Tools you need (autograd/ops.h): reshape(x, {…}) and transpose(x, dim0, dim1). Both record
// their backward, so the gradients come for free. x.size(d) reads a dimension (an int64_t).
// Yours to work out (docs/06, Split and concat, and nn/heads.cpp are the answer): head i must
// get the features i·head_dim up to (i+1)·head_dim of every token, as the paper's weights
// expect. Which view of a token's features does that: [heads, head_dim] or [head_dim, heads]?
// Then which two dims must trade places to give [batch, heads, tokens, head_dim]?
#include <stdexcept>

#include "autograd/ops.h"
#include "exercises/split_heads/split_heads.h"

namespace atencion::exercise {

Variable split_heads(const Variable& x, int64_t heads) {
  // TODO: x is [batch, tokens, features]; return [batch, heads, tokens, head_dim].
  (void)x, (void)heads;
  throw std::logic_error("split_heads: not written yet (exercise split_heads)");
}

Variable merge_heads(const Variable& x) {
  // TODO: undo split_heads: [batch, heads, tokens, head_dim] back to [batch, tokens, features].
  (void)x;
  throw std::logic_error("merge_heads: not written yet (exercise split_heads)");
}

}  // namespace atencion::exercise
