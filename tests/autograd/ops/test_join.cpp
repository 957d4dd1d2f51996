// tests/autograd/ops/test_join.cpp — gradchecks of cat and split.
#include <catch2/catch.hpp>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;

using Inputs = std::vector<Variable>;

TEST_CASE("cat: gradcheck along each dim, with a value used twice", "[gradcheck][cat]") {
  const Tensor a = random_f64({2, 3}, 1), b = random_f64({1, 3}, 2), c = random_f64({2, 1}, 3);
  CHECK(gradcheck([](const Inputs& v) { return cat({v[0], v[1], v[0]}, 0); }, {a, b}));
  CHECK(gradcheck([](const Inputs& v) { return cat({v[0], v[1]}, -1); }, {a, c}));
  CHECK(gradcheck([](const Inputs& v) { return cat({v[0], v[1]}, 1); },
                  {random_f64({3, 2}, 4).t(), c}));
}

TEST_CASE("split: gradcheck by sizes and by split_size", "[gradcheck][split]") {
  const Tensor x = random_f64({2, 5}, 1);
  // pieces combined unevenly, so each piece's gradient lands in its own window
  CHECK(gradcheck([](const Inputs& v) {
    std::vector<Variable> pieces = split(v[0], std::vector<int64_t>{1, 3, 1}, 1);
    return cat({mul(pieces[0], 2.0), exp(pieces[1]), pieces[2]}, 1);
  }, {x}));
  CHECK(gradcheck([](const Inputs& v) {
    std::vector<Variable> pieces = split(v[0], 2, 1);  // sizes 2, 2, 1
    return add(mul(pieces[0], pieces[1]), pieces[2]);
  }, {x}));
}

TEST_CASE("split: an unused piece gets zero gradient", "[split]") {
  Variable x(random_f64({4}, 1), true);
  std::vector<Variable> pieces = split(x, 2, 0);
  REQUIRE(pieces.size() == 2);
  sum(pieces[1]).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{0, 0, 1, 1});
}
