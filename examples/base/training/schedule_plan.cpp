// examples/base/training/schedule_plan.cpp — see schedule_plan.h.
// Lesson: docs/11-training.md#decay-to-the-end
#include "base/training/schedule_plan.h"

#include <algorithm>
#include <cmath>

#include "base/io/json_fields.h"
#include "base/training/resume_state.h"

namespace atencion::examples {

int64_t last_step_of_limits(int64_t steps_limit, int64_t epochs_limit, int64_t step,
                            BatchPosition at, int64_t batches_per_epoch) {
  int64_t last = 0;
  if (steps_limit > 0) last = steps_limit;
  if (epochs_limit > 0) {
    // Every batch is a step: the batches left until the end of epoch epochs_limit − 1.
    const int64_t done = at.epoch * batches_per_epoch + at.batch;
    const int64_t left = epochs_limit * batches_per_epoch - done;
    const int64_t by_epochs = step + std::max<int64_t>(left, 0);
    last = last > 0 ? std::min(last, by_epochs) : by_epochs;
  }
  return last;
}

int64_t estimate_last_step(int64_t step, double seconds_left, int64_t timed_steps,
                           double timed_seconds) {
  const double seconds_per_step =
      timed_seconds / static_cast<double>(std::max<int64_t>(timed_steps, 1));
  const double fit = seconds_per_step > 0 ? std::max(seconds_left, 0.0) / seconds_per_step : 0;
  const double steps_fitting = std::min(fit, static_cast<double>(kMostSteps - step));
  return step + std::max<int64_t>(1, static_cast<int64_t>(std::ceil(steps_fitting)));
}

SchedulePlan plan_for(int64_t last_step, int64_t warmup_steps) {
  if (last_step < 1) return {};
  return {last_step, nn::warmup_within(warmup_steps, last_step)};
}

SchedulePlan first_plan(int64_t limits_last_step, bool timed, const SchedulePlan& recorded,
                        int64_t warmup_steps) {
  const bool recorded_only = limits_last_step == 0 && timed;
  return plan_for(recorded_only ? recorded.last_step : limits_last_step, warmup_steps);
}

double planned_learning_rate(const nn::WarmupSchedule& warmup, const SchedulePlan& plan,
                             double floor, int64_t step) {
  if (plan.last_step > 0)
    return nn::decay_to_end(warmup, plan.last_step, floor).learning_rate(step);
  const double share = static_cast<double>(std::max<int64_t>(step, 1)) /
                       static_cast<double>(warmup.warmup_steps);
  return warmup.peak_learning_rate() * std::min(1.0, share);
}

nlohmann::json to_json(const SchedulePlan& plan) {
  return {{"last_step", plan.last_step}, {"warmup_steps", plan.warmup_steps}};
}

SchedulePlan read_schedule_plan(const nlohmann::json& schedule) {
  if (!schedule.is_object()) refuse_field("schedule", schedule, "a JSON object");
  SchedulePlan plan;
  plan.last_step = integer_field(schedule, "last_step", 1, kMostSteps);
  plan.warmup_steps = integer_field(schedule, "warmup_steps", 1, plan.last_step);
  return plan;
}

}  // namespace atencion::examples
