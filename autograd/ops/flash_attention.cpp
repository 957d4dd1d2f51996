// autograd/ops/flash_attention.cpp — attention as one op, without the T×T matrix.
// Lesson: docs/14-flash-attention.md
//
// Forward (tensor/flash_attention.cpp, tile by tile, with an online softmax):
//   S = scale · Q Kᵀ (−∞ where mask is false)    P = softmax(S)    O = (P ∘ Z) V
// Z is dropout's 0 or 1/(1−p) per weight (all 1 without dropout). Kept for the backward: Q, K,
// V, O and the row log-sum-exp L = m + log l, O(rows) numbers instead of P's O(rows · keys).
//
// Backward, each line the derivative of the forward line it names (g = dL/dO):
//   O = (P ∘ Z) V          →  dV = (P ∘ Z)ᵀ g           dP = Z ∘ (g Vᵀ)
//   P = softmax(S)         →  dS_ij = P_ij (dP_ij − Σ_k P_ik dP_ik)       (autograd/ops/softmax.cpp)
//                             where Σ_k P_ik dP_ik = Σ_k P_ik Z_ik (g_i · v_k) = g_i · O_i = D_i,
//                             so D = rowsum(g ∘ O) needs no row of P
//   S = scale · Q Kᵀ       →  dQ = scale · dS K          dK = scale · dSᵀ Q
// P itself is rebuilt a tile at a time as e^(S − L) from Q, K and L; Z by drawing its words again.
// Masked weights have P = 0 and so get no gradient, as in the step-by-step version.
#include "autograd/ops.h"
#include "tensor/flash_attention.h"

namespace atencion {

namespace {

Variable record_flash_attention(const Variable& query, const Variable& key, const Variable& value,
                                const Tensor& mask, double scale, const AttentionDropout& dropout) {
  const FlashAttentionOutput forward =
      flash_attention_forward(query.value(), key.value(), value.value(), mask, scale, dropout);
  const Tensor q = query.value(), k = key.value(), v = value.value();
  const Tensor output = forward.output, logsumexp = forward.logsumexp;
  return record("flash_attention", forward.output, {query, key, value},
                [=](const Tensor& g) -> Grads {
                  FlashAttentionGrads grads = flash_attention_backward(g, q, k, v, mask, output,
                                                                       logsumexp, scale, dropout);
                  return {grads.query, grads.key, grads.value};
                });
}

}  // namespace

Variable flash_attention(const Variable& query, const Variable& key, const Variable& value,
                         const Tensor& mask, double scale) {
  return record_flash_attention(query, key, value, mask, scale, AttentionDropout{0.0, Generator(0)});
}

Variable flash_attention(const Variable& query, const Variable& key, const Variable& value,
                         const Tensor& mask, double scale, double dropout, Generator& generator) {
  const AttentionDropout draws{dropout, generator};  // the state before this mask's draws
  // The next call draws a new mask: skip the words of this one's [..., m_q, m_k] weights, as
  // dropout(weights, p, generator) would.
  const int64_t weights = query.value().numel() / std::max<int64_t>(1, query.size(-1)) *
                          key.size(-2);
  generator.skip(dropout_words(weights));
  return record_flash_attention(query, key, value, mask, scale, draws);
}

}  // namespace atencion
