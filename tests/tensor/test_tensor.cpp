// tests/tensor/test_tensor.cpp — creation, layout and element access (tensor/tensor.cpp).
#include <catch2/catch.hpp>
#include <cstdint>

#include "tensor/ops.h"
#include "tensor/tensor.h"

using namespace atencion;
using Catch::Contains;

TEST_CASE("creation functions fill shape, strides and values", "[tensor]") {
  Tensor zeros = Tensor::zeros({2, 3});
  CHECK(zeros.shape() == Shape{2, 3});
  CHECK(zeros.strides() == Shape{3, 1});
  CHECK(zeros.offset() == 0);
  CHECK(zeros.dtype() == DType::Float32);
  CHECK(zeros.numel() == 6);
  CHECK(zeros.to_vector() == std::vector<double>(6, 0.0));
  CHECK(Tensor::empty({4}, DType::Int64).to_ids() == std::vector<int64_t>(4, 0));
  CHECK(Tensor::ones({3}, DType::Float64).to_vector() == std::vector<double>{1, 1, 1});
  CHECK(Tensor::full({2}, 2.5).to_vector() == std::vector<double>{2.5, 2.5});
  Tensor scalar = Tensor::scalar(4);
  CHECK(scalar.dim() == 0);
  CHECK(scalar.numel() == 1);
  CHECK(scalar.item() == 4);
  CHECK(Tensor::zeros_like(Tensor::ones({2, 2}, DType::Float64)).dtype() == DType::Float64);
  CHECK_FALSE(Tensor().defined());
}

TEST_CASE("uninitialized has the layout of empty and is writable", "[tensor]") {
  Tensor out = Tensor::uninitialized({3, 5}, DType::Float64);
  CHECK(out.shape() == Shape{3, 5});
  CHECK(out.strides() == Shape{5, 1});
  CHECK(out.dtype() == DType::Float64);
  CHECK(reinterpret_cast<std::uintptr_t>(out.data<double>()) % 64 == 0);
  out.fill_(1.5);
  CHECK(out.to_vector() == std::vector<double>(15, 1.5));
  REQUIRE_THROWS_WITH(Tensor::uninitialized({-1}), Contains("uninitialized: negative size"));
}

TEST_CASE("kernels on uninitialized outputs still give zeros for empty sums", "[tensor]") {
  // Leave non-zero bytes in freed memory, then ask for sums over nothing, which must be 0.
  for (int round = 0; round < 3; ++round) Tensor::uninitialized({64, 64}).fill_(7);
  CHECK(matmul(Tensor::ones({64, 0}), Tensor::ones({0, 64})).to_vector() ==
        std::vector<double>(64 * 64, 0.0));
  CHECK(sum(Tensor::ones({0, 64}), {0}).to_vector() == std::vector<double>(64, 0.0));
}

TEST_CASE("arange follows torch.arange", "[tensor]") {
  CHECK(Tensor::arange(0, 5).to_vector() == std::vector<double>{0, 1, 2, 3, 4});
  CHECK(Tensor::arange(1, 2, 0.25).to_vector() == std::vector<double>{1, 1.25, 1.5, 1.75});
  CHECK(Tensor::arange(5, 0, -2, DType::Int64).to_ids() == std::vector<int64_t>{5, 3, 1});
  CHECK(Tensor::arange(3, 3).numel() == 0);
  REQUIRE_THROWS_WITH(Tensor::arange(0, 1, 0), Contains("arange: step must be nonzero"));
  REQUIRE_THROWS_WITH(Tensor::arange(0, 5, -1), Contains("arange: the step"));
}

TEST_CASE("from_vector, from_ids and nested braces", "[tensor]") {
  Tensor x = Tensor::from_vector(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3}, DType::Float64);
  CHECK(x.at({1, 0}) == 4);
  CHECK(x.dtype() == DType::Float64);
  CHECK(Tensor::from_vector(std::vector<float>{0.5f, 1.5f}, {2}).dtype() == DType::Float32);
  CHECK(Tensor::from_ids({7, 8, 9}, {3, 1}).to_ids() == std::vector<int64_t>{7, 8, 9});
  REQUIRE_THROWS_WITH(Tensor::from_vector(std::vector<double>{1, 2, 3}, {2, 2}),
                      Contains("from_vector: 3 values do not fill shape [2, 2]"));
  REQUIRE_THROWS_WITH(Tensor::from_ids({1}, {2}), Contains("from_ids: 1 ids do not fill"));

  Tensor nested = Tensor::from({{1, 2, 3}, {4, 5, 6}});
  CHECK(nested.shape() == Shape{2, 3});
  CHECK(nested.to_vector() == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(Tensor::from({{{1}, {2}}}).shape() == Shape{1, 2, 1});
  CHECK(Tensor::from({1, 0, 1}, DType::Bool).to_ids() == std::vector<int64_t>{1, 0, 1});
  REQUIRE_THROWS_WITH(Tensor::from({{1, 2}, {3}}), Contains("Tensor::from: ragged"));
  REQUIRE_THROWS_WITH(Tensor::empty({2, -1}), Contains("empty: negative size in shape [2, -1]"));
}

TEST_CASE("element access uses offset + sum of index * stride", "[tensor]") {
  Tensor x = Tensor::from({{1, 2, 3}, {4, 5, 6}});
  // A hand-made view: the second column, read with stride 3 from offset 1.
  Tensor column(x.storage(), {2}, {3}, 1, DType::Float32);
  CHECK(column.to_vector() == std::vector<double>{2, 5});
  CHECK(x.at({-1, -1}) == 6);
  x.set({0, 1}, 20);
  CHECK(column.at({0}) == 20);
  REQUIRE_THROWS_AS(x.at({2, 0}), std::out_of_range);
  REQUIRE_THROWS_WITH(x.at({2, 0}), Contains("at: index 2 out of range for dim 0 of size 2"));
  REQUIRE_THROWS_WITH(x.at({0}), Contains("at: index of length 1 for a tensor of shape [2, 3]"));
  REQUIRE_THROWS_WITH(x.item(), Contains("item: the tensor has 6 elements"));
  REQUIRE_THROWS_WITH(Tensor(x.storage(), {2}, {1, 1}, 0, DType::Float32),
                      Contains("different ranks"));
}

TEST_CASE("size, dim and is_contiguous", "[tensor]") {
  Tensor x = Tensor::zeros({2, 3, 4});
  CHECK(x.size(-1) == 4);
  CHECK(x.size(0) == 2);
  REQUIRE_THROWS_WITH(x.size(3), Contains("size: dim 3 out of range for a tensor of rank 3"));
  CHECK(x.is_contiguous());
  CHECK_FALSE(x.transpose(0, 2).is_contiguous());
  CHECK(x.narrow(0, 1, 1).is_contiguous());  // one block of 12, offset 12
  CHECK_FALSE(x.narrow(2, 0, 2).is_contiguous());
  CHECK(x.unsqueeze(1).is_contiguous());
}

TEST_CASE("data<T>() checks the element type", "[tensor]") {
  Tensor x = Tensor::from({1, 2});
  CHECK(x.data<float>()[1] == 2.0f);
  Tensor ids = Tensor::from_ids({3}, {1});
  CHECK(ids.data<int64_t>()[0] == 3);
  REQUIRE_THROWS_WITH(x.data<double>(), Contains("data: the tensor holds float32"));
  REQUIRE_THROWS_WITH(Tensor().data<float>(), Contains("data: the tensor is undefined"));
  // data() points at the view's first element: storage + offset.
  CHECK(x.narrow(0, 1, 1).data<float>() == x.data<float>() + 1);
}

TEST_CASE("to_vector and to_ids read in row-major order of the view", "[tensor]") {
  Tensor x = Tensor::from({{1, 2}, {3, 4}});
  CHECK(x.t().to_vector() == std::vector<double>{1, 3, 2, 4});
  CHECK(Tensor::from_ids({4, 5, 6, 7}, {2, 2}).t().to_ids() == std::vector<int64_t>{4, 6, 5, 7});
  REQUIRE_THROWS_WITH(x.to_ids(),
                      Contains("to_ids: expected an int64 or bool tensor, got float32"));
}
