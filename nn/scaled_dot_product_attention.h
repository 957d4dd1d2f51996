// nn/scaled_dot_product_attention.h — Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V.
// Lesson: docs/05-scaled-dot-product-attention.md ; notebooks 003, 000 and 001.
//
// forward() reads as the notebooks' diagram, one named line per box:
//   MatMul → Scale → Mask (optional) → Softmax → (Dropout) → MatMul
//
// Shapes (any leading batch dims, e.g. [batch, heads]):
//   query [..., m_q, d_k]   key [..., m_k, d_k]   value [..., m_k, d_v]
//   scores = query · keyᵀ            [..., m_q, m_k]     ((m_D × n)·(n × m_E) = (m_D × m_E))
//   output = attention_weights · value  [..., m_q, d_v]  ((m_D × m_E)·(m_E × n) = (m_D × n))
//
// Arguments come in the order query, key, value. The notebooks' forward(key, query, value)
// takes the key first while their MultiHeadAttention passes (Q, K, V): with different
// projections that computes softmax(K Qᵀ) instead of softmax(Q Kᵀ). Ours follows the paper.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/dropout.h"
#include "nn/module.h"

namespace atencion::nn {

class ScaledDotProductAttention : public Module {
 public:
  ScaledDotProductAttention();  // no dropout
  // Dropout with probability `dropout` on the attention weights while training (as
  // torch.nn.MultiheadAttention does); its seed is drawn from `generator`.
  ScaledDotProductAttention(double dropout, Generator& generator);

  // `mask` (optional, Bool, true = may attend: nn/masks.h) broadcasts to the scores
  // [..., m_q, m_k]. A query whose keys are all masked gets all-zero weights and a zero output.
  Variable forward(const Variable& query, const Variable& key, const Variable& value,
                   const Tensor& mask = Tensor());
  Variable operator()(const Variable& query, const Variable& key, const Variable& value,
                      const Tensor& mask = Tensor()) {
    return forward(query, key, value, mask);
  }

  // softmax(Q Kᵀ / √d_k) of the last forward call, [..., m_q, m_k], without history: for
  // inspection and heat maps (before dropout, so each row sums to 1 or is all zero).
  const Tensor& attention_weights() const { return attention_weights_; }

  std::string type_name() const override;

 private:
  std::shared_ptr<Dropout> dropout_;
  Tensor attention_weights_;
};

}  // namespace atencion::nn
