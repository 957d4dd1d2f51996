// tests/nn/optim/test_ema.cpp — nn/optim/ema.cpp: the moving average of the weights by hand,
// the exchange of average and weights, and its refusals.
#include <catch2/catch.hpp>

#include "nn/optim/ema.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("ExponentialMovingAverage: d_t = min(decay, (1 + t) / (10 + t)), then a blend",
          "[optim][ema]") {
  Variable p(Tensor::from({1.0, -2.0}, DType::Float64), true);
  ExponentialMovingAverage average({p}, 0.9);
  CHECK(average.held()[0].to_vector() == std::vector<double>{1.0, -2.0});  // starts at θ
  CHECK(average.decay_at(1) == Approx(2.0 / 11));
  CHECK(average.decay_at(80) == Approx(81.0 / 90));  // 0.9: where the two meet
  CHECK(average.decay_at(1000) == 0.9);
  // Step 1 moved θ to (3, 2): θ̄ = 2/11 · (1, −2) + 9/11 · (3, 2) = (29/11, 14/11).
  p.mutable_value() = Tensor::from({3.0, 2.0}, DType::Float64);
  average.update(1);
  CHECK(average.held()[0].to_vector()[0] == Approx(29.0 / 11).epsilon(1e-15));
  CHECK(average.held()[0].to_vector()[1] == Approx(14.0 / 11).epsilon(1e-15));
  // Step 1000 at θ = (0, 0): θ̄ ← 0.9 · θ̄.
  p.mutable_value() = Tensor::from({0.0, 0.0}, DType::Float64);
  average.update(1000);
  CHECK(average.held()[0].to_vector()[0] == Approx(0.9 * 29.0 / 11).epsilon(1e-15));
}

TEST_CASE("ExponentialMovingAverage: swap puts the average in the parameters, and back",
          "[optim][ema]") {
  Variable p(Tensor::from({1.0f, 2.0f}), true);
  ExponentialMovingAverage average({p}, 0.5);
  p.mutable_value() = Tensor::from({3.0f, 4.0f});
  average.update(100);  // d = 0.5: θ̄ = (2, 3)
  average.swap();
  CHECK(p.value().to_vector() == std::vector<double>{2.0, 3.0});
  CHECK(average.held()[0].to_vector() == std::vector<double>{3.0, 4.0});
  average.swap();
  CHECK(p.value().to_vector() == std::vector<double>{3.0, 4.0});
  CHECK(average.held()[0].to_vector() == std::vector<double>{2.0, 3.0});
}

TEST_CASE("ExponentialMovingAverage: refuses a decay outside (0, 1) and integer parameters",
          "[optim][ema]") {
  Variable p(Tensor::from({1.0f}), true);
  CHECK_THROWS_WITH(ExponentialMovingAverage({p}, 1.0),
                    "ExponentialMovingAverage: decay 1.000000 must be in (0, 1)");
  CHECK_THROWS_WITH(ExponentialMovingAverage({p}, 0.0), Contains("decay 0.000000"));
  Variable ids(Tensor::from_ids({1, 2}, {2}), false);
  CHECK_THROWS_WITH(ExponentialMovingAverage({ids}, 0.9),
                    "ExponentialMovingAverage: a parameter of dtype int64 (float32 or float64 "
                    "only)");
}
