// nn/optim/schedule.cpp — Lesson: docs/11-training.md#warm-up
#include "nn/optim/schedule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace atencion::nn {

double WarmupSchedule::learning_rate(int64_t step) const {
  if (d_model < 1 || warmup_steps < 1)
    throw std::invalid_argument("WarmupSchedule: d_model " + std::to_string(d_model) +
                                " and warmup_steps " + std::to_string(warmup_steps) +
                                " must be >= 1");
  const double s = static_cast<double>(std::max<int64_t>(step, 1));
  const double decay = std::pow(s, -0.5);                                    // step^(−1/2)
  const double warmup = s * std::pow(static_cast<double>(warmup_steps), -1.5);  // step·w^(−3/2)
  return factor * std::pow(static_cast<double>(d_model), -0.5) * std::min(decay, warmup);
}

double FineTuneSchedule::learning_rate(int64_t step) const {
  if (!(peak > 0) || warmup_steps < 1 || decay_steps <= warmup_steps || !(floor >= 0 && floor <= 1))
    throw std::invalid_argument("FineTuneSchedule: peak " + std::to_string(peak) +
                                ", warmup_steps " + std::to_string(warmup_steps) +
                                ", decay_steps " + std::to_string(decay_steps) + ", floor " +
                                std::to_string(floor) +
                                ": needs peak > 0, 1 <= warmup < decay, floor in [0, 1]");
  const double s = static_cast<double>(std::max<int64_t>(step, 1));
  const double w = static_cast<double>(warmup_steps);
  if (s <= w) return peak * s / w;
  const double left = 1.0 - (s - w) / (static_cast<double>(decay_steps) - w);
  return peak * std::max(floor, left);
}

int64_t warmup_within(int64_t warmup_steps, int64_t last_step) {
  return std::max<int64_t>(1, std::min(warmup_steps, last_step / 3));
}

FineTuneSchedule decay_to_end(const WarmupSchedule& warmup, int64_t last_step, double floor) {
  if (last_step < 1 || !(floor >= 0 && floor <= 1))
    throw std::invalid_argument("decay_to_end: last_step " + std::to_string(last_step) +
                                ", floor " + std::to_string(floor) +
                                ": needs last_step >= 1, floor in [0, 1]");
  const int64_t w = warmup_within(warmup.warmup_steps, last_step);
  return {.peak = warmup.peak_learning_rate(), .warmup_steps = w,
          .decay_steps = std::max(last_step, w + 1), .floor = floor};
}

}  // namespace atencion::nn
