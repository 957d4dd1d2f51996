// tests/tensor/test_reduce.cpp — sum, mean, var, max, argmax, sum_to_shape (tensor/reduce.cpp).
#include <catch2/catch.hpp>
#include <cmath>

#include "tensor/ops.h"
#include "tensor/threads.h"

using namespace atencion;
using Catch::Contains;

using Values = std::vector<double>;

namespace {
// x = [[1, 2, 3], [4, 5, 6]]
Tensor two_by_three(DType dtype = DType::Float32) {
  return Tensor::from({{1, 2, 3}, {4, 5, 6}}, dtype);
}
}  // namespace

TEST_CASE("sum over all dims, one dim, several dims, with keepdim", "[reduce]") {
  Tensor x = two_by_three();
  CHECK(sum(x).shape() == Shape{});
  CHECK(sum(x).item() == 21);
  CHECK(sum(x, {0}).to_vector() == Values{5, 7, 9});
  CHECK(sum(x, {1}).to_vector() == Values{6, 15});
  CHECK(sum(x, {-1}, true).shape() == Shape{2, 1});
  CHECK(sum(x, {0, 1}, true).shape() == Shape{1, 1});
  CHECK(sum(x.t(), {0}).to_vector() == Values{6, 15});  // through strides
  Tensor cube = Tensor::arange(0, 24).view({2, 3, 4});
  // sum over dims 0 and 2: for j, sum_{i,k} (12 i + 4 j + k) = 2*4*4j + 4*12 + 2*6 = 32 j + 60
  CHECK(sum(cube, {0, 2}).to_vector() == Values{60, 92, 124});
  CHECK(sum(cube, {2, 0}, true).shape() == Shape{1, 3, 1});
  CHECK(sum(Tensor::zeros({0, 3}), {0}).to_vector() == Values{0, 0, 0});
  REQUIRE_THROWS_WITH(sum(x, {2}), Contains("sum: dim 2 out of range for a tensor of rank 2"));
  REQUIRE_THROWS_WITH(sum(x, {1, -1}), Contains("sum: dim 1 appears twice in [1, -1]"));
  REQUIRE_THROWS_WITH(sum(Tensor::zeros({2}, DType::Int64)),
                      Contains("sum: expected a float32 or float64 tensor, got int64"));
}

TEST_CASE("mean", "[reduce]") {
  Tensor x = two_by_three(DType::Float64);
  CHECK(mean(x).item() == 3.5);
  CHECK(mean(x, {0}).to_vector() == Values{2.5, 3.5, 4.5});
  CHECK(mean(x, {1}, true).to_vector() == Values{2, 5});
  CHECK(mean(x, {1}, true).shape() == Shape{2, 1});
}

TEST_CASE("var with correction", "[reduce]") {
  Tensor x = two_by_three(DType::Float64);
  // Row [1, 2, 3]: squared deviations 1 + 0 + 1 = 2. Unbiased: 2/2 = 1; population: 2/3.
  CHECK(var(x, {1}).to_vector() == Values{1, 1});
  CHECK_THAT(var(x, {1}, 0).to_vector(), Catch::Matchers::Approx(Values{2.0 / 3, 2.0 / 3}));
  // Column [1, 4]: deviations ±1.5, sum 4.5; unbiased 4.5.
  CHECK(var(x, {0}, 1, true).to_vector() == Values{4.5, 4.5, 4.5});
  CHECK(var(x, {0}, 1, true).shape() == Shape{1, 3});
  // All six: mean 3.5, squared deviations sum 17.5; unbiased 17.5 / 5 = 3.5.
  CHECK(var(x).item() == Approx(3.5));
  CHECK(std::isnan(var(Tensor::from({1.0}), {0}).item()));  // N - correction = 0
  // No cancellation for a large offset (E[x²] - E[x]² would lose every digit in float32).
  CHECK(var(Tensor::from({1e4 + 1, 1e4 + 2, 1e4 + 3}), {0}).item() == Approx(1.0));
}

TEST_CASE("max gives values and the first index of the max", "[reduce]") {
  Tensor x = Tensor::from({{1, 7, 7}, {9, 2, 9}});
  ValuesIndices along_rows = max(x, 1);
  CHECK(along_rows.values.to_vector() == Values{7, 9});
  CHECK(along_rows.indices.to_ids() == std::vector<int64_t>{1, 0});  // first on ties
  CHECK(along_rows.indices.dtype() == DType::Int64);
  ValuesIndices along_columns = max(x, 0, true);
  CHECK(along_columns.values.shape() == Shape{1, 3});
  CHECK(along_columns.values.to_vector() == Values{9, 7, 9});
  CHECK(along_columns.indices.to_ids() == std::vector<int64_t>{1, 0, 1});
  CHECK(argmax(x, -1).to_ids() == std::vector<int64_t>{1, 0});
  CHECK(argmax(x, 0, true).shape() == Shape{1, 3});
  CHECK(max(x).item() == 9);
  CHECK(max(x).shape() == Shape{});
  CHECK(max(Tensor::from_ids({3, 8, 1}, {3})).item() == 8);  // ids too
  // NaN wins, as in torch.
  CHECK(std::isnan(max(Tensor::from({1, std::nan(""), 3}), 0).values.item()));
  CHECK(max(Tensor::from({1, std::nan(""), 3}), 0).indices.item() == 1);
  REQUIRE_THROWS_WITH(max(Tensor::zeros({0})), Contains("max: the tensor has no elements"));
  REQUIRE_THROWS_WITH(max(Tensor::zeros({2, 0}), 1),
                      Contains("max: cannot reduce over an empty dim"));
  REQUIRE_THROWS_WITH(max(x, 2), Contains("max: dim 2 out of range"));
}

TEST_CASE("sum_to_shape undoes broadcasting", "[reduce]") {
  Tensor grad = Tensor::ones({2, 3, 4});
  CHECK(sum_to_shape(grad, {2, 3, 4}).storage() == grad.storage());  // nothing to do
  Tensor bias_grad = sum_to_shape(grad, {4});
  CHECK(bias_grad.shape() == Shape{4});
  CHECK(bias_grad.to_vector() == Values{6, 6, 6, 6});
  Tensor column_grad = sum_to_shape(grad, {3, 1});
  CHECK(column_grad.shape() == Shape{3, 1});
  CHECK(column_grad.to_vector() == Values{8, 8, 8});
  CHECK(sum_to_shape(grad, {}).item() == 24);
  CHECK(sum_to_shape(grad, {1, 1, 1}).item() == 24);
  REQUIRE_THROWS_WITH(
      sum_to_shape(grad, {3}),
      Contains("sum_to_shape: [3] does not broadcast to the gradient's shape [2, 3, 4]"));
  REQUIRE_THROWS_WITH(sum_to_shape(grad, {1, 2, 3, 4}), Contains("sum_to_shape: [1, 2, 3, 4]"));
}

TEST_CASE("large reductions do not depend on the number of threads", "[reduce]") {
  Tensor x = Tensor::arange(0, 400000).view({800, 500});
  const int saved = num_threads();
  set_num_threads(1);
  const Values serial = sum(x, {0}).to_vector();
  set_num_threads(2);
  const Values parallel = sum(x, {0}).to_vector();
  set_num_threads(saved);
  CHECK(serial == parallel);
  // Column j sums 500 i + j over i < 800: 500 * 319600 + 800 j.
  CHECK(parallel[0] == 500.0 * 319600);
  CHECK(parallel[499] == 500.0 * 319600 + 800 * 499);
}

TEST_CASE("summing rows of a matrix (the column-block path) matches the per-output path",
          "[reduce]") {
  Tensor x = Tensor::arange(0, 3000).view({10, 300}) / 7 - 100;  // 300 > one 256-column block
  Tensor transposed_copy = x.t().contiguous();                   // [300, 10]: reduce the last dim
  CHECK(sum(x, {0}).to_vector() == sum(transposed_copy, {1}).to_vector());
  CHECK(mean(x, {0}, true).to_vector() == mean(transposed_copy, {1}).to_vector());
  CHECK(var(x, {0}).to_vector() == var(transposed_copy, {1}).to_vector());
  Tensor cube = Tensor::arange(0, 600, 1, DType::Float64).view({3, 4, 50});
  Tensor bias_grad = sum(cube, {0, 1});   // [50]: rows of all 12 leading positions
  CHECK(bias_grad.at({0}) == 50.0 * 66);  // sum over i < 12 of 50 i
  CHECK(bias_grad.at({49}) == 50.0 * 66 + 12 * 49);
  CHECK(sum(cube, {1}).at({2, 7}) == 4 * 407 + 50 * 6);  // cube[2, j, 7] = 407 + 50 j
}
