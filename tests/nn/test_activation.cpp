// tests/nn/test_activation.cpp — nn/activation.cpp: Softmax and ReLU.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/activation.h"
#include "tensor/random.h"
#include "fixture.h"

using namespace atencion;
using namespace atencion::nn;

TEST_CASE("Softmax: known values, rows sum to 1", "[activation]") {
  Softmax softmax_last;
  Tensor y = softmax_last(Variable(Tensor::from({1, 2, 3}, DType::Float64))).value();
  // e^i / (e + e² + e³), from torch.softmax
  CHECK(y.at({0}) == Approx(0.090030573170).epsilon(1e-10));
  CHECK(y.at({1}) == Approx(0.244728471055).epsilon(1e-10));
  CHECK(y.at({2}) == Approx(0.665240955775).epsilon(1e-10));
  CHECK(softmax_last.type_name() == "Softmax(dim=-1)");

  Softmax softmax_columns(0);
  Tensor columns = softmax_columns(Variable(Tensor::from({{1, 5}, {1, 5}}))).value();
  CHECK(columns.to_vector() == std::vector<double>{0.5, 0.5, 0.5, 0.5});
}

TEST_CASE("Softmax: large scores do not overflow (notebook 004)", "[activation]") {
  // exp(1000) is inf in float64; the max trick computes exp(0) and exp(1) instead.
  Tensor y = Softmax()(Variable(Tensor::from({1000, 1001}, DType::Float64))).value();
  CHECK(y.at({0}) == Approx(0.268941421370).epsilon(1e-10));
  CHECK(y.at({1}) == Approx(0.731058578630).epsilon(1e-10));
}

TEST_CASE("Softmax: a row of -inf gives zeros, not NaN", "[activation]") {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor y = Softmax()(Variable(Tensor::from({{-inf, -inf}, {0, -inf}}, DType::Float64))).value();
  CHECK(y.to_vector() == std::vector<double>{0, 0, 1, 0});
}

TEST_CASE("ReLU: max(x, 0)", "[activation]") {
  Tensor y = ReLU()(Variable(Tensor::from({-2, 0, 3}))).value();
  CHECK(y.to_vector() == std::vector<double>{0, 0, 3});
}

TEST_CASE("Softmax and ReLU: float64 gradchecks", "[activation][gradcheck]") {
  Generator generator(5);
  Softmax softmax_middle(1);
  auto softmax_result =
      gradcheck([&](const std::vector<Variable>& in) { return softmax_middle(in[0]); },
                {randn({2, 3, 4}, generator, DType::Float64)});
  INFO(softmax_result.message);
  CHECK(softmax_result.ok);
  // Keep ReLU's inputs away from the kink at 0, where the derivative jumps.
  Tensor x = Tensor::from({{-1.5, 0.7, 2.0}, {0.3, -0.2, -3.0}}, DType::Float64);
  ReLU relu_module;
  auto relu_result =
      gradcheck([&](const std::vector<Variable>& in) { return relu_module(in[0]); }, {x});
  INFO(relu_result.message);
  CHECK(relu_result.ok);
}

TEST_CASE("Softmax: equals torch.softmax with -inf entries and scores near 1000",
          "[activation][fixture]") {
  using namespace atencion::testing;
  for (const char* name : {"softmax_f64", "softmax_f32"}) {
    INFO("fixture " << name);
    Fixture fixture(name);
    Variable x = fixture.input_variable("x");
    Variable y = Softmax(-1)(x);
    REQUIRE(matches(y.value(), fixture.output()));
    y.backward(fixture.grad_output());
    REQUIRE(matches(x.grad(), fixture.grad_input("x")));
  }
}
