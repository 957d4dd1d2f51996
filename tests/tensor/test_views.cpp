// tests/tensor/test_views.cpp — views share storage and only change shape/strides/offset
// (tensor/views.cpp). Layouts are worked out by hand, as in docs/01-tensor.md#views.
#include <catch2/catch.hpp>

#include "tensor/tensor.h"

using namespace atencion;
using Catch::Contains;

namespace {
// x = [[0, 1, 2], [3, 4, 5]]: shape [2, 3], strides [3, 1], offset 0.
Tensor two_by_three() { return Tensor::arange(0, 6).view({2, 3}); }
}  // namespace

TEST_CASE("transpose swaps shape and strides", "[views]") {
  Tensor x = two_by_three();
  Tensor t = x.transpose(0, 1);
  CHECK(t.shape() == Shape{3, 2});
  CHECK(t.strides() == Shape{1, 3});
  CHECK(t.offset() == 0);
  CHECK(t.storage() == x.storage());
  CHECK(t.to_vector() == std::vector<double>{0, 3, 1, 4, 2, 5});
  CHECK(x.t().strides() == Shape{1, 3});
  REQUIRE_THROWS_WITH(Tensor::zeros({3}).t(),
                      Contains("t: expected a tensor with at least 2 dims"));
  REQUIRE_THROWS_WITH(x.transpose(0, 2), Contains("transpose: dim 2 out of range"));
}

TEST_CASE("permute reorders shape and strides", "[views]") {
  Tensor x = Tensor::zeros({2, 3, 4});  // strides [12, 4, 1]
  Tensor p = x.permute({2, 0, 1});
  CHECK(p.shape() == Shape{4, 2, 3});
  CHECK(p.strides() == Shape{1, 12, 4});
  CHECK(x.permute({0, -1, 1}).shape() == Shape{2, 4, 3});
  REQUIRE_THROWS_WITH(x.permute({0, 1}),
                      Contains("permute: 2 dims given for a tensor of shape [2, 3, 4]"));
  REQUIRE_THROWS_WITH(x.permute({0, 1, 1}), Contains("permute: dim 1 appears twice"));
}

TEST_CASE("narrow, slice and select move the offset", "[views]") {
  Tensor x = two_by_three();
  Tensor cols = x.narrow(1, 1, 2);  // [[1, 2], [4, 5]]
  CHECK(cols.shape() == Shape{2, 2});
  CHECK(cols.strides() == Shape{3, 1});
  CHECK(cols.offset() == 1);
  CHECK(cols.to_vector() == std::vector<double>{1, 2, 4, 5});
  CHECK(x.narrow(1, -1, 1).to_vector() == std::vector<double>{2, 5});
  REQUIRE_THROWS_AS(x.narrow(1, 2, 2), std::out_of_range);
  REQUIRE_THROWS_WITH(x.narrow(1, 2, 2),
                      Contains("narrow: start 2 and length 2 do not fit dim 1 of size 3"));

  Tensor row = x.select(0, 1);  // [3, 4, 5]
  CHECK(row.shape() == Shape{3});
  CHECK(row.offset() == 3);
  CHECK(x.select(1, -1).to_vector() == std::vector<double>{2, 5});
  REQUIRE_THROWS_WITH(x.select(0, 2), Contains("select: index 2 out of range for dim 0 of size 2"));

  Tensor every_other = Tensor::arange(0, 10).slice(0, 1, 8, 3);  // 1, 4, 7
  CHECK(every_other.shape() == Shape{3});
  CHECK(every_other.strides() == Shape{3});
  CHECK(every_other.offset() == 1);
  CHECK(every_other.to_vector() == std::vector<double>{1, 4, 7});
  CHECK(Tensor::arange(0, 10).slice(0, -3, 100).to_vector() == std::vector<double>{7, 8, 9});
  CHECK(Tensor::arange(0, 10).slice(0, 5, 2).numel() == 0);
  REQUIRE_THROWS_WITH(x.slice(0, 0, 1, 0), Contains("slice: step must be positive, got 0"));
}

TEST_CASE("unsqueeze and squeeze add and remove size-1 dims", "[views]") {
  Tensor x = two_by_three();
  CHECK(x.unsqueeze(0).shape() == Shape{1, 2, 3});
  CHECK(x.unsqueeze(-1).shape() == Shape{2, 3, 1});
  CHECK(x.unsqueeze(1).shape() == Shape{2, 1, 3});
  CHECK(x.unsqueeze(1).squeeze(1).shape() == Shape{2, 3});
  CHECK(x.squeeze(0).shape() == Shape{2, 3});  // size 2: unchanged, as in torch
  REQUIRE_THROWS_WITH(x.unsqueeze(3),
                      Contains("unsqueeze: dim 3 out of range for a tensor of rank 3"));
}

TEST_CASE("expand stretches size-1 dims with stride 0", "[views]") {
  Tensor column = Tensor::from({{1}, {2}});  // [2, 1]
  Tensor wide = column.expand({2, 3});
  CHECK(wide.shape() == Shape{2, 3});
  CHECK(wide.strides() == Shape{1, 0});
  CHECK(wide.to_vector() == std::vector<double>{1, 1, 1, 2, 2, 2});
  Tensor batched = column.expand({4, -1, 3});
  CHECK(batched.shape() == Shape{4, 2, 3});
  CHECK(batched.strides() == Shape{0, 1, 0});
  REQUIRE_THROWS_WITH(
      Tensor::zeros({2, 3}).expand({4, 3}),
      Contains("expand: cannot expand [2, 3] to [4, 3]: dim 0 has size 2, which is not 1"));
  REQUIRE_THROWS_WITH(Tensor::zeros({2, 3}).expand({3}), Contains("the target has fewer dims"));
  REQUIRE_THROWS_WITH(Tensor::zeros({3}).expand({-1, 3}),
                      Contains("-1 is not allowed for a new leading dim"));
}

TEST_CASE("view regroups dims when the strides allow it", "[views]") {
  Tensor x = Tensor::arange(0, 24).view({2, 3, 4});
  CHECK(x.strides() == Shape{12, 4, 1});
  Tensor merged = x.view({6, 4});
  CHECK(merged.strides() == Shape{4, 1});
  CHECK(merged.storage() == x.storage());
  CHECK(x.view({-1}).shape() == Shape{24});
  CHECK(x.view({2, -1}).shape() == Shape{2, 12});
  // Merging the last two dims of a permuted tensor works when they are still one block:
  // [2, 3, 4] -> permute(1, 0, 2) has strides [4, 12, 1]; dims 1 and 2 do not merge with 0.
  Tensor p = x.permute({1, 0, 2});
  CHECK(p.view({3, 2, 2, 2}).strides() == Shape{4, 12, 2, 1});
  // A narrowed tensor keeps its offset.
  Tensor tail = x.narrow(0, 1, 1).view({12});
  CHECK(tail.offset() == 12);
  CHECK(tail.at({0}) == 12);
  // Splitting a dim of a transposed tensor is possible; merging its dims is not.
  Tensor t = Tensor::arange(0, 6).view({2, 3}).t();  // shape [3, 2], strides [1, 3]
  CHECK(t.view({3, 2, 1}).strides() == Shape{1, 3, 3});
  REQUIRE_THROWS_WITH(t.view({6}),
                      Contains("view: shape [6] is not compatible with the strides of [3, 2]"));
}

TEST_CASE("view rejects bad shapes with clear messages", "[views]") {
  Tensor x = Tensor::zeros({2, 3});
  REQUIRE_THROWS_WITH(x.view({-1, -1}),
                      Contains("view: only one dimension can be -1, got [-1, -1]"));
  REQUIRE_THROWS_WITH(x.view({4, 2}),
                      Contains("view: shape [4, 2] has 8 elements but the tensor [2, 3] has 6"));
  REQUIRE_THROWS_WITH(x.view({4, -1}),
                      Contains("view: shape [4, -1] is invalid for a tensor of shape [2, 3]"));
  REQUIRE_THROWS_WITH(x.view({-2, 3}), Contains("view: invalid size -2"));
  REQUIRE_THROWS_WITH(x.reshape({5}), Contains("reshape: shape [5] has 5 elements"));
}

TEST_CASE("view refuses a shape whose element count overflows int64", "[views]") {
  // 9 × 6148914691236517206 = 3 · 2^64 + 6: wrapped to 64 bits it would match the 6 elements.
  Tensor x = Tensor::zeros({2, 3});
  REQUIRE_THROWS_WITH(x.view({9, 6148914691236517206}),
                      Contains("view: shape [9, 6148914691236517206] has more elements than "
                               "int64 can count"));
  REQUIRE_THROWS_WITH(x.reshape({9, 6148914691236517206, -1}),
                      Contains("reshape: shape [9, 6148914691236517206, -1] has more elements"));
}

TEST_CASE("reshape is a view when possible and a copy otherwise", "[views]") {
  Tensor x = two_by_three();
  Tensor flat = x.reshape({6});
  CHECK(flat.storage() == x.storage());
  Tensor copied = x.t().reshape({6});
  CHECK(copied.storage() != x.storage());
  CHECK(copied.to_vector() == std::vector<double>{0, 3, 1, 4, 2, 5});
  CHECK(Tensor::scalar(3).reshape({1, 1}).shape() == Shape{1, 1});
  CHECK(Tensor::zeros({0, 3}).reshape({3, 0}).shape() == Shape{3, 0});
}

TEST_CASE("flatten merges a range of dims", "[views]") {
  Tensor x = Tensor::zeros({2, 3, 4, 5});
  CHECK(x.flatten().shape() == Shape{120});
  CHECK(x.flatten(1, 2).shape() == Shape{2, 12, 5});
  CHECK(x.flatten(-2).shape() == Shape{2, 3, 20});
  CHECK(x.flatten(1, 2).storage() == x.storage());
  CHECK(Tensor::scalar(1).flatten().shape() == Shape{1});
  REQUIRE_THROWS_WITH(x.flatten(2, 1), Contains("flatten: start_dim 2 comes after end_dim 1"));
}

TEST_CASE("size-1 dims with unusual strides and rank-0 tensors", "[views]") {
  Tensor row = Tensor::from({{1, 2, 3}});  // [1, 3], strides [3, 1]
  Tensor column = row.t();                 // [3, 1], strides [1, 3]
  CHECK(column.strides() == Shape{1, 3});
  CHECK(column.is_contiguous());  // the size-1 dim's stride does not matter
  CHECK(column.view({3}).strides() == Shape{1});
  CHECK(column.view({3}).storage() == row.storage());
  Tensor scalar = Tensor::scalar(5);
  CHECK(scalar.unsqueeze(0).shape() == Shape{1});
  CHECK(scalar.squeeze(0).shape() == Shape{});
  REQUIRE_THROWS_WITH(scalar.select(0, 0),
                      Contains("select: cannot be applied to a rank-0 tensor"));
  REQUIRE_THROWS_WITH(scalar.narrow(0, 0, 1),
                      Contains("narrow: cannot be applied to a rank-0 tensor"));
  REQUIRE_THROWS_WITH(scalar.size(0), Contains("size: a rank-0 tensor has no dims"));
}
