// exercises/scaled_dot_product_attention/judge.cpp — judges
// exercise::scaled_dot_product_attention. Lesson: docs/05-scaled-dot-product-attention.md
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "exercises/scaled_dot_product_attention/scaled_dot_product_attention.h"
#include "exercises/judge_report.h"
#include "nn/masks.h"
#include "nn/scaled_dot_product_attention.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;

namespace {
Variable f64(const NestedValues& values) { return Variable(Tensor::from(values, DType::Float64)); }

// Softmax along the queries (dim -2) instead of the keys: one of the mistakes below.
Tensor attention_with_softmax_over_queries(const Tensor& query, const Tensor& key,
                                           const Tensor& value, const Tensor& mask) {
  Tensor scaled = div(matmul(query, key, Trans::No, Trans::Yes),
                      std::sqrt(static_cast<double>(query.size(-1))));
  if (mask.defined())
    scaled = masked_fill(scaled, logical_not(mask), -std::numeric_limits<double>::infinity());
  return matmul(softmax(scaled, -2), value);
}

// The mistakes this exercise invites, each computed with the library's attention. When your
// output equals one of them, that is named as the likely cause; when it equals none, no hint is
// given (a hint that is usually wrong sends you to look in the wrong place).
std::string likely_mistake(const Variable& query, const Variable& key, const Variable& value,
                           const Tensor& mask, const Tensor& yours) {
  for (double v : yours.contiguous().to_vector()) {
    if (std::isnan(v))
      return "likely cause: your output holds NaN. A query whose every key is masked has a row "
             "of only -inf; -inf - (-inf) is NaN in the max trick. The library's softmax "
             "(autograd/ops.h) gives that row zeros (docs/04, a row with nothing to see).";
  }
  nn::ScaledDotProductAttention ours;
  const double sqrt_d_k = std::sqrt(static_cast<double>(query.size(-1)));
  const std::vector<std::pair<std::string, std::function<Tensor()>>> mistakes = {
      {"the scores are not divided by sqrt(d_k) (Scale)",
       [&] { return ours(mul(query, sqrt_d_k), key, value, mask).value(); }},
      {"query and key are swapped: K Q^T instead of Q K^T",
       [&] { return ours(key, query, value, mask).value(); }},
      {"the mask is not applied",
       [&] { return mask.defined() ? ours(query, key, value).value() : Tensor(); }},
      {"the mask is read the wrong way round: here true = may attend, so -inf goes where the "
       "mask is false (logical_not(mask))",
       [&] { return mask.defined() ? ours(query, key, value, logical_not(mask)).value() : Tensor(); }},
      {"the softmax runs along the queries (dim -2), not along the keys (dim -1)",
       [&] {
         return attention_with_softmax_over_queries(query.value(), key.value(), value.value(),
                                                    mask);
       }}};
  for (const auto& [mistake, output_with_it] : mistakes) {
    try {
      const Tensor expected = output_with_it();
      if (expected.defined() && expected.shape() == yours.shape() &&
          allclose(yours, expected, 1e-9, 1e-12))
        return "likely cause: " + mistake + " (your output equals attention with that mistake)";
    } catch (const std::exception&) {
      // That mistake cannot even be computed on these shapes: it is not yours.
    }
  }
  return "";
}

// Attaches the likely cause, if one is recognised, to the next check.
void name_the_likely_mistake(const Variable& query, const Variable& key, const Variable& value,
                             const Tensor& mask, const Tensor& yours) {
  const std::string hint = likely_mistake(query, key, value, mask, yours);
  if (!hint.empty()) UNSCOPED_INFO(judge::short_lines(hint));
}
}  // namespace

TEST_CASE("scaled_dot_product_attention: one query by hand", "[exercise]") {
  // d_k = 4: scores Q Kᵀ = [2, 0], scaled by √4 = 2 to [1, 0]; weights [e, 1] / (e + 1).
  const Variable query = f64({{2, 0, 0, 0}}), key = f64({{1, 0, 0, 0}, {0, 0, 0, 0}});
  const Variable value = f64({{1, 0}, {0, 1}});
  Variable output = exercise::scaled_dot_product_attention(query, key, value);
  REQUIRE(output.shape() == Shape{1, 2});
  name_the_likely_mistake(query, key, value, Tensor(), output.value());
  const double first = std::exp(1.0) / (std::exp(1.0) + 1.0);  // 0.731 (unscaled: 0.881)
  CHECK(judge::close_to(output.value(), Tensor::from({{first, 1 - first}}, DType::Float64),
                        1e-12, 1e-15));
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
  name_the_likely_mistake(query, key, value, Tensor(), output.value());
  nn::ScaledDotProductAttention ours;
  CHECK(judge::close_to(output.value(), ours(query, key, value).value(), 1e-12, 1e-12));
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
  name_the_likely_mistake(query, key, value, mask, output.value());
  CHECK(judge::close_to(output.value(), ours(query, key, value, mask).value(), 1e-12, 1e-12));
}

// Gradcheck compares your backward with finite differences of your own forward: it proves
// that the gradients belong to the function you wrote, not that it is attention. With only
// autograd ops every function passes it, K Qᵀ or a missing scale included; the tests above
// say whether the function is the right one.
TEST_CASE("scaled_dot_product_attention: gradcheck with a mask", "[exercise]") {
  Generator generator(52);
  const Tensor mask = nn::causal_mask(3);
  auto f = [&](const std::vector<Variable>& in) {
    return exercise::scaled_dot_product_attention(in[0], in[1], in[2], mask);
  };
  auto result = gradcheck(f, {randn({2, 3, 4}, generator, DType::Float64),
                              randn({2, 3, 4}, generator, DType::Float64),
                              randn({2, 3, 2}, generator, DType::Float64)});
  INFO(judge::short_lines(result.message));
  CHECK(result.ok);
}
