// tests/autograd/ops/test_unary.cpp — gradchecks of the element-wise functions.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;

using Inputs = std::vector<Variable>;

TEST_CASE("exp: gradcheck", "[gradcheck][exp]") {
  CHECK(gradcheck([](const Inputs& v) { return exp(v[0]); }, {random_f64({2, 3}, 1)}));
  CHECK(gradcheck([](const Inputs& v) { return exp(v[0]); }, {random_f64({3, 2}, 1).t()}));
}

TEST_CASE("log: gradcheck on positive inputs", "[gradcheck][log]") {
  CHECK(gradcheck([](const Inputs& v) { return log(v[0]); }, {random_f64({2, 3}, 1, 0.5, 3.0)}));
}

TEST_CASE("sqrt: gradcheck on positive inputs", "[gradcheck][sqrt]") {
  CHECK(gradcheck([](const Inputs& v) { return sqrt(v[0]); }, {random_f64({2, 3}, 1, 0.5, 3.0)}));
}

TEST_CASE("pow: gradcheck for several exponents", "[gradcheck][pow]") {
  const Tensor positive = random_f64({2, 3}, 1, 0.5, 2.0);
  for (double exponent : {2.0, 3.0, 0.5, -1.0, -2.5}) {
    INFO("exponent " << exponent);
    CHECK(gradcheck([=](const Inputs& v) { return pow(v[0], exponent); }, {positive}));
  }
  // integer exponents on negative values too
  CHECK(gradcheck([](const Inputs& v) { return pow(v[0], 3.0); }, {random_f64({4}, 2)}));
}

TEST_CASE("tanh: gradcheck", "[gradcheck][tanh]") {
  CHECK(gradcheck([](const Inputs& v) { return tanh(v[0]); }, {random_f64({2, 3}, 1, -3, 3)}));
}

TEST_CASE("relu: gradcheck away from the kink, and 0 gradient at 0", "[gradcheck][relu]") {
  CHECK(gradcheck([](const Inputs& v) { return relu(v[0]); }, {away_from_zero_f64({2, 4}, 1)}));
  Variable x(Tensor::from({-1.0, 0.0, 2.0}, DType::Float64), true);
  sum(relu(x)).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{0.0, 0.0, 1.0});
}

TEST_CASE("gelu: gradcheck, and the derivative at known points", "[gradcheck][gelu]") {
  CHECK(gradcheck([](const Inputs& v) { return gelu(v[0]); }, {random_f64({2, 4}, 1, -3, 3)}));
  Variable x(Tensor::from({0.0, 1.0}, DType::Float64), true);
  sum(gelu(x)).backward();
  // gelu'(0) = Φ(0) = 1/2;  gelu'(1) = Φ(1) + φ(1) = 0.8413447460685429 + 0.24197072451914337
  CHECK(x.grad().at({0}) == Approx(0.5));
  CHECK(x.grad().at({1}) == Approx(1.0833154705876864));
}

TEST_CASE("gelu: the float32 backward agrees with float64", "[gelu]") {
  const Tensor x64 = random_f64({5}, 2, -3, 3);
  Variable a(x64, true), b(x64.to(DType::Float32), true);
  sum(gelu(a)).backward();
  sum(gelu(b)).backward();
  CHECK(allclose(a.grad(), b.grad().to(DType::Float64), 1e-5, 1e-6));
}

TEST_CASE("gelu_tanh: gradcheck, and torch's values at known points",
          "[gradcheck][gelu_tanh]") {
  CHECK(gradcheck([](const Inputs& v) { return gelu(v[0], GeluApproximation::Tanh); },
                  {random_f64({3, 4}, 3, -4, 4)}));
  // GeluApproximation::None is the exact gelu, the same op.
  const Tensor x64 = random_f64({6}, 4, -3, 3);
  CHECK(gelu(Variable(x64), GeluApproximation::None).value().to_vector() ==
        gelu(Variable(x64)).value().to_vector());
  // torch.nn.functional.gelu(x, approximate='tanh') and its gradient, float64, at -1, 0, 1, 2
  // (torch 1.13): the values below.
  Variable x(Tensor::from({-1.0, 0.0, 1.0, 2.0}, DType::Float64), true);
  const Variable y = gelu(x, GeluApproximation::Tanh);
  CHECK_THAT(y.value().to_vector(),
             Catch::Matchers::Approx(std::vector<double>{
                 -0.15880800939172324, 0.0, 0.8411919906082768, 1.954597694087775})
                 .epsilon(1e-14));
  sum(y).backward();
  CHECK_THAT(x.grad().to_vector(),
             Catch::Matchers::Approx(std::vector<double>{
                 -0.08296408384578252, 0.5, 1.0829640838457826, 1.0860992566236183})
                 .epsilon(1e-12));
}

TEST_CASE("gelu_tanh: the float32 forward and backward agree with float64", "[gelu_tanh]") {
  const Tensor x64 = random_f64({7}, 5, -4, 4);
  Variable a(x64, true), b(x64.to(DType::Float32), true);
  const Variable ya = gelu(a, GeluApproximation::Tanh), yb = gelu(b, GeluApproximation::Tanh);
  CHECK(allclose(ya.value(), yb.value().to(DType::Float64), 1e-5, 1e-6));
  sum(ya).backward();
  sum(yb).backward();
  CHECK(allclose(a.grad(), b.grad().to(DType::Float64), 1e-5, 1e-6));
}

TEST_CASE("abs: gradcheck away from 0, and 0 gradient at 0", "[gradcheck][abs]") {
  CHECK(gradcheck([](const Inputs& v) { return abs(v[0]); }, {away_from_zero_f64({2, 4}, 1)}));
  Variable x(Tensor::from({-2.0, 0.0, 3.0}, DType::Float64), true);
  sum(abs(x)).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{-1.0, 0.0, 1.0});
}
