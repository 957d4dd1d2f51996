// tests/tensor/test_gelu_tanh.cpp — tensor/gelu_tanh.cpp: x σ(2u) against the tanh formula it
// replaces, ½ x (1 + tanh u), and its derivative against central differences.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "tensor/ops.h"
#include "tensor/random.h"
#include "tensor/threads.h"

using namespace atencion;

namespace {
double tanh_form(double x) {
  const double u = std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1 + std::tanh(u));
}
}  // namespace

TEST_CASE("gelu_tanh: the tanh formula, float64 and float32, ends and NaN", "[gelu_tanh]") {
  Generator generator(1);
  const Tensor x = uniform({10007}, -12, 12, generator, DType::Float64);
  const Tensor y64 = gelu_tanh(x), y32 = gelu_tanh(x.to(DType::Float32)).to(DType::Float64);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double expected = tanh_form(x.at({i}));
    INFO("x = " << x.at({i}));
    // Absolute, scaled by |x|: for x ≪ 0 the tanh form loses its digits (1 + tanh u cancels),
    // which σ(2u) does not, so neither is a relative reference for the other there.
    CHECK(std::abs(y64.at({i}) - expected) <= 1e-14 * (1 + std::abs(x.at({i}))));
    CHECK(std::abs(y32.at({i}) - expected) <= 2e-6 * (1 + std::abs(x.at({i}))));
  }
  const Tensor ends = gelu_tanh(Tensor::from({-1000.0, 1000.0, std::nan("")}));
  CHECK(ends.at({0}) == 0);
  CHECK(ends.at({1}) == 1000);
  CHECK(std::isnan(ends.at({2})));
}

TEST_CASE("gelu_tanh_backward: central differences, and the same at 1 and 2 threads",
          "[gelu_tanh]") {
  Generator generator(2);
  const Tensor x = uniform({9000}, -6, 6, generator, DType::Float64);
  const Tensor g = uniform({9000}, -1, 1, generator, DType::Float64);
  const Tensor dx = gelu_tanh_backward(x, g);
  for (int64_t i = 0; i < x.numel(); i += 37) {
    const double v = x.at({i}), h = 1e-6;
    const double slope = (tanh_form(v + h) - tanh_form(v - h)) / (2 * h);
    CHECK(dx.at({i}) == Approx(g.at({i}) * slope).epsilon(1e-7).margin(1e-9));
  }
  const int threads = num_threads();
  const Tensor x32 = x.to(DType::Float32), g32 = g.to(DType::Float32);
  set_num_threads(1);
  const Tensor one = gelu_tanh_backward(x32, g32), forward_one = gelu_tanh(x32);
  set_num_threads(2);
  const Tensor two = gelu_tanh_backward(x32, g32), forward_two = gelu_tanh(x32);
  set_num_threads(threads);
  CHECK(allclose(one, two, 0, 0));
  CHECK(allclose(forward_one, forward_two, 0, 0));
  CHECK_THROWS_WITH(gelu_tanh_backward(x, g.narrow(0, 0, 10)),
                    Catch::Contains("gelu_tanh_backward: x [9000] and grad [10] differ"));
}
