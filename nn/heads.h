// nn/heads.h — cut the model dimension into h heads and glue them back.
// Lesson: docs/06-multi-head-attention.md#split-and-concat ; notebook 002 (split, concat).
//
// The paper's MultiHead(Q, K, V) = Concat(head_1, …, head_h) W^O gives head i the contiguous
// block of dims [i·head_dim, (i+1)·head_dim) of each projected token, as drawn in notebook 002
// and as torch.nn.MultiheadAttention does:
//
//   x [batch, tokens, heads·head_dim] → view [batch, tokens, heads, head_dim]
//                                     → transpose(1, 2) → [batch, heads, tokens, head_dim]
//
// (Notebook 002's split() views as [batch, tokens, head_dim, heads] instead, which hands head i
// the dims i, i+h, i+2h, …: a different and unusual layout; with learned projections either
// layout can train, but weights from torch would not load.)
#pragma once

#include <cstdint>

#include "autograd/variable.h"

namespace atencion::nn {

// [batch, tokens, heads·head_dim] → [batch, heads, tokens, head_dim]
Variable split_heads(const Variable& x, int64_t heads);
// [batch, heads, tokens, head_dim] → [batch, tokens, heads·head_dim]  (the paper's Concat)
Variable merge_heads(const Variable& x);

}  // namespace atencion::nn
