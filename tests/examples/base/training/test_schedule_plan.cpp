// Tests for examples/base/training/schedule_plan.cpp: the last step T of a run that decays to
// its end, from --steps and --epochs, and estimated from given times (no clock) under --minutes.
#include <catch2/catch.hpp>

#include <cmath>

#include "base/training/resume_state.h"
#include "base/training/schedule_plan.h"

using namespace atencion;
using namespace atencion::examples;
using Catch::Matchers::Contains;

TEST_CASE("schedule plan: T from --steps, from --epochs, and the sooner of the two",
          "[trainer][schedule]") {
  // A fresh run, 40 batches an epoch.
  CHECK(last_step_of_limits(0, 0, 0, {0, 0}, 40) == 0);  // no limit: no T
  CHECK(last_step_of_limits(700, 0, 0, {0, 0}, 40) == 700);
  CHECK(last_step_of_limits(0, 3, 0, {0, 0}, 40) == 120);
  CHECK(last_step_of_limits(100, 3, 0, {0, 0}, 40) == 100);
  CHECK(last_step_of_limits(500, 3, 0, {0, 0}, 40) == 120);
  // Resumed at step 50 (epoch 1, batch 10): two epochs end after 30 more batches.
  CHECK(last_step_of_limits(0, 2, 50, {1, 10}, 40) == 80);
  // Already past the end of its epochs: no step left.
  CHECK(last_step_of_limits(0, 1, 50, {1, 10}, 40) == 50);
}

TEST_CASE("schedule plan: T under --minutes is the steps done and those that fit in the time left",
          "[trainer][schedule]") {
  // 20 steps in 14 s (0.7 s a step), 500 s left, at step 21: 21 + 714.3 steps, rounded up.
  CHECK(estimate_last_step(21, 500, 20, 14.0) == 21 + 715);
  // Re-estimated later on a machine that slowed down: 1.0 s a step, 100 s left at step 400.
  CHECK(estimate_last_step(400, 100, 399, 399.0) == 500);
  // No time left, or less than a step: the step about to be taken still is.
  CHECK(estimate_last_step(300, 0, 20, 10.0) == 301);
  CHECK(estimate_last_step(300, -5, 20, 10.0) == 301);
  CHECK(estimate_last_step(300, 0.1, 20, 10.0) == 301);
  // A clock that did not move (0 s for 20 steps): no estimate beyond the next step, never ∞.
  CHECK(estimate_last_step(21, 500, 20, 0.0) == 22);
  // An absurd budget stays below the largest step a checkpoint may record.
  CHECK(estimate_last_step(21, 1e300, 20, 1.0) == kMostSteps);
}

TEST_CASE("schedule plan: the warm-up is at most a third of T, so no run ends inside it",
          "[trainer][schedule]") {
  CHECK(plan_for(0, 200).last_step == 0);  // T unknown: no plan yet
  const SchedulePlan long_run = plan_for(1600, 200);
  CHECK(long_run.last_step == 1600);
  CHECK(long_run.warmup_steps == 200);
  // A slow machine: 1 s a step, 430 s left at step 21: T = 451; the warm-up 150, then 301 of
  // decay.
  const SchedulePlan slow = plan_for(estimate_last_step(21, 430, 20, 20.0), 200);
  CHECK(slow.last_step == 451);
  CHECK(slow.warmup_steps == 150);
  CHECK(plan_for(2, 200).warmup_steps == 1);
}

TEST_CASE("schedule plan: a run starts from its limits' T, or under --minutes alone from the "
          "recorded one", "[trainer][schedule]") {
  const SchedulePlan recorded = plan_for(736, 200);
  // --steps 1000 (fresh or resumed, with or without --minutes): T = 1000 until an estimate.
  CHECK(first_plan(1000, false, {}, 200).last_step == 1000);
  CHECK(first_plan(1000, false, recorded, 200).last_step == 1000);
  CHECK(first_plan(1000, true, recorded, 200).last_step == 1000);
  // --minutes alone: a resumed run goes on with the T it recorded; a fresh one has none yet.
  CHECK(first_plan(0, true, recorded, 200).last_step == 736);
  CHECK(first_plan(0, true, recorded, 200).warmup_steps == 200);
  CHECK(first_plan(0, true, {}, 200).last_step == 0);
}

TEST_CASE("schedule plan: before T is known the rate warms up to the peak and holds it",
          "[trainer][schedule]") {
  const nn::WarmupSchedule warmup{.d_model = 256, .warmup_steps = 200, .factor = 0.5};
  const double peak = warmup.peak_learning_rate();
  CHECK(planned_learning_rate(warmup, {}, 0, 21) == Approx(peak * 21 / 200));
  CHECK(planned_learning_rate(warmup, {}, 0, 300) == Approx(peak));
  // Known: nn::decay_to_end's line, down to the floor at T.
  const SchedulePlan plan = plan_for(1000, 200);
  CHECK(planned_learning_rate(warmup, plan, 0, 600) == Approx(peak / 2));
  CHECK(planned_learning_rate(warmup, plan, 0.1, 1000) == Approx(0.1 * peak));
}

TEST_CASE("schedule plan: trainer.json's record reads back, and a damaged one is refused",
          "[trainer][schedule]") {
  const SchedulePlan plan = plan_for(451, 200);
  const SchedulePlan read = read_schedule_plan(to_json(plan));
  CHECK(read.last_step == 451);
  CHECK(read.warmup_steps == 150);
  nlohmann::json trainer = {{"step", 10}, {"epoch", 0}, {"batch", 10}, {"seconds", 3.0},
                            {"history", nlohmann::json::array()}};
  CHECK(read_trainer_state(trainer, "t.json").schedule.last_step == 0);  // older: none
  trainer["schedule"] = to_json(plan);
  CHECK(read_trainer_state(trainer, "t.json").schedule.last_step == 451);
  trainer["schedule"]["last_step"] = 0;
  CHECK_THROWS_WITH(read_trainer_state(trainer, "t.json"),
                    "t.json: schedule: 'last_step' is 0, not an integer from 1 to 1000000000000");
  trainer["schedule"] = {{"last_step", 10}, {"warmup_steps", 11}};
  CHECK_THROWS_WITH(read_trainer_state(trainer, "t.json"),
                    Contains("t.json: schedule: 'warmup_steps' is 11"));
  trainer["schedule"] = "linear";
  CHECK_THROWS_WITH(read_trainer_state(trainer, "t.json"),
                    Contains("t.json: schedule: 'schedule' is \"linear\", not a JSON object"));
}
