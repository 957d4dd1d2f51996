// tests/tensor/test_indexing.cpp — index_select, gather and their adjoints (tensor/indexing.cpp).
#include <catch2/catch.hpp>

#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;
using Catch::Contains;

using Values = std::vector<double>;

TEST_CASE("index_select picks rows by id, like an embedding lookup", "[indexing]") {
  Tensor table = Tensor::from({{0, 1}, {10, 11}, {20, 21}, {30, 31}, {40, 41}});  // [5, 2]
  Tensor ids = Tensor::from_ids({3, 0, 3, 1, 2, 4}, {2, 3});
  Tensor rows = index_select(table, 0, ids);
  CHECK(rows.shape() == Shape{2, 3, 2});
  CHECK(rows.to_vector() == Values{30, 31, 0, 1, 30, 31, 10, 11, 20, 21, 40, 41});
  // Along dim 1, and from a non-contiguous tensor.
  Tensor columns = index_select(table.t(), 1, Tensor::from_ids({4, 0}, {2}));
  CHECK(columns.shape() == Shape{2, 2});
  CHECK(columns.to_vector() == Values{40, 0, 41, 1});
  CHECK(index_select(table, 1, Tensor::from_ids({1, 1, 0}, {3})).to_vector() ==
        Values{1, 1, 0, 11, 11, 10, 21, 21, 20, 31, 31, 30, 41, 41, 40});
  Tensor ints = Tensor::from_ids({5, 6, 7}, {3});
  CHECK(index_select(ints, 0, Tensor::from_ids({2, 2}, {2})).to_ids() ==
        std::vector<int64_t>{7, 7});
  REQUIRE_THROWS_AS(index_select(table, 0, Tensor::from_ids({7}, {1})), std::out_of_range);
  REQUIRE_THROWS_WITH(index_select(table, 0, Tensor::from_ids({7}, {1})),
                      Contains("index_select: id 7 out of range for dim 0 of size 5"));
  REQUIRE_THROWS_WITH(index_select(table, 0, Tensor::from_ids({-1}, {1})),
                      Contains("index_select: id -1 out of range"));
  REQUIRE_THROWS_WITH(index_select(table, 0, Tensor::from({1})),
                      Contains("index_select: ids must be an int64 tensor, got float32"));
  REQUIRE_THROWS_WITH(index_select(Tensor::scalar(1), 0, Tensor::from_ids({0}, {1})),
                      Contains("index_select: x must have at least 1 dim"));
}

TEST_CASE("index_add is the adjoint of index_select", "[indexing]") {
  Tensor ids = Tensor::from_ids({3, 0, 3}, {3});
  Tensor source = Tensor::from({{1, 2}, {3, 4}, {5, 6}});
  Tensor out = index_add({5, 2}, 0, ids, source);
  CHECK(out.to_vector() == Values{3, 4, 0, 0, 0, 0, 6, 8, 0, 0});  // row 3 gets 1+5, 2+6
  // <index_select(x, ids), y> == <x, index_add(y)> for random x, y.
  Generator generator(1);
  Tensor x = randn({4, 5, 3}, generator, DType::Float64);
  Tensor picks = Tensor::from_ids({4, 1, 1, 0, 4, 2}, {2, 3});
  Tensor y = randn({4, 2, 3, 3}, generator, DType::Float64);
  const double left = sum(mul(index_select(x, 1, picks), y)).item();
  const double right = sum(mul(x, index_add({4, 5, 3}, 1, picks, y))).item();
  CHECK(left == Approx(right).epsilon(1e-12));
  REQUIRE_THROWS_WITH(index_add({5, 2}, 0, ids, Tensor::zeros({2, 2})),
                      Contains("index_add: source of shape [2, 2] does not match [3, 2]"));
  REQUIRE_THROWS_WITH(index_add({2, 2}, 0, ids, source),
                      Contains("index_add: id 3 out of range for dim 0 of size 2"));
  REQUIRE_THROWS_WITH(index_add({}, 0, ids, source),
                      Contains("index_add: shape must have at least 1 dim"));
}

TEST_CASE("gather picks one entry per position along a dim", "[indexing]") {
  Tensor x = Tensor::from({{1, 2, 3}, {4, 5, 6}});
  // dim 1: out[i][j] = x[i][index[i][j]]
  Tensor picked = gather(x, 1, Tensor::from_ids({2, 0, 1, 1}, {2, 2}));
  CHECK(picked.shape() == Shape{2, 2});
  CHECK(picked.to_vector() == Values{3, 1, 5, 5});
  // dim 0: out[i][j] = x[index[i][j]][j]
  CHECK(gather(x, 0, Tensor::from_ids({1, 0, 1}, {1, 3})).to_vector() == Values{4, 2, 6});
  // The target log-probability of each row, as the loss uses it.
  CHECK(gather(x, -1, Tensor::from_ids({1, 2}, {2, 1})).to_vector() == Values{2, 6});
  REQUIRE_THROWS_WITH(gather(x, 1, Tensor::from_ids({3}, {1, 1})),
                      Contains("gather: id 3 out of range for dim 1 of size 3"));
  REQUIRE_THROWS_WITH(
      gather(x, 1, Tensor::from_ids({0, 0, 0}, {3, 1})),
      Contains("gather: index of shape [3, 1] does not fit x of shape [2, 3] outside dim 1"));
  REQUIRE_THROWS_WITH(gather(x, 1, Tensor::from_ids({0}, {1})),
                      Contains("gather: index of shape [1]"));
}

TEST_CASE("scatter_add is the adjoint of gather", "[indexing]") {
  Tensor index = Tensor::from_ids({2, 0, 2, 2}, {2, 2});
  Tensor source = Tensor::from({{1, 2}, {3, 4}});
  Tensor out = scatter_add({2, 3}, 1, index, source);
  CHECK(out.to_vector() == Values{2, 0, 1, 0, 0, 7});
  Generator generator(2);
  Tensor x = randn({3, 4}, generator, DType::Float64);
  Tensor positions = Tensor::from_ids({0, 2, 2, 1, 2, 1, 0, 0}, {2, 4});  // rows of x
  Tensor y = randn({2, 4}, generator, DType::Float64);
  // <gather(x, 0, positions), y> == <x, scatter_add(y)>
  const double left = sum(mul(gather(x, 0, positions), y)).item();
  const double right = sum(mul(x, scatter_add({3, 4}, 0, positions, y))).item();
  CHECK(left == Approx(right).epsilon(1e-12));
  REQUIRE_THROWS_WITH(
      scatter_add({2, 3}, 1, index, Tensor::zeros({2, 3})),
      Contains("scatter_add: index of shape [2, 2] and source of shape [2, 3] differ"));
  REQUIRE_THROWS_WITH(scatter_add({2, 2}, 1, index, source),
                      Contains("scatter_add: id 2 out of range for dim 1 of size 2"));
}
