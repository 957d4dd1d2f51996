// nn/masks.h — which keys each query may look at.
// Lessons: docs/07-masked-attention.md#the-causal-mask, docs/06-multi-head-attention.md#padding
//
// Convention: a mask is a Bool tensor where TRUE MEANS "MAY ATTEND". Attention fills the scores
// where the mask is false with -inf before the softmax, as notebook 001 does with
// `scale.masked_fill(mask == 0, float('-inf'))`.
//
// PyTorch's torch.nn.MultiheadAttention uses the OPPOSITE convention for Bool masks: in its
// `key_padding_mask` and `attn_mask`, True means "mask this out". To use a torch mask here,
// take its logical_not (and reshape a [batch, keys] key_padding_mask to [batch, 1, 1, keys]).
//
// Masks broadcast against the attention scores [batch, heads, queries, keys]:
//   causal_mask(n)            [n, n]            the same for every batch element and head
//   causal_mask_after(p, q)   [q, p + q]        q new queries after p cached positions
//   padding_mask(lengths, n)  [batch, 1, 1, n]  the same for every head and query
//   combine_masks(a, b)       their logical_and, e.g. [batch, 1, n, n] for the decoder
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace atencion::nn {

// mask[i][j] = (j <= i): query i sees keys 0..i and nothing of the future (the decoder's
// masked self-attention, notebook 000). Bool [n, n], lower triangle true.
Tensor causal_mask(int64_t n);

// The causal mask for `queries` new positions after `past` cached ones (decoding with a
// key-value cache, docs/15-gpt.md): query i sits at position past + i and may see keys
// 0 .. past + i. Bool [queries, past + queries]; causal_mask(queries) when nothing is cached,
// and undefined (no mask) for one new position, since nothing after it exists yet.
// Throws if past or queries is negative.
Tensor causal_mask_after(int64_t past, int64_t queries);

// mask[b][0][0][j] = (j < lengths[b]): every query of sequence b sees its real tokens and none
// of the padding after them. Bool [batch, 1, 1, n]. Throws if a length is outside [0, n].
Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t n);

// Both conditions at once (logical_and, broadcasting). An undefined mask means "no mask", so
// combine_masks(Tensor(), m) is m and combining two undefined masks gives an undefined one.
Tensor combine_masks(const Tensor& a, const Tensor& b);

}  // namespace atencion::nn
