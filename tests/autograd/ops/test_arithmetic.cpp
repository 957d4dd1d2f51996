// tests/autograd/ops/test_arithmetic.cpp — gradchecks of +, -, *, / (broadcasting, scalars).
#include <catch2/catch.hpp>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;
using Catch::Matchers::Contains;

using Inputs = std::vector<Variable>;

TEST_CASE("add: gradcheck, same shape, broadcast and strided inputs",
          "[gradcheck][add][add_scalar]") {
  auto f = [](const Inputs& v) { return add(v[0], v[1]); };
  CHECK(gradcheck(f, {random_f64({2, 3}, 1), random_f64({2, 3}, 2)}));
  CHECK(gradcheck(f, {random_f64({2, 3}, 1), random_f64({3}, 2)}));        // row broadcast
  CHECK(gradcheck(f, {random_f64({2, 1}, 1), random_f64({1, 3}, 2)}));     // both stretch
  CHECK(gradcheck(f, {random_f64({}, 1), random_f64({2, 3}, 2)}));         // a 0-d operand
  CHECK(gradcheck(f, {random_f64({3, 2}, 1).t(), random_f64({2, 6}, 2).slice(1, 0, 6, 2)}));
  CHECK(gradcheck([](const Inputs& v) { return v[0] + v[1]; },
                  {random_f64({2, 3}, 3), random_f64({3}, 4)}));
  CHECK(gradcheck([](const Inputs& v) { return add(v[0], 2.5); }, {random_f64({2, 3}, 5)}));
  CHECK(gradcheck([](const Inputs& v) { return v[0] + 2.5; }, {random_f64({2}, 5)}));
  CHECK(gradcheck([](const Inputs& v) { return 2.5 + v[0]; }, {random_f64({2}, 5)}));
}

TEST_CASE("add: the forward values and a broadcast gradient by hand", "[add]") {
  Variable a(Tensor::from({{1.0, 2.0}, {3.0, 4.0}}, DType::Float64), true);
  Variable b(Tensor::from({10.0, 20.0}, DType::Float64), true);
  Variable y = a + b;
  CHECK(y.value().to_vector() == std::vector<double>{11, 22, 13, 24});
  sum(y).backward();
  CHECK(b.grad().to_vector() == std::vector<double>{2.0, 2.0});  // each b_j fed two outputs
}

TEST_CASE("add: a value used twice, x + x", "[gradcheck][add]") {
  CHECK(gradcheck([](const Inputs& v) { return v[0] + v[0]; }, {random_f64({2, 2}, 6)}));
}

TEST_CASE("sub: gradcheck", "[gradcheck][sub][sub_scalar]") {
  auto f = [](const Inputs& v) { return sub(v[0], v[1]); };
  CHECK(gradcheck(f, {random_f64({2, 3}, 1), random_f64({3}, 2)}));
  CHECK(gradcheck(f, {random_f64({4}, 1), random_f64({3, 1}, 2)}));
  CHECK(gradcheck([](const Inputs& v) { return v[0] - v[1]; },
                  {random_f64({3, 2}, 1).t(), random_f64({2, 3}, 2)}));
  CHECK(gradcheck([](const Inputs& v) { return sub(v[0], 0.5); }, {random_f64({3}, 3)}));
  CHECK(gradcheck([](const Inputs& v) { return v[0] - 0.5; }, {random_f64({3}, 3)}));
  CHECK(gradcheck([](const Inputs& v) { return v[0] - v[0]; }, {random_f64({3}, 3)}));
}

TEST_CASE("rsub: gradcheck, s - x", "[gradcheck][rsub]") {
  CHECK(gradcheck([](const Inputs& v) { return rsub(1.5, v[0]); }, {random_f64({2, 2}, 1)}));
  CHECK(gradcheck([](const Inputs& v) { return 1.5 - v[0]; }, {random_f64({2, 2}, 1)}));
}

TEST_CASE("mul: gradcheck, broadcasting and a value used twice", "[gradcheck][mul][mul_scalar]") {
  auto f = [](const Inputs& v) { return mul(v[0], v[1]); };
  CHECK(gradcheck(f, {random_f64({2, 3}, 1), random_f64({2, 3}, 2)}));
  CHECK(gradcheck(f, {random_f64({2, 1, 3}, 1), random_f64({4, 1}, 2)}));
  CHECK(gradcheck(f, {random_f64({3, 2}, 1).t(), random_f64({3}, 2)}));
  CHECK(gradcheck([](const Inputs& v) { return v[0] * v[0]; }, {random_f64({2, 3}, 3)}));
  CHECK(gradcheck([](const Inputs& v) { return mul(v[0], -3.0); }, {random_f64({2, 3}, 4)}));
  CHECK(gradcheck([](const Inputs& v) { return v[0] * -3.0; }, {random_f64({3}, 4)}));
  CHECK(gradcheck([](const Inputs& v) { return -3.0 * v[0]; }, {random_f64({3}, 4)}));
}

TEST_CASE("div: gradcheck, broadcasting, denominators away from 0",
          "[gradcheck][div][div_scalar]") {
  auto f = [](const Inputs& v) { return div(v[0], v[1]); };
  CHECK(gradcheck(f, {random_f64({2, 3}, 1), away_from_zero_f64({2, 3}, 2)}));
  CHECK(gradcheck(f, {random_f64({2, 3}, 1), away_from_zero_f64({2, 1}, 2)}));
  CHECK(gradcheck(f, {random_f64({3}, 1), away_from_zero_f64({3, 2}, 2).t()}));
  CHECK(gradcheck([](const Inputs& v) { return v[0] / v[0]; }, {away_from_zero_f64({3}, 3)}));
  CHECK(gradcheck([](const Inputs& v) { return div(v[0], 4.0); }, {random_f64({3}, 4)}));
  CHECK(gradcheck([](const Inputs& v) { return v[0] / 4.0; }, {random_f64({3}, 4)}));
}

TEST_CASE("rdiv: gradcheck, s / x", "[gradcheck][rdiv]") {
  CHECK(gradcheck([](const Inputs& v) { return rdiv(2.0, v[0]); }, {away_from_zero_f64({4}, 1)}));
  CHECK(gradcheck([](const Inputs& v) { return 2.0 / v[0]; }, {away_from_zero_f64({4}, 1)}));
}

TEST_CASE("neg: gradcheck", "[gradcheck][neg]") {
  CHECK(gradcheck([](const Inputs& v) { return neg(v[0]); }, {random_f64({2, 3}, 1)}));
  CHECK(gradcheck([](const Inputs& v) { return -v[0]; }, {random_f64({3, 2}, 1).t()}));
}

TEST_CASE("arithmetic: mismatched shapes name the op", "[add]") {
  Variable a(Tensor::zeros({2, 3}, DType::Float64), true);
  Variable b(Tensor::zeros({4}, DType::Float64), true);
  REQUIRE_THROWS_WITH(add(a, b), Contains("[2, 3]") && Contains("[4]"));
}
