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

TEST_CASE("decay_to_end: the warm-up schedule's warm-up and peak, then a line down to step T",
          "[optim][schedule]") {
  // The translator's defaults: d_model 256, 200 warm-up steps, factor 0.5: the peak is
  // 0.5 / √(256 · 200) = 2.2097e-3.
  const WarmupSchedule paper{.d_model = 256, .warmup_steps = 200, .factor = 0.5};
  const double peak = 0.5 / std::sqrt(256.0 * 200.0);
  const FineTuneSchedule schedule = decay_to_end(paper, 1000, 0.0);
  CHECK(schedule.learning_rate(1) == Approx(peak / 200));     // the same warm-up as the paper's
  CHECK(schedule.learning_rate(100) == Approx(paper.learning_rate(100)));
  CHECK(schedule.learning_rate(200) == Approx(2.2097e-3).epsilon(1e-4));  // the same peak
  CHECK(schedule.learning_rate(600) == Approx(peak / 2));     // 1 − 400/800: half way down
  CHECK(schedule.learning_rate(900) == Approx(peak / 8));     // 1 − 700/800
  CHECK(schedule.learning_rate(1000) == 0.0);                 // T: down to 0
  CHECK(schedule.learning_rate(1200) == 0.0);                 // and no lower
  CHECK(decay_to_end(paper, 1000, 0.1).learning_rate(1000) == Approx(0.1 * peak));  // a floor
}

TEST_CASE("decay_to_end: a short run's warm-up is at most a third of it, to the same peak",
          "[optim][schedule]") {
  const WarmupSchedule paper{.d_model = 256, .warmup_steps = 200, .factor = 0.5};
  const double peak = paper.peak_learning_rate();
  CHECK(warmup_within(200, 600) == 200);
  CHECK(warmup_within(200, 599) == 199);
  CHECK(warmup_within(200, 300) == 100);
  CHECK(warmup_within(200, 2) == 1);  // never 0
  const FineTuneSchedule short_run = decay_to_end(paper, 300, 0.0);
  CHECK(short_run.warmup_steps == 100);
  CHECK(short_run.learning_rate(50) == Approx(peak / 2));
  CHECK(short_run.learning_rate(100) == Approx(peak));        // not a higher peak
  CHECK(short_run.learning_rate(200) == Approx(peak / 2));    // 1 − 100/200
  CHECK(short_run.learning_rate(300) == 0.0);
  // One or two steps: the first at the peak, the second (if any) at the floor.
  CHECK(decay_to_end(paper, 2, 0.0).learning_rate(1) == Approx(peak));
  CHECK(decay_to_end(paper, 2, 0.0).learning_rate(2) == 0.0);
  CHECK(decay_to_end(paper, 1, 0.0).learning_rate(1) == Approx(peak));
}

TEST_CASE("decay_to_end: refuses a last step below 1 and a floor outside [0, 1], naming them",
          "[optim][schedule]") {
  const WarmupSchedule paper{.d_model = 256, .warmup_steps = 200, .factor = 0.5};
  CHECK_THROWS_WITH(decay_to_end(paper, 0, 0.0),
                    "decay_to_end: last_step 0, floor 0.000000: needs last_step >= 1, floor in "
                    "[0, 1]");
  CHECK_THROWS_WITH(decay_to_end(paper, 10, 1.5), Contains("floor 1.500000"));
  CHECK_THROWS_WITH(decay_to_end(paper, 10, -0.1), Contains("floor -0.100000"));
}
