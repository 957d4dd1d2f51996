// nn/multi_head_attention.h — h attention heads side by side, each on its own projection.
// Lesson: docs/06-multi-head-attention.md ; notebooks 003 (encoder), 000 (masked decoder),
// 001 (encoder-decoder), 002 (the formulas).
//
//   MultiHead(Q, K, V) = Concat(head_1, …, head_h) W^O
//   head_i = Attention(Q W^Q_i, K W^K_i, V W^V_i)
//
// forward() reads as the diagram: project → split → attend → concat → project.
//
// One class serves the notebooks' three uses (batch first, [batch, tokens, features]):
//   encoder self-attention          forward(x, x, x)
//   decoder masked self-attention   forward(y, y, y, causal_mask(m_D))
//   encoder-decoder attention       forward(y, memory, memory)  with m_D ≠ m_E tokens
// and key-padding masks combine with any of them (nn/masks.h, true = may attend).
//
// Parameters and PyTorch. torch.nn.MultiheadAttention keeps the three input projections packed
// in one `in_proj_weight` [3·d_model, d_model] (rows [0, d) for Q, [d, 2d) for K, [2d, 3d) for V)
// and `in_proj_bias` [3·d_model] — or, when kdim/vdim differ from d_model, in separate
// `q_proj_weight`, `k_proj_weight` [d_model, kdim], `v_proj_weight` [d_model, vdim]. Here each
// projection is its own Linear, so a checkpoint names them
//   q_proj.weight q_proj.bias k_proj.weight k_proj.bias v_proj.weight v_proj.bias
//   out_proj.weight out_proj.bias
// and torch's weights load after cutting in_proj_weight/in_proj_bias into three row blocks
// (tools/make_fixtures.py does exactly that). The initialisation is torch's too: Xavier-uniform
// input projections (over the packed [3d, d] matrix when kdim = vdim = d_model), zero input and
// output biases, and Linear's default for out_proj.weight.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "nn/key_value_cache.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/scaled_dot_product_attention.h"

namespace atencion::nn {

struct MultiHeadAttentionOptions {
  int64_t kdim = 0;      // features of the key input; 0 means d_model
  int64_t vdim = 0;      // features of the value input; 0 means d_model
  bool bias = true;      // biases in all four projections
  double dropout = 0.0;  // on the attention weights, while training
};

class MultiHeadAttention : public Module {
 public:
  MultiHeadAttention(int64_t d_model, int64_t heads, Generator& generator);
  MultiHeadAttention(int64_t d_model, int64_t heads, const MultiHeadAttentionOptions& options,
                     Generator& generator);

  // query [batch, m_q, d_model], key [batch, m_k, kdim], value [batch, m_k, vdim]
  //   -> [batch, m_q, d_model].
  // `mask` (optional, Bool, true = may attend) broadcasts to [batch, heads, m_q, m_k]:
  // causal_mask(m) [m, m], padding_mask(lengths, m_k) [batch, 1, 1, m_k], or both combined.
  // With a `cache` (incremental decoding, inference only: nn/key_value_cache.h), the projected
  // keys and values of `key` and `value` (m_k new positions, 0 allowed) are written into it after
  // those of the earlier calls, and the queries attend to all of them: the mask then broadcasts
  // to [batch, heads, m_q, cache length].
  // `observer` (optional, nn/attention_observer.h) receives each head's
  // softmax(Q_i K_iᵀ / √head_dim), [rows, heads, m_q, m_k], filed under `attention`.
  // (torch returns their mean over heads by default: average_attn_weights=True.)
  Variable forward(const Variable& query, const Variable& key, const Variable& value,
                   const Tensor& mask = Tensor(), KeyValueCache* cache = nullptr,
                   AttentionObserver* observer = nullptr);
  Variable operator()(const Variable& query, const Variable& key, const Variable& value,
                      const Tensor& mask = Tensor(), KeyValueCache* cache = nullptr,
                      AttentionObserver* observer = nullptr) {
    return forward(query, key, value, mask, cache, observer);
  }

  std::string type_name() const override;
  int64_t d_model() const { return d_model_; }
  int64_t heads() const { return heads_; }
  int64_t head_dim() const { return d_model_ / heads_; }

  std::shared_ptr<Linear> q_proj;  // query features -> d_model  (W^Q for all heads at once)
  std::shared_ptr<Linear> k_proj;  // kdim -> d_model             (W^K)
  std::shared_ptr<Linear> v_proj;  // vdim -> d_model             (W^V)
  std::shared_ptr<ScaledDotProductAttention> attention;  // all heads in one batched call
  std::shared_ptr<Linear> out_proj;                      // d_model -> d_model          (W^O)

 private:
  // Q W^Q, K W^K and V W^V; for self-attention (query, key and value the same Variable) by
  // forward_together, one product where the weights allow it (nn/linear.h).
  std::array<Variable, 3> project(const Variable& query, const Variable& key,
                                  const Variable& value) const;

  int64_t d_model_;
  int64_t heads_;
  int64_t kdim_;
  int64_t vdim_;
  double dropout_;
};

}  // namespace atencion::nn
