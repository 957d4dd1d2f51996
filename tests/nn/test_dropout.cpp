// tests/nn/test_dropout.cpp — nn/dropout.cpp: inverted dropout, seeded, off in eval.
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/dropout.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("Dropout: zeroes a fraction p and scales the rest by 1/(1-p)", "[dropout]") {
  Generator generator(6);
  Dropout dropout(0.25, generator);
  Tensor y = dropout(Variable(Tensor::full({100, 100}, 3.0))).value();
  int64_t zeros = 0;
  for (double v : y.to_vector()) {
    if (v == 0) {
      ++zeros;
    } else {
      CHECK(v == Approx(3.0 / 0.75));
    }
  }
  CHECK(zeros / 10000.0 == Approx(0.25).margin(0.015));
}

TEST_CASE("Dropout: identity in eval and for p = 0, zeros for p = 1", "[dropout]") {
  Generator generator(7);
  Variable x(Tensor::from({1, 2, 3}));
  Dropout dropout(0.5, generator);
  dropout.eval();
  CHECK(dropout(x).value().to_vector() == std::vector<double>{1, 2, 3});
  Dropout none(0.0, generator);
  CHECK(none(x).value().to_vector() == std::vector<double>{1, 2, 3});
  Dropout all(1.0, generator);
  CHECK(all(x).value().to_vector() == std::vector<double>{0, 0, 0});
}

TEST_CASE("Dropout: the same seed draws the same mask, the gradient is the mask", "[dropout]") {
  Dropout a(0.5, uint64_t{42}), b(0.5, uint64_t{42});
  Variable x(Tensor::ones({64}), /*requires_grad=*/true);
  Tensor ya = a(x).value();
  Variable yb = b(x);
  CHECK(ya.to_vector() == yb.value().to_vector());
  // y = x · scale, so dy/dx = scale = y / x = y for x = 1.
  sum(yb).backward();
  CHECK(x.grad().to_vector() == yb.value().to_vector());
  // A second call draws a fresh mask.
  CHECK(a(x).value().to_vector() != ya.to_vector());
}

TEST_CASE("Dropout: p outside [0, 1] is refused", "[dropout]") {
  REQUIRE_THROWS_WITH(Dropout(1.5, uint64_t{0}),
                      Contains("Dropout: probability 1.5 is outside [0, 1]"));
  REQUIRE_THROWS_WITH(Dropout(-0.1, uint64_t{0}), Contains("outside [0, 1]"));
}

TEST_CASE("Dropout: float64 gradcheck with a fixed mask", "[dropout][gradcheck]") {
  // A fresh Dropout with the same seed draws the same mask at every evaluation, so finite
  // differences see the same function as the backward.
  Generator generator(8);
  const Tensor x = randn({3, 4}, generator, DType::Float64);
  auto result = gradcheck(
      [](const std::vector<Variable>& in) { return Dropout(0.4, uint64_t{9})(in[0]); }, {x});
  INFO(result.message);
  CHECK(result.ok);
}
