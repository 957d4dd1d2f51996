// nn/scaled_dot_product_attention.h — Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V.
// Lesson: docs/05-scaled-dot-product-attention.md ; notebooks 003, 000 and 001.
//
// The step-by-step path reads as the notebooks' diagram, one named line per box:
//   MatMul → Scale → Mask (optional) → Softmax → (Dropout) → MatMul
//
// Shapes (any leading batch dims, e.g. [batch, heads]):
//   query [..., m_q, d_k]   key [..., m_k, d_k]   value [..., m_k, d_v]
//   scores = query · keyᵀ            [..., m_q, m_k]     ((m_D × n)·(n × m_E) = (m_D × m_E))
//   output = attention_weights · value  [..., m_q, d_v]  ((m_D × m_E)·(m_E × n) = (m_D × n))
//
// Two paths, one result (docs/14-flash-attention.md). The fused kernel (autograd's
// flash_attention) computes the same formula tile by tile, never holding the [..., m_q, m_k]
// weights, so memory grows with m_q + m_k instead of m_q · m_k. By default (Path::Auto)
// forward() runs it when the keys fill more than one of its tiles (m_k > kFlashKeyTile = 64),
// where it is faster and its memory saving starts; below that, where a head is one tile whose
// exponentials the backward would compute again, it runs the step-by-step path above (measured:
// docs/14-flash-attention.md#two-paths-one-contract). set_path picks one path for every
// length; query, key and value with different leading dims (broadcasting) always take the
// step-by-step path. A test pins both paths equal.
//
// In inference (no graph, no dropout) the step-by-step path runs the batch's rows (the first
// dim) on the thread pool, a run of rows per task, each run by the same lines on its slice: a
// decoding step of many rows is many attentions too small for any one kernel to split
// (docs/17-serving.md#under-load). The bits are the whole batch's for any number of threads.
//
// The module keeps nothing of a call: the weights go to an AttentionObserver handed to forward
// (nn/attention_observer.h), after either path. On the fused path, which never holds them, an
// observed call computes them for the observed rows only, by the step-by-step lines.
//
// Arguments come in the order query, key, value. The notebooks' forward(key, query, value)
// takes the key first while their MultiHeadAttention passes (Q, K, V): with different
// projections that computes softmax(K Qᵀ) instead of softmax(Q Kᵀ). Ours follows the paper.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/attention_observer.h"
#include "nn/dropout.h"
#include "nn/module.h"

namespace atencion::nn {

class ScaledDotProductAttention : public Module {
 public:
  enum class Path { Auto, Fused, StepByStep };

  ScaledDotProductAttention();  // no dropout
  // Dropout with probability `dropout` on the attention weights while training (as
  // torch.nn.MultiheadAttention does); its seed is drawn from `generator`.
  ScaledDotProductAttention(double dropout, Generator& generator);

  // `mask` (optional, Bool, true = may attend: nn/masks.h) broadcasts to the scores
  // [..., m_q, m_k]. A query whose keys are all masked gets all-zero weights and a zero output.
  // `observer` (optional) receives softmax(mask(Q Kᵀ / √d_k)) [..., m_q, m_k] of the rows it
  // asks for, without history: for inspection and heat maps (before dropout, so each row sums
  // to 1 or is all zero).
  Variable forward(const Variable& query, const Variable& key, const Variable& value,
                   const Tensor& mask = Tensor(), AttentionObserver* observer = nullptr);
  Variable operator()(const Variable& query, const Variable& key, const Variable& value,
                      const Tensor& mask = Tensor(), AttentionObserver* observer = nullptr) {
    return forward(query, key, value, mask, observer);
  }

  void set_path(Path path) { path_ = path; }
  Path path() const { return path_; }

  std::string type_name() const override;

 private:
  Variable forward_step_by_step(const Variable& query, const Variable& key,
                                const Variable& value, const Tensor& mask,
                                AttentionObserver* observer);
  // The step-by-step path in inference, the batch's rows shared among the threads (.cpp).
  Variable forward_rows(const Tensor& query, const Tensor& key, const Tensor& value,
                        const Tensor& mask, AttentionObserver* observer);
  // The fused path's weights for the observer: its rows of query, key and mask, step by step.
  void observe_fused(const Variable& query, const Variable& key, const Tensor& mask,
                     AttentionObserver& observer) const;

  std::shared_ptr<Dropout> dropout_;
  Path path_ = Path::Auto;
};

// Sets the path of every ScaledDotProductAttention in `model` (itself included), e.g. a whole
// Transformer step by step for a lesson, or to compare the two paths.
void set_attention_path(Module& model, ScaledDotProductAttention::Path path);

}  // namespace atencion::nn
