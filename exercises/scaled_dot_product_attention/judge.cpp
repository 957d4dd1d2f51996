// exercises/scaled_dot_product_attention/judge.cpp — judges
// exercise::scaled_dot_product_attention. Lesson: docs/05-scaled-dot-product-attention.md
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "exercises/scaled_dot_product_attention/scaled_dot_product_attention.h"
#include "nn/masks.h"
#include "nn/scaled_dot_product_attention.h"
#include "tensor/random.h"

using namespace atencion;

namespace {
Variable f64(const NestedValues& values) { return Variable(Tensor::from(values, DType::Float64)); }
}  // namespace

TEST_CASE("scaled_dot_product_attention: one query by hand", "[exercise]") {
  // d_k = 4: scores Q Kᵀ = [2, 0], scaled by √4 = 2 to [1, 0]; weights [e, 1] / (e + 1).
  Variable output = exercise::scaled_dot_product_attention(
      f64({{2, 0, 0, 0}}), f64({{1, 0, 0, 0}, {0, 0, 0, 0}}), f64({{1, 0}, {0, 1}}));
  REQUIRE(output.shape() == Shape{1, 2});
  const double first = std::exp(1.0) / (std::exp(1.0) + 1.0);  // 0.731 (unscaled: 0.881)
  CHECK(output.value().at({0, 0}) == Approx(first).epsilon(1e-12));
  CHECK(output.value().at({0, 1}) == Approx(1 - first).epsilon(1e-12));
}

TEST_CASE("scaled_dot_product_attention: m_D queries over m_E keys with batch dims",
          "[exercise]") {
  // Cross-attention's shapes (notebook 001): (m_D × d_k)·(d_k × m_E), then (m_D × m_E)·(m_E × d_v)
  Generator generator(50);
  Variable query(randn({2, 2, 3, 4}, generator, DType::Float64));  // m_D = 3
  Variable key(randn({2, 2, 5, 4}, generator, DType::Float64));    // m_E = 5
  Variable value(randn({2, 2, 5, 6}, generator, DType::Float64));  // d_v = 6
  Variable output = exercise::scaled_dot_product_attention(query, key, value);
  REQUIRE(output.shape() == Shape{2, 2, 3, 6});
  nn::ScaledDotProductAttention ours;
  CHECK(allclose(output.value(), ours(query, key, value).value(), 1e-12, 1e-12));
}

TEST_CASE("scaled_dot_product_attention: the mask hides keys and an empty row gives zeros",
          "[exercise]") {
  Generator generator(51);
  Variable query(randn({4, 3}, generator, DType::Float64));
  Variable key(randn({4, 3}, generator, DType::Float64));
  Variable value(randn({4, 2}, generator, DType::Float64));
  // The causal mask with query 0 blind too: it sees no key at all.
  Tensor mask = nn::causal_mask(4);
  mask.data<bool>()[0] = false;
  Variable output = exercise::scaled_dot_product_attention(query, key, value, mask);
  nn::ScaledDotProductAttention ours;
  INFO("row 0 must be zeros, not NaN; rows 1..3 may use keys 0..i only");
  CHECK(allclose(output.value(), ours(query, key, value, mask).value(), 1e-12, 1e-12));
}

TEST_CASE("scaled_dot_product_attention: gradcheck with a mask", "[exercise]") {
  Generator generator(52);
  const Tensor mask = nn::causal_mask(3);
  auto f = [&](const std::vector<Variable>& in) {
    return exercise::scaled_dot_product_attention(in[0], in[1], in[2], mask);
  };
  auto result = gradcheck(f, {randn({2, 3, 4}, generator, DType::Float64),
                              randn({2, 3, 4}, generator, DType::Float64),
                              randn({2, 3, 2}, generator, DType::Float64)});
  INFO(result.message);
  CHECK(result.ok);
}
