// exercises/learning_rate/judge.cpp — judges exercise::learning_rate.
// Lesson: docs/11-training.md#warm-up
#include <catch2/catch.hpp>

#include <cmath>

#include "exercises/learning_rate/learning_rate.h"
#include "nn/optim/schedule.h"

using atencion::exercise::learning_rate;

TEST_CASE("learning_rate: a straight line up to the peak at warmup_steps", "[exercise]") {
  // d_model 512, 4000 warm-up steps (the paper's base model): the peak is (512·4000)^(−1/2).
  const double peak = 1.0 / std::sqrt(512.0 * 4000.0);  // 6.99e-4
  CHECK(learning_rate(4000, 512, 4000, 1.0) == Approx(peak).epsilon(1e-12));
  CHECK(learning_rate(1, 512, 4000, 1.0) == Approx(peak / 4000).epsilon(1e-12));
  CHECK(learning_rate(2000, 512, 4000, 1.0) == Approx(peak / 2).epsilon(1e-12));
}

TEST_CASE("learning_rate: then 1/√step, scaled by factor", "[exercise]") {
  const double peak = 1.0 / std::sqrt(512.0 * 4000.0);
  CHECK(learning_rate(16000, 512, 4000, 1.0) == Approx(peak / 2).epsilon(1e-12));  // √4 = 2
  CHECK(learning_rate(16000, 512, 4000, 2.0) == Approx(peak).epsilon(1e-12));
}

TEST_CASE("learning_rate: step 0 is read as step 1", "[exercise]") {
  CHECK(learning_rate(0, 64, 10, 1.0) == learning_rate(1, 64, 10, 1.0));
}

TEST_CASE("learning_rate: equals WarmupSchedule at every step up to 20000", "[exercise]") {
  const atencion::nn::WarmupSchedule ours{256, 1000, 0.5};
  for (int64_t step = 0; step <= 20000; ++step) {
    INFO("step " << step);
    REQUIRE(learning_rate(step, 256, 1000, 0.5) == Approx(ours.learning_rate(step)).epsilon(1e-12));
  }
}
