// tests/autograd/ops/test_dropout.cpp — the fused dropout op (autograd/ops/dropout.cpp).
#include <catch2/catch.hpp>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;

using Inputs = std::vector<Variable>;

TEST_CASE("dropout: gradcheck with the mask of a fixed seed", "[gradcheck][dropout]") {
  // Every call draws from a generator seeded the same, so finite differences see one mask.
  const auto f = [](const Inputs& v) {
    Generator generator(11);
    return dropout(v[0], 0.3, generator);
  };
  CHECK(gradcheck(f, {random_f64({3, 5}, 1)}));
  CHECK(gradcheck(f, {random_f64({5, 3}, 2).t()}));  // a transposed input: the mask follows y
}

TEST_CASE("dropout: equals x * dropout_scale, and the backward replays the same mask",
          "[dropout]") {
  const Tensor x = random_f64({40, 30}, 3);
  Generator fused(8), spelled_out(8);
  Variable input(x, true);
  Variable y = dropout(input, 0.25, fused);
  const Tensor scale = dropout_scale({40, 30}, 0.25, spelled_out, DType::Float64);
  CHECK(allclose(y.value(), mul(x, scale), 0.0, 0.0));
  sum(y).backward();
  CHECK(allclose(input.grad(), scale, 0.0, 0.0));  // dL/dx = s when L = Σ y
  // The generator moved past the draws, as dropout_scale's did: the next mask is new.
  CHECK(fused.next_u64() == spelled_out.next_u64());
}

TEST_CASE("dropout: a bad probability names the op", "[dropout]") {
  Generator generator(1);
  Variable x(Tensor::ones({2}), false);
  REQUIRE_THROWS_WITH(dropout(x, -0.5, generator),
                      Catch::Contains("dropout_multiply: probability -0.5 is outside [0, 1]"));
}
