// exercises/softmax_backward/judge.cpp — judges exercise::softmax_backward.
// Lessons: docs/04-softmax.md#the-gradient, docs/02-autograd.md#gradcheck
#include <catch2/catch.hpp>

#include <limits>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "exercises/softmax_backward/softmax_backward.h"
#include "exercises/judge_report.h"
#include "tensor/random.h"

using namespace atencion;

namespace {
Tensor f64(const NestedValues& values) { return Tensor::from(values, DType::Float64); }

// softmax along the last dim as an autograd op whose backward is yours.
Variable softmax_with_your_backward(const Variable& x) {
  const Tensor y = softmax(x.value(), -1);
  return record("softmax (yours)", y, {x}, [=](const Tensor& g) -> Grads {
    return {exercise::softmax_backward(y, g)};
  });
}
}  // namespace

TEST_CASE("softmax_backward: by hand", "[exercise]") {
  // y = [1/2, 1/2], g = [1, 0]: Σ g·y = 1/2, dx = [1/2·(1 − 1/2), 1/2·(0 − 1/2)].
  Tensor dx = exercise::softmax_backward(f64({{0.5, 0.5}}), f64({{1, 0}}));
  REQUIRE(dx.shape() == Shape{1, 2});
  CHECK(judge::close_to(dx, f64({{0.25, -0.25}}), 0, 1e-15));
}

TEST_CASE("softmax_backward: gradcheck against finite differences", "[exercise]") {
  Generator generator(41);
  auto f = [](const std::vector<Variable>& in) { return softmax_with_your_backward(in[0]); };
  auto result = gradcheck(f, {randn({2, 3, 5}, generator, DType::Float64)});
  INFO(judge::short_lines(result.message));
  CHECK(result.ok);
}

TEST_CASE("softmax_backward: a masked entry gets no gradient and each row sums to 0",
          "[exercise]") {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor y = softmax(f64({{0.3, -inf, 1.2, -0.5}}), -1);
  Tensor dx = exercise::softmax_backward(y, f64({{0.7, 5.0, -1.0, 2.0}}));
  CHECK(dx.at({0, 1}) == 0.0);  // y = 0 there: no gradient whatever g is
  // Adding a constant to every score changes nothing, so the gradient has no component along it.
  CHECK(sum(dx).item() == Approx(0).margin(1e-12));
}
