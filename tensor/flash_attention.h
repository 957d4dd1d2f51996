// tensor/flash_attention.h — attention without the T×T matrix (FlashAttention, Dao et al. 2022
// and FlashAttention-2, 2023), the forward and backward kernels under autograd's
// flash_attention (autograd/ops/flash_attention.cpp).
// Lesson: docs/14-flash-attention.md
//
//   S = scale · Q Kᵀ (−∞ where mask is false),  P = softmax(S) row by row,  O = (P ∘ Z) V
//
// with Z the dropout factors (0 or 1/(1−p); all 1 without dropout). The kernels never hold
// more of S or P than one tile of 64 queries × 64 keys: the forward keeps, per query row, the
// running maximum m and the running sum l of the online softmax and stores the output and the
// row log-sum-exp L = m + log l; the backward rebuilds each tile of P as e^(S − L).
//
// Shapes: query [..., m_q, d_k], key [..., m_k, d_k], value [..., m_k, d_v] with the same
// leading dims (no broadcasting between them); the last dim of each must have stride 1 (other
// strides are read as they are, so split heads need no copy). mask (optional, Bool, true = may
// attend) broadcasts to [..., m_q, m_k]. A query row with no visible key gets output 0.
//
// Threads: the forward splits (leading index, tile of 64 queries); the backward splits the
// leading index (batch × heads) and runs each one's tiles in a fixed order. Every number is
// summed by one thread in one order: the bits do not depend on the number of threads.
#pragma once

#include <cstdint>

#include "tensor/random.h"
#include "tensor/tensor.h"

namespace atencion {

// Keys (and values) per tile, B_c in the paper; queries per tile, B_r. A head whose keys fit
// one tile gains nothing from streaming them (nn/scaled_dot_product_attention.h's Path::Auto).
constexpr int64_t kFlashKeyTile = 64;
constexpr int64_t kFlashQueryTile = 64;

// Dropout on the attention weights, drawn by the rule of tensor/random.h as if the weights
// [..., m_q, m_k] were a tensor of their own: weight (b, i, j), b the flat leading index, is
// element (b·m_q + i)·m_k + j of dropout's mask drawn from `draws`. That is a function of
// (draws' state, b, i, j) alone, so any tile is drawn by any thread and the backward draws the
// same mask again; it is also exactly the mask the step-by-step path's dropout draws.
struct AttentionDropout {
  double p = 0.0;  // 0: no dropout
  Generator draws{0};
};

struct FlashAttentionOutput {
  Tensor output;     // O [..., m_q, d_v]
  Tensor logsumexp;  // L [..., m_q] = m + log l; +∞ for a row with no visible key (so e^(S−L) = 0)
};

FlashAttentionOutput flash_attention_forward(const Tensor& query, const Tensor& key,
                                             const Tensor& value, const Tensor& mask,
                                             double scale, const AttentionDropout& dropout = AttentionDropout{});

struct FlashAttentionGrads {
  Tensor query, key, value;  // dQ, dK, dV, contiguous, in the shapes of query, key and value
};

// `output` and `logsumexp` are the forward's, for the same inputs, mask, scale and dropout.
FlashAttentionGrads flash_attention_backward(const Tensor& grad_output, const Tensor& query,
                                             const Tensor& key, const Tensor& value,
                                             const Tensor& mask, const Tensor& output,
                                             const Tensor& logsumexp, double scale,
                                             const AttentionDropout& dropout = AttentionDropout{});

}  // namespace atencion
