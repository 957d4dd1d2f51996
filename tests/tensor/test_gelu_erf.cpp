// tests/tensor/test_gelu_erf.cpp — tensor/gelu_erf.cpp: x Φ(x) against std::erfc in float64,
// relative error in float32 (the tail included), and its derivative against central differences.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "tensor/ops.h"
#include "tensor/random.h"
#include "tensor/threads.h"

using namespace atencion;

namespace {
double exact_gelu(double x) { return x * 0.5 * std::erfc(-x / std::numbers::sqrt2); }
}  // namespace

TEST_CASE("gelu: x Phi(x) to float64 rounding, float32 within a few ulps, ends and NaN",
          "[gelu_erf]") {
  Generator generator(1);
  const Tensor x = uniform({20011}, -12, 12, generator, DType::Float64);
  const Tensor y64 = gelu(x), x32 = x.to(DType::Float32), y32 = gelu(x32).to(DType::Float64);
  double worst = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    INFO("x = " << x.at({i}));
    // 1e-12: erfc's condition number 2z² (z = x/√2) turns an argument's last bit into ~1e-14
    CHECK(y64.at({i}) == Approx(exact_gelu(x.at({i}))).epsilon(1e-12).margin(1e-300));
    // Relative, also where Φ(x) is tiny (x ≪ 0): erfc keeps its digits in the tail.
    const double expected = exact_gelu(x32.at({i}));  // of the float32 input
    // Φ's condition number in the tail is about x², so float32's x/√2 alone (a half ulp)
    // moves Φ by ~x² · 6e-8 relatively; the bound allows a few ulps on top.
    const double error = std::abs(y32.at({i}) - expected) / std::abs(expected);
    if (expected != 0) worst = std::max(worst, error / (1 + x32.at({i}) * x32.at({i})));
  }
  INFO("worst relative error / (1 + x²) in float32: " << worst);
  // (std::erf's float32 formula 0.5 x (1 + erf) loses every digit below x = −5.5)
  CHECK(worst < 1e-6);
  const Tensor ends = gelu(Tensor::from({-1000.0, 1000.0, 0.0, std::nan("")}));
  CHECK(ends.at({0}) == 0);
  CHECK(ends.at({1}) == 1000);
  CHECK(ends.at({2}) == 0);
  CHECK(std::isnan(ends.at({3})));
}

TEST_CASE("gelu_backward: central differences, float32 near float64, the same at 1 and 2 threads",
          "[gelu_erf]") {
  Generator generator(2);
  const Tensor x = uniform({9000}, -8, 8, generator, DType::Float64);
  const Tensor g = uniform({9000}, -1, 1, generator, DType::Float64);
  const Tensor dx = gelu_backward(x, g);
  const Tensor x32 = x.to(DType::Float32), g32 = g.to(DType::Float32);
  const Tensor dx32 = gelu_backward(x32, g32).to(DType::Float64);
  for (int64_t i = 0; i < x.numel(); i += 7) {
    const double v = x.at({i}), h = 1e-5;
    const double slope = (exact_gelu(v + h) - exact_gelu(v - h)) / (2 * h);
    INFO("x = " << v);
    CHECK(dx.at({i}) == Approx(g.at({i}) * slope).epsilon(1e-8).margin(1e-10));
    const double expected32 = gelu_backward(x32.to(DType::Float64), g32.to(DType::Float64)).at({i});
    // Absolute, scaled by |g|: near x = −0.75, where gelu' = Φ + x φ crosses 0, it cancels.
    CHECK(std::abs(dx32.at({i}) - expected32) <= 1e-6 * std::abs(g.at({i})));
  }
  const int threads = num_threads();
  set_num_threads(1);
  const Tensor one = gelu_backward(x32, g32), forward_one = gelu(x32);
  set_num_threads(2);
  const Tensor two = gelu_backward(x32, g32), forward_two = gelu(x32);
  set_num_threads(threads);
  CHECK(allclose(one, two, 0, 0));
  CHECK(allclose(forward_one, forward_two, 0, 0));
  CHECK_THROWS_WITH(gelu_backward(x, g.narrow(0, 0, 10)),
                    Catch::Contains("gelu_backward: x [9000] and grad [10] differ"));
  CHECK_THROWS_WITH(gelu_backward(x, g32), Catch::Contains("gelu_backward"));
}
