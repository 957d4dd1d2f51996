// tests/nn/test_scaled_dot_product_attention_backward.cpp — the backward pass of attention as a
// whole, computed by hand from the formulas of
// docs/05-scaled-dot-product-attention.md#the-backward-pass-of-attention and compared with the
// gradients the autograd finds through ScaledDotProductAttention::forward.
#include <catch2/catch.hpp>
#include <cmath>

#include "autograd/ops.h"
#include "nn/masks.h"
#include "nn/scaled_dot_product_attention.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::nn;

namespace {

struct AttentionGradients {
  Tensor query, key, value;  // dQ, dK, dV
  Tensor scores;             // dS, the gradient of the scaled (and masked) scores
};

// The formulas of the lesson, with plain tensor ops. S = Q Kᵀ / √d_k (masked: -inf),
// P = softmax(S), O = P V, and dO the gradient arriving at the output.
AttentionGradients attention_backward_by_hand(const Tensor& query, const Tensor& key,
                                              const Tensor& value, const Tensor& mask,
                                              const Tensor& output_grad) {
  const double scale = std::sqrt(static_cast<double>(query.size(-1)));
  Tensor scores = div(matmul(query, key, Trans::No, Trans::Yes), scale);
  if (mask.defined())
    scores = masked_fill(scores, logical_not(mask), -std::numeric_limits<double>::infinity());
  const Tensor weights = softmax(scores, -1);  // P
  AttentionGradients grad;
  grad.value = matmul(weights, output_grad, Trans::Yes, Trans::No);               // dV = Pᵀ dO
  const Tensor weights_grad = matmul(output_grad, value, Trans::No, Trans::Yes);  // dP = dO Vᵀ
  const Tensor row_dot = sum(mul(weights_grad, weights), {-1}, true);        // rowsum(dP ⊙ P)
  grad.scores = mul(weights, sub(weights_grad, row_dot));                    // dS
  grad.query = div(matmul(grad.scores, key), scale);                         // dQ = dS K / √d_k
  grad.key = div(matmul(grad.scores, query, Trans::Yes, Trans::No), scale);  // dK = dSᵀ Q / √d_k
  return grad;
}

double max_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  return max(abs(sub(a, b))).item();
}

void check_against_autograd(const Tensor& mask, uint64_t seed) {
  Generator generator(seed);
  // Cross shapes so that no transpose can hide: m_q = 3 queries, m_k = 5 keys, d_k = 4, d_v = 6.
  const Tensor query = randn({2, 3, 4}, generator, DType::Float64);
  const Tensor key = randn({2, 5, 4}, generator, DType::Float64);
  const Tensor value = randn({2, 5, 6}, generator, DType::Float64);
  const Tensor output_grad = randn({2, 3, 6}, generator, DType::Float64);

  Variable query_leaf(query, true), key_leaf(key, true), value_leaf(value, true);
  ScaledDotProductAttention attention;
  const Variable output = attention(query_leaf, key_leaf, value_leaf, mask);
  sum(mul(output, Variable(output_grad))).backward();  // so that dL/dO = output_grad

  const AttentionGradients by_hand =
      attention_backward_by_hand(query, key, value, mask, output_grad);
  CHECK(max_difference(by_hand.value, value_leaf.grad()) < 1e-12);
  CHECK(max_difference(by_hand.query, query_leaf.grad()) < 1e-12);
  CHECK(max_difference(by_hand.key, key_leaf.grad()) < 1e-12);
  // The hand-made gradients are not all zero: the comparison has something to compare.
  CHECK(max(abs(by_hand.query)).item() > 0.01);
  CHECK(max(abs(by_hand.key)).item() > 0.01);

  // A masked score has P = 0, so dS = P ⊙ (…) is exactly 0 there: no gradient flows through it.
  if (mask.defined()) {
    const Tensor hidden = logical_not(mask).expand(by_hand.scores.shape());
    int64_t hidden_count = 0;
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 5; ++j)
          if (hidden.at({b, i, j}) != 0) {
            ++hidden_count;
            CHECK(by_hand.scores.at({b, i, j}) == 0.0);
          }
    CHECK(hidden_count > 0);
  }
}

}  // namespace

TEST_CASE("attention backward: the formulas by hand equal the autograd, no mask",
          "[attention][backward]") {
  check_against_autograd(Tensor(), 51);
}

TEST_CASE("attention backward: the formulas by hand equal the autograd, padding mask",
          "[attention][backward]") {
  // Batch element 0 sees 5 keys, element 1 only the first 2: [2, 1, 5] broadcasts over queries.
  const Tensor mask = padding_mask({5, 2}, 5).reshape({2, 1, 5});
  check_against_autograd(mask, 52);
}

TEST_CASE("attention backward: the formulas by hand equal the autograd, causal-like mask",
          "[attention][backward]") {
  // Query i sees keys 0..i+2 (a causal mask shifted for m_q = 3 over m_k = 5).
  std::vector<double> may_attend;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) may_attend.push_back(j <= i + 2 ? 1 : 0);
  const Tensor mask = gt(Tensor::from_vector(may_attend, {3, 5}), 0.5);
  check_against_autograd(mask, 53);
}

TEST_CASE("attention backward: a key hidden from every query gets no gradient at all",
          "[attention][backward]") {
  Generator generator(54);
  Variable query(randn({1, 3, 4}, generator, DType::Float64), true);
  Variable key(randn({1, 5, 4}, generator, DType::Float64), true);
  Variable value(randn({1, 5, 6}, generator, DType::Float64), true);
  ScaledDotProductAttention attention;
  sum(attention(query, key, value, padding_mask({3}, 5).reshape({1, 1, 5})))
      .backward();  // keys 3 and 4 hidden
  for (int64_t j = 3; j < 5; ++j) {
    for (int64_t f = 0; f < 4; ++f) CHECK(key.grad().at({0, j, f}) == 0.0);
    for (int64_t f = 0; f < 6; ++f) CHECK(value.grad().at({0, j, f}) == 0.0);
  }
  CHECK(key.grad().at({0, 0, 0}) != 0.0);
}
