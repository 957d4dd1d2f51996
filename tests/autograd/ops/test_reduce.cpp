// tests/autograd/ops/test_reduce.cpp — gradchecks of sum, mean, var, max.
#include <catch2/catch.hpp>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;

using Inputs = std::vector<Variable>;

TEST_CASE("sum: gradcheck over all, one and several dims", "[gradcheck][sum]") {
  const Tensor x = random_f64({2, 3, 2}, 1);
  CHECK(gradcheck([](const Inputs& v) { return sum(v[0]); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return sum(v[0], {1}); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return sum(v[0], {-1}, true); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return sum(v[0], {0, 2}); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return sum(v[0], {0}); }, {random_f64({3, 2}, 2).t()}));
}

TEST_CASE("mean: gradcheck", "[gradcheck][mean]") {
  const Tensor x = random_f64({2, 3, 2}, 1);
  CHECK(gradcheck([](const Inputs& v) { return mean(v[0]); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return mean(v[0], {1}, true); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return mean(v[0], {0, 2}); }, {x}));
  Variable y(Tensor::from({1.0, 2.0, 3.0, 4.0}, DType::Float64), true);
  mean(y).backward();
  CHECK(y.grad().to_vector() == std::vector<double>{0.25, 0.25, 0.25, 0.25});
}

TEST_CASE("var: gradcheck, unbiased and population", "[gradcheck][var]") {
  const Tensor x = random_f64({3, 4}, 1);
  CHECK(gradcheck([](const Inputs& v) { return var(v[0]); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return var(v[0], {1}); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return var(v[0], {0}, 0, true); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return var(v[0], {-1}, 0); },
                  {random_f64({4, 3}, 2).t()}));
}

TEST_CASE("max: gradcheck along a dim, with and without keepdim, and of all elements",
          "[gradcheck][max][max_all]") {
  // Distinct values, so that the max moves nowhere under a 1e-6 nudge.
  const Tensor x = Tensor::from({{0.1, 0.9, -0.4}, {0.7, -0.2, 0.3}}, DType::Float64);
  CHECK(gradcheck([](const Inputs& v) { return max(v[0], 1); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return max(v[0], 0, true); }, {x}));
  CHECK(gradcheck([](const Inputs& v) { return max(v[0], -1); }, {x.t()}));
  CHECK(gradcheck([](const Inputs& v) { return max(v[0]); }, {x}));
}

TEST_CASE("max: where the gradient goes on ties", "[max]") {
  Variable x(Tensor::from({{2.0, 5.0, 5.0}}, DType::Float64), true);
  SECTION("along a dim: to the first max, as its index") {
    sum(max(x, 1)).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{0.0, 1.0, 0.0});
  }
  SECTION("over everything: shared evenly, as PyTorch's x.max()") {
    max(x).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{0.0, 0.5, 0.5});
  }
}
