// tests/tensor/test_copy.cpp — to(), contiguous(), clone(), copy_(), fill_() (tensor/copy.cpp).
#include <catch2/catch.hpp>

#include "tensor/tensor.h"

using namespace atencion;
using Catch::Contains;

TEST_CASE("to converts dtype and returns the same tensor when nothing changes", "[copy]") {
  Tensor x = Tensor::from({{1.5, -2.0}, {0, 3}});
  Tensor same = x.to(DType::Float32);
  CHECK(same.storage() == x.storage());
  Tensor doubles = x.to(DType::Float64);
  CHECK(doubles.dtype() == DType::Float64);
  CHECK(doubles.to_vector() == std::vector<double>{1.5, -2, 0, 3});
  CHECK(x.to(DType::Int64).to_ids() == std::vector<int64_t>{1, -2, 0, 3});  // truncates
  CHECK(x.to(DType::Bool).to_ids() == std::vector<int64_t>{1, 1, 0, 1});    // nonzero -> 1
  CHECK(x.t().to(DType::Float64).to_vector() == std::vector<double>{1.5, 0, -2, 3});
}

TEST_CASE("contiguous copies only when the layout is not row-major", "[copy]") {
  Tensor x = Tensor::from({{1, 2, 3}, {4, 5, 6}});
  CHECK(x.contiguous().storage() == x.storage());
  Tensor transposed = x.t().contiguous();
  CHECK(transposed.storage() != x.storage());
  CHECK(transposed.strides() == Shape{2, 1});
  CHECK(transposed.to_vector() == std::vector<double>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("clone always copies", "[copy]") {
  Tensor x = Tensor::from({1, 2, 3});
  Tensor copy = x.clone();
  CHECK(copy.storage() != x.storage());
  copy.set({0}, 9);
  CHECK(x.at({0}) == 1);
}

TEST_CASE("copy_ writes through a view and broadcasts the source", "[copy]") {
  Tensor x = Tensor::zeros({2, 3});
  x.narrow(1, 1, 2).copy_(Tensor::from({7, 8}));  // broadcast over rows
  CHECK(x.to_vector() == std::vector<double>{0, 7, 8, 0, 7, 8});
  x.t().copy_(Tensor::from({{1, 2}, {3, 4}, {5, 6}}));
  CHECK(x.to_vector() == std::vector<double>{1, 3, 5, 2, 4, 6});
  Tensor ids = Tensor::zeros({2}, DType::Int64);
  ids.copy_(Tensor::from({2.7, -1.2}));
  CHECK(ids.to_ids() == std::vector<int64_t>{2, -1});
  REQUIRE_THROWS_WITH(x.copy_(Tensor::zeros({3, 2})),
                      Contains("copy_: shapes [2, 3] and [3, 2] cannot be broadcast"));
  REQUIRE_THROWS_WITH(Tensor::zeros({3}).copy_(Tensor::zeros({2, 3})),
                      Contains("copy_: source of shape [2, 3] does not broadcast to [3]"));
}

TEST_CASE("copy_ from an overlapping view of the same storage", "[copy]") {
  Tensor x = Tensor::from({{1, 2}, {3, 4}});
  x.copy_(x.t());  // in-place transpose must read the old values
  CHECK(x.to_vector() == std::vector<double>{1, 3, 2, 4});
}

TEST_CASE("fill_ sets every element of a view", "[copy]") {
  Tensor x = Tensor::zeros({3, 3});
  x.select(1, 1).fill_(5);
  CHECK(x.to_vector() == std::vector<double>{0, 5, 0, 0, 5, 0, 0, 5, 0});
  Tensor mask = Tensor::zeros({2}, DType::Bool);
  mask.fill_(1);
  CHECK(mask.to_ids() == std::vector<int64_t>{1, 1});
}

TEST_CASE("copying a large transposed view (the tiled walk) keeps every element", "[copy]") {
  // [3, 45, 70] read as [3, 70, 45]: more than one 32 x 32 tile per matrix, ragged edges.
  Tensor x = Tensor::arange(0, 3 * 45 * 70, 1, DType::Float64).view({3, 45, 70});
  Tensor transposed = x.transpose(1, 2);
  Tensor copy = transposed.contiguous();
  CHECK(copy.is_contiguous());
  bool all_equal = true;
  for (int64_t b = 0; b < 3; ++b) {
    for (int64_t i = 0; i < 70; ++i) {
      for (int64_t j = 0; j < 45; ++j) {
        // copy[b][i][j] = x[b][j][i] = b*3150 + j*70 + i
        all_equal = all_equal && copy.at({b, i, j}) == b * 3150 + j * 70 + i;
      }
    }
  }
  CHECK(all_equal);
}
