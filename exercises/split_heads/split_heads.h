// exercises/split_heads/split_heads.h — exercise "split_heads" (docs/exercises.md#split_heads).
// Lesson: docs/06-multi-head-attention.md#split-and-concat
//
// Write both functions in your own file (start from starter.cpp), then judge them with
//   tools/exercise.sh split_heads path/to/your_file.cpp
#pragma once

#include <cstdint>

#include "autograd/variable.h"

namespace atencion::exercise {

// [batch, tokens, heads·head_dim] → [batch, heads, tokens, head_dim], head i holding the block
// of features [i·head_dim, (i+1)·head_dim) of every token (the paper's and torch's layout).
Variable split_heads(const Variable& x, int64_t heads);

// [batch, heads, tokens, head_dim] → [batch, tokens, heads·head_dim]: the paper's Concat, the
// inverse of split_heads.
Variable merge_heads(const Variable& x);

}  // namespace atencion::exercise
