// tests/nn/test_scaled_dot_product_attention.cpp — softmax(Q Kᵀ / √d_k) V, masks, gradients.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/masks.h"
#include "nn/scaled_dot_product_attention.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

namespace {
Variable f64(const NestedValues& values) { return Variable(Tensor::from(values, DType::Float64)); }
}  // namespace

TEST_CASE("ScaledDotProductAttention: one query by hand", "[attention]") {
  ScaledDotProductAttention attention;
  AttentionObserver observer;
  // scores = [1, 0], scaled = [1/√2, 0], weights = softmax = [0.6698, 0.3302] (torch)
  Tensor output = attention(f64({{1, 0}}), f64({{1, 0}, {0, 1}}), f64({{1, 2}, {3, 4}}), Tensor(),
                            &observer)
                      .value();
  CHECK(output.shape() == Shape{1, 2});
  CHECK(observer.weights(attention).at({0, 0}) == Approx(0.669761549327).epsilon(1e-10));
  CHECK(observer.weights(attention).at({0, 1}) == Approx(0.330238450673).epsilon(1e-10));
  CHECK(output.at({0, 0}) == Approx(1.660476901347).epsilon(1e-10));
  CHECK(output.at({0, 1}) == Approx(2.660476901347).epsilon(1e-10));
}

TEST_CASE("ScaledDotProductAttention: query first, m_D queries over m_E keys", "[attention]") {
  // Cross-attention shapes (notebook 001): (m_D × n)·(n × m_E) = (m_D × m_E), then
  // (m_D × m_E)·(m_E × d_v) = (m_D × d_v).
  Generator generator(10);
  ScaledDotProductAttention attention;
  Variable query(randn({2, 3, 4}, generator));  // m_D = 3
  Variable key(randn({2, 5, 4}, generator));    // m_E = 5
  Variable value(randn({2, 5, 6}, generator));  // d_v = 6
  AttentionObserver observer;
  CHECK(attention(query, key, value, Tensor(), &observer).shape() == Shape{2, 3, 6});
  CHECK(observer.weights(attention).shape() == Shape{2, 3, 5});
  // Each query's weights sum to 1.
  Tensor row_sums = sum(observer.weights(attention), {-1});
  for (double s : row_sums.to_vector()) CHECK(s == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("ScaledDotProductAttention: the causal mask hides the future", "[attention]") {
  Generator generator(11);
  ScaledDotProductAttention attention;
  Variable x(randn({1, 4, 8}, generator, DType::Float64));
  AttentionObserver observer;
  Tensor output = attention(x, x, x, causal_mask(4), &observer).value();
  const Tensor& weights = observer.weights(attention);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = i + 1; j < 4; ++j) CHECK(weights.at({0, i, j}) == 0.0);
  }
  // The first token sees only itself: its output is its own value.
  for (int64_t f = 0; f < 8; ++f) CHECK(output.at({0, 0, f}) == Approx(x.value().at({0, 0, f})));
}

TEST_CASE("ScaledDotProductAttention: a fully masked row gives zeros and zero gradient, not NaN",
          "[attention]") {
  ScaledDotProductAttention attention;
  Variable query(Tensor::from({{1, 2}, {3, 4}}, DType::Float64), true);
  Variable key(Tensor::from({{1, 0}, {0, 1}}, DType::Float64), true);
  Variable value(Tensor::from({{5, 6}, {7, 8}}, DType::Float64), true);
  Tensor mask = Tensor::from({{1, 1}, {0, 0}}).to(DType::Bool);  // query 1 may see nothing
  AttentionObserver observer;
  Variable output = attention(query, key, value, mask, &observer);
  CHECK(output.value().at({1, 0}) == 0.0);
  CHECK(output.value().at({1, 1}) == 0.0);
  CHECK(observer.weights(attention).at({1, 0}) == 0.0);
  sum(output).backward();
  for (const Variable* v : {&query, &key, &value}) {
    for (double g : v->grad().to_vector()) CHECK(std::isfinite(g));
  }
  CHECK(query.grad().at({1, 0}) == 0.0);
  CHECK(query.grad().at({1, 1}) == 0.0);
}

TEST_CASE("ScaledDotProductAttention: errors name the shapes", "[attention]") {
  ScaledDotProductAttention attention;
  Variable query(Tensor::zeros({3, 4})), key(Tensor::zeros({5, 2})), value(Tensor::zeros({5, 6}));
  REQUIRE_THROWS_WITH(
      attention(query, key, value),
      Contains("ScaledDotProductAttention: query [3, 4], key [5, 2], value [5, 6]") &&
          Contains("same last dim d_k (4 vs 2)"));
  Variable key4(Tensor::zeros({5, 4})), short_value(Tensor::zeros({2, 6}));
  REQUIRE_THROWS_WITH(attention(query, key4, short_value),
                      Contains("same number of tokens (5 vs 2)"));
  REQUIRE_THROWS_WITH(attention(query, key4, value, Tensor::ones({3, 5})),
                      Contains("mask must be bool"));
  REQUIRE_THROWS_WITH(attention(query, key4, value, causal_mask(4)),
                      Contains("ScaledDotProductAttention: mask"));
  REQUIRE_THROWS_WITH(attention(query, key4, value, padding_mask({5}, 5)),
                      Contains("mask [1, 1, 1, 5] does not broadcast to the scores [3, 5]"));
}

TEST_CASE("ScaledDotProductAttention: float64 gradchecks, with and without masks",
          "[attention][gradcheck]") {
  Generator generator(12);
  ScaledDotProductAttention attention;
  const Tensor query = randn({2, 2, 3, 4}, generator, DType::Float64);
  const Tensor key = randn({2, 2, 5, 4}, generator, DType::Float64);
  const Tensor value = randn({2, 2, 5, 3}, generator, DType::Float64);
  const Tensor self_input = randn({2, 2, 5, 4}, generator, DType::Float64);
  // padding: sequence 0 has 5 real tokens, sequence 1 has 2; the all-false row tests zeros.
  const Tensor padding = padding_mask({5, 2}, 5);
  const Tensor nothing_visible = Tensor::zeros({3, 5}, DType::Bool);

  auto cross = [&](const Tensor& mask) {
    return gradcheck(
        [&](const std::vector<Variable>& in) { return attention(in[0], in[1], in[2], mask); },
        {query, key, value});
  };
  for (const Tensor& mask : {Tensor(), padding, nothing_visible}) {
    auto result = cross(mask);
    INFO(result.message);
    CHECK(result.ok);
  }
  for (const Tensor& mask : {causal_mask(5), combine_masks(padding, causal_mask(5))}) {
    auto result = gradcheck(
        [&](const std::vector<Variable>& in) { return attention(in[0], in[0], in[0], mask); },
        {self_input});
    INFO(result.message);
    CHECK(result.ok);
  }
}

TEST_CASE("ScaledDotProductAttention: dropout on the weights only while training", "[attention]") {
  Generator generator(13);
  ScaledDotProductAttention attention(0.5, generator);
  Variable x(randn({1, 6, 4}, generator));
  Tensor trained = attention(x, x, x).value();
  attention.eval();
  Tensor evaluated = attention(x, x, x).value();
  CHECK_FALSE(allclose(trained, evaluated));
  ScaledDotProductAttention plain;
  CHECK(allclose(plain(x, x, x).value(), evaluated, 0, 0));
  CHECK(attention.type_name() == "ScaledDotProductAttention(dropout=0.5)");
}
