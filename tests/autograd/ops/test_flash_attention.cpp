// tests/autograd/ops/test_flash_attention.cpp — full-Jacobian gradchecks of the fused attention
// op (autograd/ops/flash_attention.cpp): plain, masked (causal, padding, a general mask with a
// fully hidden row), cross-attention with m_q ≠ m_k, more keys and queries than one 64-wide tile,
// another scale, and with dropout (the same mask drawn on every evaluation).
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;

using Inputs = std::vector<Variable>;

namespace {

// mask[i][j] = (j <= i), Bool [m_q, m_k].
Tensor causal(int64_t m_q, int64_t m_k) {
  std::vector<double> values;
  for (int64_t i = 0; i < m_q; ++i)
    for (int64_t j = 0; j < m_k; ++j) values.push_back(j <= i ? 1.0 : 0.0);
  return ne(Tensor::from_vector(values, {m_q, m_k}, DType::Float64),
            Tensor::scalar(0, DType::Float64));
}

GradcheckFunction attention(const Tensor& mask, double scale) {
  return [=](const Inputs& v) { return flash_attention(v[0], v[1], v[2], mask, scale); };
}

}  // namespace

TEST_CASE("flash_attention: gradcheck, no mask and causal", "[gradcheck][flash_attention]") {
  const Tensor query = random_f64({2, 2, 5, 3}, 1), key = random_f64({2, 2, 5, 3}, 2),
               value = random_f64({2, 2, 5, 4}, 3);
  const double scale = 1.0 / std::sqrt(3.0);
  CHECK(gradcheck(attention(Tensor(), scale), {query, key, value}));
  CHECK(gradcheck(attention(causal(5, 5), scale), {query, key, value}));
}

TEST_CASE("flash_attention: gradcheck, cross-attention with padding and a fully hidden row",
          "[gradcheck][flash_attention]") {
  // m_q = 3 queries over m_k = 6 keys; sequence 1 sees only its first 4 keys.
  const Tensor query = random_f64({2, 3, 4}, 4), key = random_f64({2, 6, 4}, 5),
               value = random_f64({2, 6, 2}, 6);
  const Tensor padding = ne(Tensor::from({{{1, 1, 1, 1, 1, 1}}, {{1, 1, 1, 1, 0, 0}}},
                                         DType::Float64),
                            Tensor::scalar(0, DType::Float64));  // [2, 1, 6]
  CHECK(gradcheck(attention(padding, 0.5), {query, key, value}));
  // A general mask whose row 1 hides every key: that row's output is 0 and passes no gradient.
  const Tensor general = ne(Tensor::from({{1, 0, 1, 0, 0, 1}, {0, 0, 0, 0, 0, 0},
                                          {0, 1, 1, 1, 0, 0}},
                                         DType::Float64),
                            Tensor::scalar(0, DType::Float64));
  CHECK(gradcheck(attention(general, 0.5), {query, key, value}));
}

TEST_CASE("flash_attention: gradcheck across tiles (70 queries, 67 keys, causal)",
          "[gradcheck][flash_attention]") {
  const Tensor query = random_f64({1, 70, 2}, 7, -2, 2), key = random_f64({1, 67, 2}, 8, -2, 2),
               value = random_f64({1, 67, 2}, 9);
  CHECK(gradcheck(attention(causal(70, 67), 1.0), {query, key, value}));
}

TEST_CASE("flash_attention: gradcheck with dropout (the same draws each evaluation)",
          "[gradcheck][flash_attention]") {
  const Tensor query = random_f64({2, 4, 3}, 10), key = random_f64({2, 5, 3}, 11),
               value = random_f64({2, 5, 3}, 12);
  auto dropped = [](const Inputs& v) {
    Generator generator(42);  // a fresh copy each time: the mask is a function of its state
    return flash_attention(v[0], v[1], v[2], Tensor(), 0.7, 0.3, generator);
  };
  CHECK(gradcheck(dropped, {query, key, value}));
}

TEST_CASE("flash_attention: bad inputs get a one-line error naming the shapes",
          "[flash_attention]") {
  const Variable query(random_f64({2, 3, 4}, 1)), key(random_f64({2, 5, 4}, 2)),
      value(random_f64({2, 5, 6}, 3));
  CHECK_THROWS_WITH(flash_attention(query, Variable(random_f64({2, 5, 3}, 4)), value, Tensor(), 1),
                    Catch::Contains("flash_attention: query [2, 3, 4], key [2, 5, 3]"));
  CHECK_THROWS_WITH(flash_attention(query, key, Variable(random_f64({2, 4, 6}, 5)), Tensor(), 1),
                    Catch::Contains("same number of tokens"));
  CHECK_THROWS_WITH(flash_attention(query, key, value, Tensor::ones({3, 4}, DType::Bool), 1),
                    Catch::Contains("flash_attention: mask"));
  CHECK_THROWS_WITH(flash_attention(query, key, value, Tensor::ones({3, 5}), 1),
                    Catch::Contains("mask must be bool"));
  CHECK_THROWS_WITH(
      flash_attention(Variable(random_f64({1, 3, 4}, 6)), key, value, Tensor(), 1),
      Catch::Contains("leading dims"));
  Generator generator(1);
  CHECK_THROWS_WITH(flash_attention(query, key, value, Tensor(), 1, 1.5, generator),
                    Catch::Contains("dropout probability"));
}
