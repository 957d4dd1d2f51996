// tests/tensor/test_elementwise.cpp — element-wise ops and broadcasting (tensor/elementwise.cpp).
#include <catch2/catch.hpp>
#include <cmath>

#include "tensor/ops.h"
#include "tensor/threads.h"

using namespace atencion;
using Catch::Contains;

TEST_CASE("broadcast_shapes aligns on the right", "[elementwise]") {
  CHECK(broadcast_shapes("op", {2, 3}, {3}) == Shape{2, 3});
  CHECK(broadcast_shapes("op", {2, 1}, {1, 3}) == Shape{2, 3});
  CHECK(broadcast_shapes("op", {4, 1, 5}, {3, 1}) == Shape{4, 3, 5});
  CHECK(broadcast_shapes("op", {}, {2, 2}) == Shape{2, 2});
  CHECK(broadcast_shapes("op", {0, 1}, {1, 4}) == Shape{0, 4});
  REQUIRE_THROWS_AS(broadcast_shapes("add", {2, 3}, {2}), std::invalid_argument);
  REQUIRE_THROWS_WITH(
      broadcast_shapes("add", {2, 3}, {2}),
      Contains("add: shapes [2, 3] and [2] cannot be broadcast (size 3 vs 2 in dim 1)"));
}

TEST_CASE("binary ops broadcast like NumPy", "[elementwise]") {
  Tensor matrix = Tensor::from({{1, 2, 3}, {4, 5, 6}});
  Tensor row = Tensor::from({10, 20, 30});
  Tensor column = Tensor::from({{100}, {200}});
  CHECK((matrix + row).to_vector() == std::vector<double>{11, 22, 33, 14, 25, 36});
  CHECK((matrix + column).to_vector() == std::vector<double>{101, 102, 103, 204, 205, 206});
  // [2, 1] with [3] gives [2, 3]: an outer sum.
  Tensor outer = column + row;
  CHECK(outer.shape() == Shape{2, 3});
  CHECK(outer.to_vector() == std::vector<double>{110, 120, 130, 210, 220, 230});
  CHECK((matrix - row).to_vector() == std::vector<double>{-9, -18, -27, -6, -15, -24});
  CHECK((matrix * column).to_vector() == std::vector<double>{100, 200, 300, 800, 1000, 1200});
  CHECK((row / matrix.select(0, 0)).to_vector() == std::vector<double>{10, 10, 10});
  CHECK(maximum(matrix, Tensor::scalar(3.5)).to_vector() ==
        std::vector<double>{3.5, 3.5, 3.5, 4, 5, 6});
  // A transposed operand is read through its strides.
  CHECK((matrix.t() + matrix.t()).to_vector() == std::vector<double>{2, 8, 4, 10, 6, 12});
}

TEST_CASE("scalar forms", "[elementwise]") {
  Tensor x = Tensor::from({1, 2, 4}, DType::Float64);
  CHECK((x + 1).to_vector() == std::vector<double>{2, 3, 5});
  CHECK((x - 1).to_vector() == std::vector<double>{0, 1, 3});
  CHECK((x * 2).to_vector() == std::vector<double>{2, 4, 8});
  CHECK((2 * x).to_vector() == std::vector<double>{2, 4, 8});
  CHECK((x / 2).to_vector() == std::vector<double>{0.5, 1, 2});
  CHECK(rsub(1, x).to_vector() == std::vector<double>{0, -1, -3});
  CHECK(rdiv(4, x).to_vector() == std::vector<double>{4, 2, 1});
  CHECK((-x).to_vector() == std::vector<double>{-1, -2, -4});
  CHECK((x + 1).dtype() == DType::Float64);
}

TEST_CASE("unary ops", "[elementwise]") {
  Tensor x = Tensor::from({-1, 0, 0.5, 2}, DType::Float64);
  CHECK(neg(x).to_vector() == std::vector<double>{1, 0, -0.5, -2});
  CHECK_THAT(exp(x).to_vector(), Catch::Matchers::Approx(std::vector<double>{
                                     std::exp(-1.0), 1, std::exp(0.5), std::exp(2.0)}));
  CHECK_THAT(log(Tensor::from({1, M_E}, DType::Float64)).to_vector(),
             Catch::Matchers::Approx(std::vector<double>{0, 1}));
  CHECK(sqrt(Tensor::from({4, 9})).to_vector() == std::vector<double>{2, 3});
  CHECK(pow(x, 2).to_vector() == std::vector<double>{1, 0, 0.25, 4});
  CHECK_THAT(pow(Tensor::from({4, 9}, DType::Float64), 0.5).to_vector(),
             Catch::Matchers::Approx(std::vector<double>{2, 3}));
  CHECK_THAT(tanh(x).to_vector(), Catch::Matchers::Approx(std::vector<double>{
                                      std::tanh(-1.0), 0, std::tanh(0.5), std::tanh(2.0)}));
  CHECK(relu(x).to_vector() == std::vector<double>{0, 0, 0.5, 2});
  CHECK(abs(x).to_vector() == std::vector<double>{1, 0, 0.5, 2});
  // gelu(x) = x * Phi(x); Phi(-1) = 0.15865525393145707, Phi(0.5) = 0.6914624612740131,
  // Phi(2) = 0.9772498680518208 (standard normal CDF table values).
  CHECK_THAT(
      gelu(x).to_vector(),
      Catch::Matchers::Approx(std::vector<double>{-0.15865525393145707, 0, 0.5 * 0.6914624612740131,
                                                  2 * 0.9772498680518208})
          .epsilon(1e-12));
}

TEST_CASE("in-place add_ and mul_", "[elementwise]") {
  Tensor accumulator = Tensor::zeros({2, 2});
  add_(accumulator, Tensor::from({1, 2}));
  add_(accumulator, Tensor::from({{10, 20}, {30, 40}}));
  CHECK(accumulator.to_vector() == std::vector<double>{11, 22, 31, 42});
  mul_(accumulator, 0.5);
  CHECK(accumulator.to_vector() == std::vector<double>{5.5, 11, 15.5, 21});
  Tensor view = accumulator.t();
  add_(view, Tensor::from({{1, 1}, {0, 0}}));  // writes through the transposed view
  CHECK(accumulator.to_vector() == std::vector<double>{6.5, 11, 16.5, 21});
  add_(accumulator, accumulator.t());  // aliasing source is read before writing
  CHECK(accumulator.to_vector() == std::vector<double>{13, 27.5, 27.5, 42});
  REQUIRE_THROWS_WITH(add_(accumulator, Tensor::zeros({3, 2, 2})),
                      Contains("add_: [3, 2, 2] does not broadcast to the in-place target [2, 2]"));
  Tensor expanded = Tensor::zeros({1, 2}).expand({3, 2});
  REQUIRE_THROWS_WITH(add_(expanded, Tensor::zeros({3, 2})),
                      Contains("add_: cannot write in place into an expanded tensor"));
}

TEST_CASE("dtype errors name the op and the dtypes", "[elementwise]") {
  Tensor f32 = Tensor::zeros({2});
  Tensor f64 = Tensor::zeros({2}, DType::Float64);
  Tensor ids = Tensor::zeros({2}, DType::Int64);
  REQUIRE_THROWS_AS(add(f32, f64), std::invalid_argument);
  REQUIRE_THROWS_WITH(add(f32, f64), Contains("add: dtype mismatch float32 vs float64"));
  REQUIRE_THROWS_WITH(mul(f64, f32), Contains("mul: dtype mismatch float64 vs float32"));
  REQUIRE_THROWS_WITH(add(ids, ids),
                      Contains("add: expected a float32 or float64 tensor, got int64"));
  REQUIRE_THROWS_WITH(exp(Tensor::zeros({2}, DType::Bool)),
                      Contains("exp: expected a float32 or float64 tensor, got bool"));
  REQUIRE_THROWS_WITH(add(Tensor(), f32), Contains("add: the tensor is undefined"));
  REQUIRE_THROWS_WITH(mul_(ids, 2.0),
                      Contains("mul_: expected a float32 or float64 tensor, got int64"));
}

TEST_CASE("large inputs take the parallel path and match the serial result", "[elementwise]") {
  const int64_t n = 300000;  // above the parallel threshold
  Tensor x = Tensor::arange(0, static_cast<double>(n), 1, DType::Float64).view({600, 500});
  Tensor bias = Tensor::arange(0, 500, 1, DType::Float64);
  const int saved = num_threads();
  set_num_threads(1);
  Tensor serial = x.t() * 2 + bias.unsqueeze(1);
  set_num_threads(2);
  Tensor parallel = x.t() * 2 + bias.unsqueeze(1);
  set_num_threads(saved);
  CHECK(serial.to_vector() == parallel.to_vector());
  CHECK(parallel.at({499, 599}) == 2 * (599 * 500 + 499) + 499);
  CHECK(parallel.at({3, 7}) == 2 * (7 * 500 + 3) + 3);
}
