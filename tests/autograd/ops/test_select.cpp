// tests/autograd/ops/test_select.cpp — gradchecks of masked_fill and where.
#include <catch2/catch.hpp>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;

using Inputs = std::vector<Variable>;

namespace {
// a Bool mask from 0/1 values
Tensor bool_mask(const NestedValues& values) {
  return ne(Tensor::from(values, DType::Float64), Tensor::scalar(0, DType::Float64));
}
}  // namespace

TEST_CASE("masked_fill: gradcheck, filled entries get zero gradient", "[gradcheck][masked_fill]") {
  const Tensor mask = bool_mask({{1, 0, 0}, {0, 1, 0}});
  CHECK(gradcheck([=](const Inputs& v) { return masked_fill(v[0], mask, 7.0); },
                  {random_f64({2, 3}, 1)}));
  const Tensor row_mask = bool_mask({0, 1, 0});  // broadcasts over rows
  CHECK(gradcheck([=](const Inputs& v) { return masked_fill(v[0], row_mask, -1.0); },
                  {random_f64({3, 2}, 2).t()}));

  Variable x(random_f64({2, 3}, 3), true);
  sum(masked_fill(x, mask, 7.0)).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{0, 1, 1, 1, 0, 1});
}

TEST_CASE("where: gradcheck with broadcasting operands", "[gradcheck][where]") {
  const Tensor mask = bool_mask({{1, 0, 0}, {0, 1, 1}});
  auto f = [=](const Inputs& v) { return where(mask, v[0], v[1]); };
  CHECK(gradcheck(f, {random_f64({2, 3}, 1), random_f64({2, 3}, 2)}));
  CHECK(gradcheck(f, {random_f64({3}, 1), random_f64({2, 1}, 2)}));
  CHECK(gradcheck(f, {random_f64({3, 2}, 1).t(), random_f64({}, 2)}));
  CHECK(gradcheck([=](const Inputs& v) { return where(mask, v[0], v[0]); },
                  {random_f64({2, 3}, 3)}));  // a value used twice: gradient 1 everywhere
}

TEST_CASE("maximum: gradcheck with broadcasting, and ties share the gradient",
          "[gradcheck][maximum]") {
  auto f = [](const Inputs& v) { return maximum(v[0], v[1]); };
  // |a| and |b| differ by at least 0.05 nowhere near a tie: a ∈ ±[0.5, 1.5), b ∈ [-0.4, 0.4)
  CHECK(gradcheck(f, {away_from_zero_f64({2, 3}, 1), random_f64({3}, 2, -0.4, 0.4)}));
  CHECK(gradcheck(f, {random_f64({2, 1}, 3, -0.4, 0.4), away_from_zero_f64({3, 2}, 4).t()}));

  Variable a(Tensor::from({1.0, 2.0, 3.0}, DType::Float64), true);
  Variable b(Tensor::from({3.0, 2.0, 1.0}, DType::Float64), true);
  sum(maximum(a, b)).backward();
  CHECK(a.grad().to_vector() == std::vector<double>{0.0, 0.5, 1.0});
  CHECK(b.grad().to_vector() == std::vector<double>{1.0, 0.5, 0.0});
}
