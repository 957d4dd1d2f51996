// tests/autograd/ops/test_indexing.cpp — gradchecks of index_select (embeddings) and gather.
#include <catch2/catch.hpp>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"

using namespace atencion;
using namespace atencion::testing;

using Inputs = std::vector<Variable>;

TEST_CASE("index_select: gradcheck, repeated ids add up", "[gradcheck][index_select]") {
  const Tensor table = random_f64({4, 3}, 1);  // an embedding table: 4 tokens, 3 features
  const Tensor ids = Tensor::from_ids({2, 0, 2, 3, 2, 1}, {2, 3});
  CHECK(gradcheck([=](const Inputs& v) { return index_select(v[0], 0, ids); }, {table}));
  const Tensor column_ids = Tensor::from_ids({1, 1, 0}, {3});
  CHECK(gradcheck([=](const Inputs& v) { return index_select(v[0], 1, column_ids); },
                  {random_f64({3, 2}, 2).t()}));

  Variable weight(table, true);
  sum(index_select(weight, 0, ids)).backward();
  // row r receives one g row per occurrence of r in ids: 1, 1, 3, 1 times
  CHECK(weight.grad().to_vector() ==
        std::vector<double>{1, 1, 1, 1, 1, 1, 3, 3, 3, 1, 1, 1});
}

TEST_CASE("gather: gradcheck along each dim, repeated indices", "[gradcheck][gather]") {
  const Tensor x = random_f64({2, 3}, 1);
  const Tensor by_column = Tensor::from_ids({2, 2, 0, 1, 0, 1}, {2, 3});
  CHECK(gradcheck([=](const Inputs& v) { return gather(v[0], 1, by_column); }, {x}));
  const Tensor by_row = Tensor::from_ids({1, 0, 1}, {1, 3});
  CHECK(gradcheck([=](const Inputs& v) { return gather(v[0], 0, by_row); }, {x}));
  CHECK(gradcheck([=](const Inputs& v) { return gather(v[0], 1, by_column); },
                  {random_f64({3, 2}, 2).t()}));
}
