// nn/wide_self_attention.cpp — notebook 004's SelfAttentionWithTricks, step by step.
// Lesson: docs/09-wide-attention.md
#include "nn/wide_self_attention.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "autograd/ops.h"
#include "nn/heads.h"
#include "nn/masks.h"

namespace atencion::nn {

namespace {
constexpr double kMaskedScore = -std::numeric_limits<double>::infinity();
}  // namespace

WideSelfAttention::WideSelfAttention(int64_t k, int64_t heads, bool causal, Generator& generator)
    : k_(k), heads_(heads), causal_(causal) {
  if (k <= 0 || heads <= 0) {
    throw std::invalid_argument("WideSelfAttention: k " + std::to_string(k) + " and heads " +
                                std::to_string(heads) + " must be positive");
  }
  // The notebook's order of creation: keys, queries, values, then unifyheads.
  tokeys = register_module("tokeys", std::make_shared<Linear>(k, k * heads, false, generator));
  toqueries =
      register_module("toqueries", std::make_shared<Linear>(k, k * heads, false, generator));
  tovalues = register_module("tovalues", std::make_shared<Linear>(k, k * heads, false, generator));
  unifyheads =
      register_module("unifyheads", std::make_shared<Linear>(heads * k, k, true, generator));
}

std::string WideSelfAttention::type_name() const {
  return "WideSelfAttention(k=" + std::to_string(k_) + ", heads=" + std::to_string(heads_) +
         ", causal=" + (causal_ ? "true" : "false") + ")";
}

Variable WideSelfAttention::forward(const Variable& x) {
  if (x.dim() != 3 || x.size(2) != k_) {
    throw std::invalid_argument("WideSelfAttention(k=" + std::to_string(k_) + ", heads=" +
                                std::to_string(heads_) + "): input " + shape_to_string(x.shape()) +
                                " must be [batch, t, " + std::to_string(k_) + "]");
  }
  const int64_t tokens = x.size(1);
  // Project and split: one k-wide block per head, [batch, heads, t, k].
  Variable queries = split_heads((*toqueries)(x), heads_);
  Variable keys = split_heads((*tokeys)(x), heads_);
  Variable values = split_heads((*tovalues)(x), heads_);
  // Scale queries and keys by k^(1/4) each: together that is the 1/√k of scaled attention.
  const double fourth_root_of_k = std::pow(static_cast<double>(k_), 0.25);
  queries = div(queries, fourth_root_of_k);
  keys = div(keys, fourth_root_of_k);
  // Dot products of every query with every key, [batch, heads, t, t].
  Variable scores = matmul(queries, keys, Trans::No, Trans::Yes);
  // Causal (optional): token i may not look at tokens after it (docs/07-masked-attention.md).
  if (causal_) scores = masked_fill(scores, logical_not(causal_mask(tokens)), kMaskedScore);
  Variable weights = softmax(scores, -1);
  attention_weights_ = weights.value();
  // Weighted sums of the values, then the heads side by side: [batch, t, heads·k].
  Variable out = merge_heads(matmul(weights, values));
  // Unify heads: heads·k -> k features.
  return (*unifyheads)(out);
}

}  // namespace atencion::nn
