// nn/multi_head_attention.cpp — project, split, attend, concat, project.
// Lesson: docs/06-multi-head-attention.md
#include "nn/multi_head_attention.h"

#include <array>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "autograd/ops.h"
#include "nn/heads.h"

namespace atencion::nn {

namespace {

int64_t checked_head_count(int64_t d_model, int64_t heads) {
  if (d_model <= 0 || heads <= 0 || d_model % heads != 0) {
    throw std::invalid_argument("MultiHeadAttention: d_model " + std::to_string(d_model) +
                                " must be a positive multiple of heads " + std::to_string(heads));
  }
  return heads;
}

// Xavier-uniform U(-b, b), b = √(6 / (fan_in + fan_out)), as torch's xavier_uniform_.
Tensor xavier_uniform(const Shape& shape, int64_t fan_in, int64_t fan_out, Generator& generator) {
  const double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return uniform(shape, -bound, bound, generator);
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(int64_t d_model, int64_t heads, Generator& generator)
    : MultiHeadAttention(d_model, heads, MultiHeadAttentionOptions{}, generator) {}

MultiHeadAttention::MultiHeadAttention(int64_t d_model, int64_t heads,
                                       const MultiHeadAttentionOptions& options,
                                       Generator& generator)
    : d_model_(d_model),
      heads_(checked_head_count(d_model, heads)),
      kdim_(options.kdim > 0 ? options.kdim : d_model),
      vdim_(options.vdim > 0 ? options.vdim : d_model),
      dropout_(options.dropout) {
  if (options.kdim < 0 || options.vdim < 0) {
    throw std::invalid_argument("MultiHeadAttention: kdim " + std::to_string(options.kdim) +
                                " and vdim " + std::to_string(options.vdim) +
                                " must be positive (or 0 for d_model)");
  }
  q_proj = register_module("q_proj",
                           std::make_shared<Linear>(d_model, d_model, options.bias, generator));
  k_proj =
      register_module("k_proj", std::make_shared<Linear>(kdim_, d_model, options.bias, generator));
  v_proj =
      register_module("v_proj", std::make_shared<Linear>(vdim_, d_model, options.bias, generator));
  attention = register_module(
      "attention", std::make_shared<ScaledDotProductAttention>(options.dropout, generator));
  out_proj = register_module("out_proj",
                             std::make_shared<Linear>(d_model, d_model, options.bias, generator));

  // torch.nn.MultiheadAttention's initialisation (its _reset_parameters): Xavier-uniform input
  // projections, drawn over the packed [3d, d] in_proj_weight (fan_out = 3d) when
  // kdim = vdim = d_model, else over each [d, kdim] / [d, vdim] weight; zero biases.
  const bool packed = kdim_ == d_model && vdim_ == d_model;
  for (const auto& projection : {q_proj, k_proj, v_proj}) {
    projection->weight.mutable_value() =
        xavier_uniform(projection->weight.shape(), projection->in_features(),
                       packed ? 3 * d_model : d_model, generator);
  }
  if (options.bias) {
    for (const auto& projection : {q_proj, k_proj, v_proj, out_proj}) {
      projection->bias.mutable_value().fill_(0.0);
    }
  }
}

std::string MultiHeadAttention::type_name() const {
  std::ostringstream name;
  name << "MultiHeadAttention(d_model=" << d_model_ << ", heads=" << heads_;
  if (kdim_ != d_model_) name << ", kdim=" << kdim_;
  if (vdim_ != d_model_) name << ", vdim=" << vdim_;
  name << ", bias=" << (q_proj->has_bias() ? "true" : "false");
  name << ", dropout=" << dropout_ << ")";
  return name.str();
}

std::array<Variable, 3> MultiHeadAttention::project(const Variable& query, const Variable& key,
                                                   const Variable& value) const {
  if (query.node() != key.node() || key.node() != value.node())
    return {(*q_proj)(query), (*k_proj)(key), (*v_proj)(value)};
  // Self-attention: the three layers read the same x, which forward_together may multiply by
  // the three weights in one product (decoding a token with packed or bfloat16 weights).
  const Linear* layers[] = {q_proj.get(), k_proj.get(), v_proj.get()};
  std::vector<Variable> projected = forward_together(layers, query);
  return {projected[0], projected[1], projected[2]};
}

Variable MultiHeadAttention::forward(const Variable& query, const Variable& key,
                                     const Variable& value, const Tensor& mask,
                                     KeyValueCache* cache, AttentionObserver* observer) {
  if (query.dim() != 3 || key.dim() != 3 || value.dim() != 3 || query.size(0) != key.size(0) ||
      key.size(0) != value.size(0) || query.size(2) != d_model_ || key.size(2) != kdim_ ||
      value.size(2) != vdim_ || key.size(1) != value.size(1)) {
    throw std::invalid_argument(
        "MultiHeadAttention(d_model=" + std::to_string(d_model_) +
        ", kdim=" + std::to_string(kdim_) + ", vdim=" + std::to_string(vdim_) + "): query " +
        shape_to_string(query.shape()) + ", key " + shape_to_string(key.shape()) + ", value " +
        shape_to_string(value.shape()) +
        ": expected [batch, m_q, d_model], [batch, m_k, kdim], [batch, m_k, vdim]");
  }
  // Project: Q W^Q, K W^K, V W^V for all heads at once, [batch, tokens, d_model] each.
  auto [projected_query, projected_key, projected_value] = project(query, key, value);
  // Split: head i gets the features [i·head_dim, (i+1)·head_dim), [batch, heads, tokens, head_dim].
  Variable query_heads = split_heads(projected_query, heads_);
  Variable key_heads = split_heads(projected_key, heads_);
  Variable value_heads = split_heads(projected_value, heads_);
  // Cache (incremental decoding only): the keys and values of the earlier calls come first, so
  // the queries see every position so far (docs/12-translation.md#the-key-value-cache).
  if (cache != nullptr) std::tie(key_heads, value_heads) = cache->extend(key_heads, value_heads);
  // Attend: softmax(Q_i K_iᵀ / √head_dim) V_i for every head in one batched call.
  Variable head_outputs = (*attention)(query_heads, key_heads, value_heads, mask, observer);
  // Concat: [batch, heads, m_q, head_dim] -> [batch, m_q, d_model].
  Variable concatenated = merge_heads(head_outputs);
  // Project: Concat(head_1, …, head_h) W^O.
  return (*out_proj)(concatenated);
}

}  // namespace atencion::nn
