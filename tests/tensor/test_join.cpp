// tests/tensor/test_join.cpp — cat and split (tensor/join.cpp).
#include <catch2/catch.hpp>

#include "tensor/ops.h"

using namespace atencion;
using Catch::Contains;

using Values = std::vector<double>;

TEST_CASE("cat along each dim", "[join]") {
  Tensor a = Tensor::from({{1, 2}, {3, 4}});
  Tensor b = Tensor::from({{5, 6}});
  Tensor rows = cat({a, b}, 0);
  CHECK(rows.shape() == Shape{3, 2});
  CHECK(rows.to_vector() == Values{1, 2, 3, 4, 5, 6});
  Tensor columns = cat({a, b.t().expand({2, 2}), a.t()}, 1);  // views are read through strides
  CHECK(columns.shape() == Shape{2, 6});
  CHECK(columns.to_vector() == Values{1, 2, 5, 5, 1, 3, 3, 4, 6, 6, 2, 4});
  CHECK(cat({a}, -1).to_vector() == a.to_vector());
  CHECK(cat({a, Tensor::zeros({0, 2})}, 0).shape() == Shape{2, 2});
}

TEST_CASE("cat errors", "[join]") {
  Tensor a = Tensor::zeros({2, 2});
  REQUIRE_THROWS_WITH(cat({}, 0), Contains("cat: expected at least one tensor"));
  REQUIRE_THROWS_WITH(
      cat({a, Tensor::zeros({3, 3})}, 0),
      Contains("cat: tensor 1 of shape [3, 3] does not match [2, 2] outside dim 0"));
  REQUIRE_THROWS_WITH(cat({a, Tensor::zeros({2})}, 0), Contains("cat: tensor 1 of shape [2]"));
  REQUIRE_THROWS_WITH(cat({a, Tensor::zeros({2, 2}, DType::Float64)}, 0),
                      Contains("cat: dtype mismatch float32 vs float64"));
  REQUIRE_THROWS_WITH(cat({a}, 2), Contains("cat: dim 2 out of range"));
  REQUIRE_THROWS_WITH(cat({Tensor::scalar(1)}, 0), Contains("cat: cannot concatenate rank-0"));
}

TEST_CASE("split returns views, cat of the pieces gives the tensor back", "[join]") {
  Tensor x = Tensor::arange(0, 14).view({2, 7});
  std::vector<Tensor> pieces = split(x, 3, 1);
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0].shape() == Shape{2, 3});
  CHECK(pieces[2].shape() == Shape{2, 1});  // the remainder
  CHECK(pieces[1].storage() == x.storage());
  CHECK(pieces[1].offset() == 3);
  CHECK(pieces[1].to_vector() == Values{3, 4, 5, 10, 11, 12});
  CHECK(cat(pieces, 1).to_vector() == x.to_vector());

  std::vector<Tensor> uneven = split(x, std::vector<int64_t>{1, 4, 2}, -1);
  REQUIRE(uneven.size() == 3);
  CHECK(uneven[1].to_vector() == Values{1, 2, 3, 4, 8, 9, 10, 11});
  CHECK(cat(uneven, 1).to_vector() == x.to_vector());
  CHECK(cat(split(x, 1, 0), 0).to_vector() == x.to_vector());

  REQUIRE_THROWS_WITH(split(x, 0, 1), Contains("split: split_size must be positive, got 0"));
  REQUIRE_THROWS_WITH(split(x, std::vector<int64_t>{3, 3}, 1),
                      Contains("split: sizes [3, 3] sum to 6, but dim 1 of [2, 7] has size 7"));
  REQUIRE_THROWS_WITH(split(x, std::vector<int64_t>{8, -1}, 1), Contains("split: negative size"));
}
