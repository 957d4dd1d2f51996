// nn/wide_self_attention.h — notebook 004's "self-attention with tricks" (after Peter Bloem's
// "Transformers from scratch").
// Lesson: docs/09-wide-attention.md
//
// Unlike MultiHeadAttention, whose h heads each see a d_model/h-wide slice, every head here is
// "wide": it sees all k features of every token.
//   toqueries, tokeys, tovalues   Linear(k, k·heads, bias=false)   one k-wide block per head
//   queries, keys                 each divided by k^(1/4), so their product is divided by √k
//                                 (smaller numbers before the product: exp cannot overflow)
//   weights                       softmax(queries · keysᵀ) per head      [batch, heads, t, t]
//   unifyheads                    Linear(heads·k, k)                      back to k features
// With `causal`, token i sees only tokens 0..i (the decoder's mask).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/linear.h"
#include "nn/module.h"

namespace atencion::nn {

class WideSelfAttention : public Module {
 public:
  WideSelfAttention(int64_t k, int64_t heads, bool causal, Generator& generator);
  WideSelfAttention(int64_t k, int64_t heads, Generator& generator)
      : WideSelfAttention(k, heads, /*causal=*/false, generator) {}

  // x [batch, t, k] -> [batch, t, k]
  Variable forward(const Variable& x);
  Variable operator()(const Variable& x) { return forward(x); }

  // softmax weights of the last forward, [batch, heads, t, t], without history.
  const Tensor& attention_weights() const { return attention_weights_; }

  std::string type_name() const override;
  int64_t k() const { return k_; }
  int64_t heads() const { return heads_; }
  bool causal() const { return causal_; }

  std::shared_ptr<Linear> tokeys;
  std::shared_ptr<Linear> toqueries;
  std::shared_ptr<Linear> tovalues;
  std::shared_ptr<Linear> unifyheads;

 private:
  int64_t k_;
  int64_t heads_;
  bool causal_;
  Tensor attention_weights_;
};

}  // namespace atencion::nn
