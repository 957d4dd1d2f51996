// exercises/softmax/judge.cpp — judges exercise::softmax.
// Lesson: docs/04-softmax.md
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "exercises/softmax/softmax.h"
#include "exercises/judge_report.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
Tensor f64(const NestedValues& values) { return Tensor::from(values, DType::Float64); }
}  // namespace

TEST_CASE("softmax: a row by hand", "[exercise]") {
  // e^0, e^1, e^2 over their sum 1 + e + e² = 11.1073...
  Tensor y = exercise::softmax(f64({{0, 1, 2}}));
  REQUIRE(y.shape() == Shape{1, 3});
  CHECK(y.at({0, 0}) == Approx(0.090030573170).epsilon(1e-10));
  CHECK(y.at({0, 1}) == Approx(0.244728471055).epsilon(1e-10));
  CHECK(y.at({0, 2}) == Approx(0.665240955775).epsilon(1e-10));
}

TEST_CASE("softmax: scores of 1000 do not overflow", "[exercise]") {
  // The same row shifted by 1000: e^1000 is inf in float64, the weights must not change.
  for (DType dtype : {DType::Float64, DType::Float32}) {
    INFO("dtype " << dtype_name(dtype));
    Tensor y = exercise::softmax(Tensor::from({{1000, 1001, 1002}}, dtype));
    CHECK(judge::close_to(y, Tensor::from({{0.090030573170, 0.244728471055, 0.665240955775}}, dtype),
                   1e-5, 1e-7));
  }
}

TEST_CASE("softmax: -inf gets weight 0 and a row of only -inf gives zeros", "[exercise]") {
  Tensor y = exercise::softmax(f64({{0, -kInf, 0}, {-kInf, -kInf, -kInf}}));
  INFO("row 0 is a masked key between two equal scores; row 1 a query with nothing to see");
  CHECK(judge::close_to(y, f64({{0.5, 0, 0.5}, {0, 0, 0}}), 0, 1e-15));
}

TEST_CASE("softmax: along the last dim of any shape, equals ours", "[exercise]") {
  Generator generator(4);
  for (DType dtype : {DType::Float64, DType::Float32}) {
    INFO("dtype " << dtype_name(dtype));
    Tensor scores = mul(randn({2, 3, 7}, generator, dtype), 4.0);
    Tensor y = exercise::softmax(scores);
    REQUIRE(y.shape() == scores.shape());
    REQUIRE(y.dtype() == dtype);
    CHECK(judge::close_to(y, softmax(scores, -1), 1e-5, 1e-7));
  }
}
