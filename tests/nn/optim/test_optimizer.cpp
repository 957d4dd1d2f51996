// tests/nn/optim/test_optimizer.cpp — nn/optim/optimizer.cpp: what every optimizer shares.
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "nn/optim/sgd.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("Optimizer: zero_grad drops every gradient, a parameter without one is skipped",
          "[optim]") {
  Variable a(Tensor::from({1.0, 2.0}), true), b(Tensor::from({3.0}), true);
  SGD sgd({a, b}, {.lr = 0.5});
  sum(a * a).backward();  // da = 2a = [2, 4]; b takes no part
  REQUIRE(a.has_grad());
  REQUIRE_FALSE(b.has_grad());
  sgd.step();
  REQUIRE(a.value().to_vector() == std::vector<double>{0.0, 0.0});  // a − 0.5·2a
  REQUIRE(b.value().to_vector() == std::vector<double>{3.0});
  sgd.zero_grad();
  REQUIRE_FALSE(a.has_grad());
}

TEST_CASE("Optimizer: the learning rate can change between steps and must be >= 0", "[optim]") {
  Variable a(Tensor::from({1.0}), true);
  SGD sgd({a}, {.lr = 0.1});
  sgd.set_learning_rate(0.25);
  REQUIRE(sgd.learning_rate() == 0.25);
  sum(a * 4.0).backward();  // da = 4
  sgd.step();
  REQUIRE(a.item() == Approx(1.0 - 0.25 * 4));
  REQUIRE_THROWS_WITH(sgd.set_learning_rate(-1), Contains("learning rate"));
}

TEST_CASE("Optimizer: refuses what it cannot update", "[optim]") {
  Variable frozen(Tensor::from({1.0}), false);
  REQUIRE_THROWS_WITH(SGD({frozen}, {}), Contains("parameter 0 is not a leaf Variable that requires grad"));
  Variable leaf(Tensor::from({1.0}), true);
  Variable computed = leaf * 2.0;
  REQUIRE_THROWS_WITH(SGD({leaf, computed}, {}), Contains("parameter 1"));
  Variable ids(Tensor::from_ids({1, 2}, {2}), false);
  REQUIRE_THROWS(SGD({ids}, {}));
}
