// tests/autograd/ops/test_views.cpp — gradchecks of the view ops, on strided inputs too.
#include <catch2/catch.hpp>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;

using Inputs = std::vector<Variable>;

// Every view is followed by a multiplication with fixed weights, so that each output element
// has its own gradient and a misplaced one is caught.
namespace {
Variable weighted(const Variable& y) {
  return mul(y, Variable(random_f64(y.shape(), 99)));
}
}  // namespace

TEST_CASE("reshape: gradcheck, contiguous and transposed input", "[gradcheck][reshape]") {
  auto f = [](const Inputs& v) { return weighted(reshape(v[0], {3, -1})); };
  CHECK(gradcheck(f, {random_f64({2, 3}, 1)}));
  CHECK(gradcheck(f, {random_f64({3, 2}, 1).t()}));  // needs a copy: the gradient must too
}

TEST_CASE("view: gradcheck", "[gradcheck][view]") {
  CHECK(gradcheck([](const Inputs& v) { return weighted(view(v[0], {6})); },
                  {random_f64({2, 3}, 1)}));
}

TEST_CASE("flatten: gradcheck", "[gradcheck][flatten]") {
  CHECK(gradcheck([](const Inputs& v) { return weighted(flatten(v[0], 1)); },
                  {random_f64({2, 3, 2}, 1)}));
  CHECK(gradcheck([](const Inputs& v) { return weighted(flatten(v[0])); },
                  {random_f64({3, 2}, 1).t()}));
}

TEST_CASE("squeeze and unsqueeze: gradcheck", "[gradcheck][squeeze][unsqueeze]") {
  CHECK(gradcheck([](const Inputs& v) { return weighted(squeeze(v[0], 1)); },
                  {random_f64({2, 1, 3}, 1)}));
  CHECK(gradcheck([](const Inputs& v) { return weighted(unsqueeze(v[0], -1)); },
                  {random_f64({2, 3}, 1)}));
}

TEST_CASE("transpose: gradcheck", "[gradcheck][transpose]") {
  CHECK(gradcheck([](const Inputs& v) { return weighted(transpose(v[0], 0, 2)); },
                  {random_f64({2, 3, 4}, 1)}));
  CHECK(gradcheck([](const Inputs& v) { return weighted(transpose(v[0], 0, 1)); },
                  {random_f64({3, 2}, 1).t()}));
}

TEST_CASE("permute: gradcheck", "[gradcheck][permute]") {
  CHECK(gradcheck([](const Inputs& v) { return weighted(permute(v[0], {2, 0, 1})); },
                  {random_f64({2, 3, 4}, 1)}));
  CHECK(gradcheck([](const Inputs& v) { return weighted(permute(v[0], {1, -1, 0})); },
                  {random_f64({2, 3, 4}, 2)}));
}

TEST_CASE("narrow: gradcheck, the rest of the input gets 0", "[gradcheck][narrow]") {
  CHECK(gradcheck([](const Inputs& v) { return weighted(narrow(v[0], 1, 1, 2)); },
                  {random_f64({2, 4}, 1)}));
  Variable x(random_f64({4}, 2), true);
  sum(narrow(x, 0, 1, 2)).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{0, 1, 1, 0});
}

TEST_CASE("slice: gradcheck with a step, on a transposed input", "[gradcheck][slice]") {
  CHECK(gradcheck([](const Inputs& v) { return weighted(slice(v[0], 1, 0, 5, 2)); },
                  {random_f64({2, 5}, 1)}));
  CHECK(gradcheck([](const Inputs& v) { return weighted(slice(v[0], 0, 1, 3)); },
                  {random_f64({2, 3}, 1).t()}));
}

TEST_CASE("select: gradcheck", "[gradcheck][select]") {
  CHECK(gradcheck([](const Inputs& v) { return weighted(select(v[0], 1, 2)); },
                  {random_f64({2, 3, 2}, 1)}));
  CHECK(gradcheck([](const Inputs& v) { return weighted(select(v[0], 0, -1)); },
                  {random_f64({2, 3}, 1)}));
}

TEST_CASE("expand: gradcheck, the gradient sums over the copies", "[gradcheck][expand]") {
  CHECK(gradcheck([](const Inputs& v) { return weighted(expand(v[0], {2, 3, 4})); },
                  {random_f64({3, 1}, 1)}));
  Variable x(random_f64({1, 2}, 2), true);
  sum(expand(x, {3, 2})).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{3.0, 3.0});
}

TEST_CASE("contiguous: gradcheck", "[gradcheck][contiguous]") {
  CHECK(gradcheck([](const Inputs& v) { return weighted(contiguous(v[0])); },
                  {random_f64({3, 2}, 1).t()}));
}

TEST_CASE("views: a chain of views on one input, used twice", "[gradcheck][reshape][transpose]") {
  // split heads and merge them back, as multi-head attention does, plus a residual
  auto f = [](const Inputs& v) {
    Variable heads = transpose(reshape(v[0], {2, 3, 2, 2}), 1, 2);  // [batch, heads, tokens, dim]
    Variable merged = reshape(transpose(mul(heads, heads), 1, 2), {2, 3, 4});
    return weighted(add(merged, v[0]));
  };
  CHECK(gradcheck(f, {random_f64({2, 3, 4}, 1)}));
}
