// exercises/sigmoid/judge.cpp — judges exercise::sigmoid.
// Lesson: docs/02-autograd.md#recording-the-graph
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "exercises/sigmoid/sigmoid.h"
#include "exercises/judge_report.h"
#include "tensor/random.h"

using namespace atencion;

TEST_CASE("sigmoid: values by hand", "[exercise]") {
  // σ(0) = 1/2, σ(ln 3) = 1/(1 + 1/3) = 3/4, σ(−ln 3) = 1/4.
  Tensor x = Tensor::from({0.0, std::log(3.0), -std::log(3.0)}, DType::Float64);
  Variable y = exercise::sigmoid(Variable(x));
  REQUIRE(y.shape() == Shape{3});
  CHECK(judge::close_to(y.value(), Tensor::from({0.5, 0.75, 0.25}, DType::Float64), 1e-12, 1e-12));
}

TEST_CASE("sigmoid: recorded in the graph with the slope 1/4 at 0", "[exercise]") {
  Variable x(Tensor::from({0.0}, DType::Float64), /*requires_grad=*/true);
  Variable y = exercise::sigmoid(x);
  {
    // The hint belongs to these two checks only: when they pass, it is not the cause.
    INFO("the result must come from record(...) with x as its input, not be a plain Tensor");
    REQUIRE(y.requires_grad());
    y.backward(Tensor::ones({1}, DType::Float64));
    REQUIRE(x.has_grad());
  }
  CHECK(x.grad().item() == Approx(0.25).margin(1e-12));  // σ'(0) = σ(0)(1 − σ(0))
}

TEST_CASE("sigmoid: gradcheck against finite differences", "[exercise]") {
  Generator generator(21);
  auto f = [](const std::vector<Variable>& in) { return exercise::sigmoid(in[0]); };
  auto result = gradcheck(f, {mul(randn({2, 5}, generator, DType::Float64), 3.0)});
  INFO(judge::short_lines(result.message));
  CHECK(result.ok);
}
