// tests/nn/optim/test_schedule.cpp — nn/optim/schedule.cpp: the paper's warm-up schedule.
#include <catch2/catch.hpp>

#include <cmath>

#include "nn/optim/schedule.h"

using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("WarmupSchedule: linear warm-up, peak at warmup_steps, then 1/√step", "[optim][schedule]") {
  const WarmupSchedule schedule{.d_model = 512, .warmup_steps = 4000, .factor = 1.0};
  // During warm-up: step · 4000^(−1.5) / √512.
  REQUIRE(schedule.learning_rate(1) == Approx(1.0 / std::pow(4000.0, 1.5) / std::sqrt(512.0)));
  REQUIRE(schedule.learning_rate(2000) == Approx(0.5 * schedule.learning_rate(4000)));
  // The peak, (512 · 4000)^(−1/2) ≈ 6.99e-4 (the paper's base model).
  REQUIRE(schedule.peak_learning_rate() == Approx(1.0 / std::sqrt(512.0 * 4000.0)));
  REQUIRE(schedule.peak_learning_rate() == Approx(6.9877e-4).epsilon(1e-4));
  // After it: 1/√step, so four times the steps halves the rate.
  REQUIRE(schedule.learning_rate(16000) == Approx(0.5 * schedule.learning_rate(4000)));
  // Step 0 is read as step 1; factor scales everything.
  REQUIRE(schedule.learning_rate(0) == schedule.learning_rate(1));
  const WarmupSchedule doubled{.d_model = 512, .warmup_steps = 4000, .factor = 2.0};
  REQUIRE(doubled.learning_rate(123) == Approx(2 * schedule.learning_rate(123)));
  REQUIRE_THROWS_WITH((WarmupSchedule{.d_model = 0}.learning_rate(1)), Contains("d_model 0"));
}

TEST_CASE("FineTuneSchedule: linear warm-up to the peak, linear decay to the floor",
          "[optim][schedule]") {
  const atencion::nn::FineTuneSchedule schedule{.peak = 2e-4, .warmup_steps = 10,
                                                .decay_steps = 110, .floor = 0.1};
  CHECK(schedule.learning_rate(0) == Approx(2e-5));  // step 0 read as step 1
  CHECK(schedule.learning_rate(5) == Approx(1e-4));
  CHECK(schedule.learning_rate(10) == Approx(2e-4));  // the peak
  CHECK(schedule.learning_rate(60) == Approx(1e-4));  // half way down
  CHECK(schedule.learning_rate(100) == Approx(2e-5));  // 1 - 90/100 = 0.1
  CHECK(schedule.learning_rate(105) == Approx(2e-5));  // the floor
  CHECK(schedule.learning_rate(100000) == Approx(2e-5));
  atencion::nn::FineTuneSchedule bad = schedule;
  bad.decay_steps = 10;
  CHECK_THROWS_WITH(bad.learning_rate(1),
                    Catch::Contains("FineTuneSchedule: peak") &&
                        Catch::Contains("needs peak > 0, 1 <= warmup < decay"));
}
