// tests/tensor/test_softmax.cpp — stable softmax and log_softmax (tensor/softmax.cpp).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;
using Catch::Contains;

using Values = std::vector<double>;

TEST_CASE("softmax of a row, by hand", "[softmax]") {
  // softmax([0, ln 2, ln 5]) = [1, 2, 5] / 8
  Tensor x = Tensor::from({0, std::log(2.0), std::log(5.0)}, DType::Float64);
  CHECK_THAT(softmax(x, 0).to_vector(),
             Catch::Matchers::Approx(Values{0.125, 0.25, 0.625}).epsilon(1e-14));
  CHECK_THAT(log_softmax(x, 0).to_vector(),
             Catch::Matchers::Approx(Values{std::log(0.125), std::log(0.25), std::log(0.625)})
                 .epsilon(1e-14));
}

TEST_CASE("softmax is stable: shifting by 1000 changes nothing", "[softmax]") {
  for (DType dtype : {DType::Float32, DType::Float64}) {
    Tensor small = Tensor::from({{0, 1}, {2, 4}}, dtype);
    Tensor large = Tensor::from({{1000, 1001}, {1002, 1004}}, dtype);
    const Values expected = softmax(small, 1).to_vector();
    const Values shifted = softmax(large, 1).to_vector();
    for (double v : shifted) CHECK(std::isfinite(v));
    CHECK_THAT(shifted, Catch::Matchers::Approx(expected).epsilon(1e-6));
    // 1 / (1 + e) and e / (1 + e)
    CHECK(expected[0] == Approx(1 / (1 + M_E)));
    CHECK(expected[1] == Approx(M_E / (1 + M_E)));
    CHECK_THAT(log_softmax(large, 1).to_vector(),
               Catch::Matchers::Approx(log_softmax(small, 1).to_vector()).epsilon(1e-6));
    for (double v : log_softmax(Tensor::from({-1000, 0, 1000}, dtype), 0).to_vector()) {
      CHECK(std::isfinite(v));
    }
  }
}

TEST_CASE("softmax along any dim sums to one there", "[softmax]") {
  Tensor x = Tensor::arange(0, 24, 1, DType::Float64).view({2, 3, 4}) / 7;
  for (int64_t dim : {0, 1, 2, -1}) {
    Tensor s = softmax(x, dim);
    CHECK(s.shape() == x.shape());
    Tensor totals = sum(s, {dim});
    for (double total : totals.to_vector()) CHECK(total == Approx(1.0).epsilon(1e-14));
  }
  // A transposed input gives the transposed result.
  CHECK(allclose(softmax(x.transpose(1, 2), 1), softmax(x, 2).transpose(1, 2), 1e-14, 0));
  // Values along dim 1 of x[0]: column 0 is [0, 4, 8] / 7.
  const double e0 = 1, e1 = std::exp(4.0 / 7), e2 = std::exp(8.0 / 7);
  CHECK(softmax(x, 1).at({0, 2, 0}) == Approx(e2 / (e0 + e1 + e2)));
}

TEST_CASE("masked rows: -inf entries get zero weight, all -inf rows give zeros", "[softmax]") {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor scores = Tensor::from({{1, -inf, 1}, {-inf, -inf, -inf}});
  Tensor weights = softmax(scores, 1);
  CHECK(weights.to_vector() == Values{0.5, 0, 0.5, 0, 0, 0});
  Tensor log_weights = log_softmax(scores, 1);
  CHECK(log_weights.at({0, 0}) == Approx(std::log(0.5)));
  CHECK(log_weights.at({0, 1}) == -inf);
  for (int64_t j = 0; j < 3; ++j) CHECK(log_weights.at({1, j}) == -inf);
}

TEST_CASE("softmax of a scalar and errors", "[softmax]") {
  CHECK(softmax(Tensor::scalar(3), 0).item() == 1);
  CHECK(log_softmax(Tensor::scalar(3), -1).item() == 0);
  REQUIRE_THROWS_WITH(softmax(Tensor::zeros({2, 3}), 2),
                      Contains("softmax: dim 2 out of range for a tensor of rank 2"));
  REQUIRE_THROWS_WITH(log_softmax(Tensor::zeros({2}, DType::Int64), 0),
                      Contains("log_softmax: expected a float32 or float64 tensor, got int64"));
}

// Float32 rows that are contiguous take the vectorised fast_row; the same rows read through a
// transposed view take the readable softmax_rows. Both must agree within a few float32 ulps
// (fast_exp is within 2 of std::exp; the sums run in double in another order), keep exact
// zeros and -inf for masked entries, and give NaN rows for NaN input. The lengths cover less
// than one group of 16 lanes, exact groups, groups and a tail, and a vocabulary's 8,000.
TEST_CASE("float32 contiguous rows (vectorised) match the readable strided rows", "[softmax]") {
  const float inf = std::numeric_limits<float>::infinity();
  const double eps = std::numeric_limits<float>::epsilon();
  Generator generator(11);
  for (int64_t length : {1, 3, 15, 16, 17, 40, 8000}) {
    INFO("row length " << length);
    const int64_t rows = 6;
    Tensor x = uniform({rows, length}, -10, 10, generator);
    if (length > 2) x.set({1, 2}, -inf);                       // one masked entry
    for (int64_t j = 0; j < length; ++j) x.set({3, j}, -inf);  // a fully masked row
    x.set({5, length - 1}, std::numeric_limits<float>::quiet_NaN());
    const Tensor strided = x.transpose(0, 1).contiguous().transpose(0, 1);  // rows step by `rows`
    REQUIRE((length == 1 || strided.strides()[1] == rows));
    for (bool log : {false, true}) {
      INFO((log ? "log_softmax" : "softmax"));
      const Values fast = (log ? log_softmax(x, 1) : softmax(x, 1)).to_vector();
      const Values readable = (log ? log_softmax(strided, 1) : softmax(strided, 1)).to_vector();
      int64_t far_apart = 0;
      for (std::size_t i = 0; i < fast.size(); ++i) {
        if (std::isnan(readable[i]) || std::isinf(readable[i]) || readable[i] == 0) {
          far_apart += !(std::isnan(fast[i]) ? std::isnan(readable[i]) : fast[i] == readable[i]);
          continue;
        }
        const double scale = log ? std::max(1.0, std::fabs(readable[i])) : std::fabs(readable[i]);
        far_apart += !(std::fabs(fast[i] - readable[i]) <= 4 * eps * scale);
      }
      CHECK(far_apart == 0);
      CHECK(std::isnan(fast[5 * length]));  // the NaN row
      CHECK(fast[3 * length] == (log ? -inf : 0.0));
    }
  }
}

// softmax's backward, dx = y ∘ (g − Σ g ∘ y): contiguous float32 rows take one vectorised pass
// (fast_backward_row), anything else the formula in three tensor ops. The two agree within a
// few float32 ulps of the terms (the dot product is summed in double in another order, then
// rounded to float32 by both), masked entries (y = 0) get exactly 0, and every row is its own.
TEST_CASE("softmax_backward: contiguous float32 rows match the formula in tensor ops",
          "[softmax]") {
  const double eps = std::numeric_limits<float>::epsilon();
  Generator generator(12);
  for (int64_t length : {1, 3, 15, 16, 17, 20, 64, 1000}) {
    INFO("row length " << length);
    Tensor scores = uniform({5, length}, -4, 4, generator);
    if (length > 2) scores.set({1, 2}, -std::numeric_limits<float>::infinity());
    const Tensor y = softmax(scores, 1);
    const Tensor g = uniform({5, length}, -1, 1, generator);
    const Tensor g_dot_y = sum(mul(g, y), {1}, /*keepdim=*/true);
    const Values formula = mul(y, sub(g, g_dot_y)).to_vector();
    const Values fast = softmax_backward(y, g, 1).to_vector();
    const Values strided =  // a transposed view: the three-op path inside softmax_backward
        softmax_backward(y.transpose(0, 1), g.transpose(0, 1), 0).transpose(0, 1).contiguous()
            .to_vector();
    const Values y_values = y.to_vector(), g_values = g.to_vector(), dots = g_dot_y.to_vector();
    REQUIRE(fast.size() == formula.size());
    int64_t far_apart = 0;
    for (std::size_t i = 0; i < fast.size(); ++i) {
      const double bound = 4 * eps * y_values[i] *
                           (std::fabs(g_values[i]) + std::fabs(dots[i / length]));
      far_apart += !(std::fabs(fast[i] - formula[i]) <= bound);
      far_apart += strided[i] != formula[i];
    }
    CHECK(far_apart == 0);
    if (length > 2) CHECK(fast[1 * length + 2] == 0.0);  // the masked entry
  }
  // Float64 takes the formula itself.
  const Tensor y = softmax(uniform({3, 7}, -2, 2, generator, DType::Float64), 1);
  const Tensor g = uniform({3, 7}, -1, 1, generator, DType::Float64);
  CHECK(allclose(softmax_backward(y, g, -1), mul(y, sub(g, sum(mul(g, y), {-1}, true))), 0, 0));
  REQUIRE_THROWS_WITH(softmax_backward(y, Tensor::zeros({3, 6}, DType::Float64), 1),
                      Contains("softmax_backward: gradient of shape [3, 6] for softmax output of "
                               "shape [3, 7]"));
}
