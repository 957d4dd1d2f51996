// nn/scaled_dot_product_attention.cpp — softmax(Q Kᵀ / √d_k) V, step by step.
// Lesson: docs/05-scaled-dot-product-attention.md
#include "nn/scaled_dot_product_attention.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "autograd/ops.h"

namespace atencion::nn {

ScaledDotProductAttention::ScaledDotProductAttention()
    : dropout_(register_module("dropout", std::make_shared<Dropout>(0.0, uint64_t{0}))) {}

ScaledDotProductAttention::ScaledDotProductAttention(double dropout, Generator& generator)
    : dropout_(register_module("dropout", std::make_shared<Dropout>(dropout, generator))) {}

std::string ScaledDotProductAttention::type_name() const {
  std::ostringstream name;
  name << "ScaledDotProductAttention(dropout=" << dropout_->p() << ")";
  return name.str();
}

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

void check_shapes(const Variable& query, const Variable& key, const Variable& value,
                  const Tensor& mask) {
  auto fail = [&](const std::string& problem) {
    throw std::invalid_argument("ScaledDotProductAttention: query " +
                                shape_to_string(query.shape()) + ", key " +
                                shape_to_string(key.shape()) + ", value " +
                                shape_to_string(value.shape()) + ": " + problem);
  };
  if (query.dim() < 2 || key.dim() < 2 || value.dim() < 2) {
    fail("each needs at least 2 dims [tokens, features]");
  }
  if (query.size(-1) != key.size(-1)) {
    fail("query and key must have the same last dim d_k (" + std::to_string(query.size(-1)) +
         " vs " + std::to_string(key.size(-1)) + ")");
  }
  if (key.size(-2) != value.size(-2)) {
    fail("key and value must have the same number of tokens (" + std::to_string(key.size(-2)) +
         " vs " + std::to_string(value.size(-2)) + ")");
  }
  if (mask.defined() && mask.dtype() != DType::Bool) {
    fail(std::string("mask must be bool (true = may attend), got ") + dtype_name(mask.dtype()));
  }
}

// The mask must broadcast to the scores without enlarging them.
void check_mask(const Tensor& mask, const Shape& scores) {
  if (mask.defined() &&
      broadcast_shapes("ScaledDotProductAttention: mask", mask.shape(), scores) != scores) {
    throw std::invalid_argument("ScaledDotProductAttention: mask " + shape_to_string(mask.shape()) +
                                " does not broadcast to the scores " + shape_to_string(scores));
  }
}

}  // namespace

Variable ScaledDotProductAttention::forward(const Variable& query, const Variable& key,
                                            const Variable& value, const Tensor& mask) {
  check_shapes(query, key, value, mask);
  const double d_k = static_cast<double>(query.size(-1));

  // MatMul: every query against every key, [..., m_q, d_k]·[..., d_k, m_k] = [..., m_q, m_k].
  Variable scores = matmul(query, key, Trans::No, Trans::Yes);
  check_mask(mask, scores.shape());
  // Scale: dot products of d_k-dim vectors grow like √d_k; dividing keeps the softmax soft.
  Variable scaled = div(scores, std::sqrt(d_k));
  // Mask (optional): a key a query may not see gets -inf, so exp(-inf) = 0 weight.
  Variable masked =
      mask.defined() ? masked_fill(scaled, logical_not(mask), kMinusInfinity) : scaled;
  // Softmax: each query's row becomes weights that sum to 1 (or all 0 if fully masked).
  Variable attention_weights = softmax(masked, -1);
  attention_weights_ = attention_weights.value();
  // MatMul: each output row is the weighted mean of the values, [..., m_q, m_k]·[..., m_k, d_v].
  Variable output = matmul((*dropout_)(attention_weights), value);
  return output;
}

}  // namespace atencion::nn
