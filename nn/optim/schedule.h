// nn/optim/schedule.h — the learning-rate schedule of "Attention Is All You Need" (§5.3):
// a linear warm-up, then decay with the inverse square root of the step.
// Lesson: docs/11-training.md#warm-up
//
//   lr(step) = factor · d_model^(−1/2) · min(step^(−1/2), step · warmup_steps^(−3/2))
//
// The two terms meet at step = warmup_steps, where the rate peaks at
// factor · (d_model · warmup_steps)^(−1/2). Steps count from 1 (the first optimizer step);
// step 0 is read as step 1, as the Annotated Transformer does, so the rate is never 0 or ∞.
#pragma once

#include <cstdint>

namespace atencion::nn {

struct WarmupSchedule {
  int64_t d_model = 512;
  int64_t warmup_steps = 4000;
  double factor = 1.0;

  double learning_rate(int64_t step) const;  // throws if d_model or warmup_steps < 1
  double peak_learning_rate() const { return learning_rate(warmup_steps); }
};

}  // namespace atencion::nn
