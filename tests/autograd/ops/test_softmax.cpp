// tests/autograd/ops/test_softmax.cpp — gradchecks of softmax and log_softmax, masked rows too.
#include <catch2/catch.hpp>

#include <limits>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;

using Inputs = std::vector<Variable>;

namespace {
const double minus_infinity = -std::numeric_limits<double>::infinity();
// Bool mask: true where a score is hidden (row 0 hides column 2, row 1 hides columns 0 and 3).
Tensor hidden_mask() {
  return ne(Tensor::from({{0, 0, 1, 0}, {1, 0, 0, 1}}, DType::Float64),
            Tensor::scalar(0, DType::Float64));
}
}  // namespace

TEST_CASE("softmax: gradcheck along each dim", "[gradcheck][softmax]") {
  const Tensor x = random_f64({2, 3, 4}, 1, -2, 2);
  CHECK(gradcheck([](const Inputs& v) { return softmax(v[0], -1); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return softmax(v[0], 1); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return softmax(v[0], 0); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return softmax(v[0], -1); }, {random_f64({4, 3}, 2).t()}));
}

TEST_CASE("softmax: masked (-inf) entries get exactly zero gradient", "[gradcheck][softmax]") {
  const Tensor mask = hidden_mask();
  auto masked_softmax = [=](const Inputs& v) {
    return softmax(masked_fill(v[0], mask, minus_infinity), -1);
  };
  const Tensor scores = random_f64({2, 4}, 3);
  CHECK(gradcheck(masked_softmax, {scores}));

  Variable x(scores, true);
  Variable weights = masked_softmax({x});
  CHECK(weights.value().at({0, 2}) == 0.0);
  // a loss that weighs the outputs differently, so the gradient is not trivially zero
  sum(mul(weights, Variable(random_f64({2, 4}, 4)))).backward();
  const Tensor grad = x.grad();
  CHECK(grad.at({0, 2}) == 0.0);
  CHECK(grad.at({1, 0}) == 0.0);
  CHECK(grad.at({1, 3}) == 0.0);
  CHECK(grad.at({0, 0}) != 0.0);
}

TEST_CASE("softmax: a fully masked row gives zeros and zero gradient", "[gradcheck][softmax]") {
  const Tensor mask = ne(Tensor::from({{0, 0, 0}, {1, 1, 1}}, DType::Float64),
                         Tensor::scalar(0, DType::Float64));
  auto masked_softmax = [=](const Inputs& v) {
    return softmax(masked_fill(v[0], mask, minus_infinity), 1);
  };
  const Tensor scores = random_f64({2, 3}, 5);
  CHECK(gradcheck(masked_softmax, {scores}));
  Variable x(scores, true);
  Variable weights = masked_softmax({x});
  CHECK(weights.value().to_vector()[3] == 0.0);
  sum(mul(weights, Variable(random_f64({2, 3}, 6)))).backward();
  CHECK(x.grad().at({1, 1}) == 0.0);
}

TEST_CASE("log_softmax: gradcheck, and stable for large scores", "[gradcheck][log_softmax]") {
  const Tensor x = random_f64({2, 3, 4}, 1, -2, 2);
  CHECK(gradcheck([](const Inputs& v) { return log_softmax(v[0], -1); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return log_softmax(v[0], 1); }, {x}));
  // exp(1000) overflows; the row max keeps it finite, and the gradient is unaffected by a shift.
  CHECK(gradcheck([](const Inputs& v) { return log_softmax(add(v[0], 1000.0), -1); },
                  {random_f64({2, 3}, 2)}));
}
