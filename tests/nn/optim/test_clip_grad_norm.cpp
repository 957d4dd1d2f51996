// tests/nn/optim/test_clip_grad_norm.cpp — nn/optim/clip_grad_norm.cpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/ops.h"
#include "nn/optim/clip_grad_norm.h"

using namespace atencion;
using namespace atencion::nn;

TEST_CASE("clip_grad_norm: one norm over all gradients, scaled only when above max_norm",
          "[optim][clip]") {
  Variable a(Tensor::from({0.0, 0.0}, DType::Float64), true);
  Variable b(Tensor::from({0.0}, DType::Float64), true);
  Variable unused(Tensor::from({0.0}, DType::Float64), true);
  // ∂/∂a of 3a₀ + 0a₁ is [3, 0], ∂/∂b of 4b is [4]: total norm √(9 + 16) = 5.
  (sum(a * Variable(Tensor::from({3.0, 0.0}, DType::Float64))) + sum(b * 4.0)).backward();
  REQUIRE(clip_grad_norm({a, b, unused}, 10.0) == Approx(5.0));
  REQUIRE(a.grad().to_vector() == std::vector<double>{3.0, 0.0});  // below: unchanged

  const double norm = clip_grad_norm({a, b, unused}, 1.0);
  REQUIRE(norm == Approx(5.0));  // the norm before clipping
  const double scale = 1.0 / (5.0 + 1e-6);
  REQUIRE(a.grad().to_vector()[0] == Approx(3.0 * scale).epsilon(1e-14));
  REQUIRE(b.grad().to_vector()[0] == Approx(4.0 * scale).epsilon(1e-14));
  REQUIRE_FALSE(unused.has_grad());
  REQUIRE(clip_grad_norm({a, b}, 100.0) == Approx(1.0).epsilon(1e-6));  // now of length ~1
}

TEST_CASE("clip_grad_norm: a gradient shared by two parameters is scaled once", "[optim][clip]") {
  // add's backward may hand the very same tensor to both inputs.
  Variable a(Tensor::from({0.0}, DType::Float64), true), b(Tensor::from({0.0}, DType::Float64), true);
  sum((a + b) * 6.0).backward();  // da = db = 6; norm √72
  clip_grad_norm({a, b}, 1.0);
  const double expected = 6.0 / (std::sqrt(72.0) + 1e-6);
  REQUIRE(a.grad().item() == Approx(expected).epsilon(1e-12));
  REQUIRE(b.grad().item() == Approx(expected).epsilon(1e-12));
  REQUIRE_THROWS(clip_grad_norm({a}, 0.0));
}

TEST_CASE("clip_grad_norm: scales a gradient in place unless something else holds it",
          "[optim][clip]") {
  Variable a(Tensor::from({0.0, 0.0}, DType::Float64), true);
  Variable b(Tensor::from({0.0}, DType::Float64), true);
  sum(a * Variable(Tensor::from({3.0, 4.0}, DType::Float64))).backward();
  sum(b * 12.0).backward();  // norm √(9 + 16 + 144) = 13
  const void* a_block = a.grad().storage()->data();
  const Tensor kept_b = b.grad();  // the caller holds b's gradient: it must not change
  clip_grad_norm({a, b}, 1.0);
  const double scale = 1.0 / (13.0 + 1e-6);
  REQUIRE(a.grad().storage()->data() == a_block);  // the same block, no copy
  REQUIRE(a.grad().to_vector()[1] == Approx(4.0 * scale).epsilon(1e-14));
  REQUIRE(b.grad().item() == Approx(12.0 * scale).epsilon(1e-14));
  REQUIRE(kept_b.item() == 12.0);  // what the caller held is as it was
}

TEST_CASE("clip_grad_norm: the norm of float32 gradients whose count is not a multiple of eight",
          "[optim][clip]") {
  // 1,003 numbers: 125 rounds of the eight running sums and a tail of three.
  std::vector<float> values(1003);
  long double squares = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * 3.0);
    squares += static_cast<long double>(values[i]) * values[i];
  }
  const Shape shape{static_cast<int64_t>(values.size())};
  Variable a(Tensor::zeros(shape), true);
  sum(a * Variable(Tensor::from_vector(values, shape))).backward();
  REQUIRE(clip_grad_norm({a}, 1e9) ==
          Approx(static_cast<double>(std::sqrt(squares))).epsilon(1e-12));
}
