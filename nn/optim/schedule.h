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

// The fine-tune schedule (docs/18-finetuning.md#the-schedule): a short linear warm-up to a low
// peak, then a linear decay (BERT's own fine-tuning recipe, Hugging Face's
// get_linear_schedule_with_warmup), which stops at a floor instead of at zero so that a run
// limited by minutes rather than steps still learns after decay_steps:
//
//   lr(step) = peak · step / warmup_steps                                      step <= warmup
//   lr(step) = peak · max(floor, 1 − (step − warmup) / (decay_steps − warmup))  after
//
// A pretrained model is already near a good minimum: a high rate (the pre-training peak) would
// throw that away in the first steps ("catastrophic forgetting"), hence the low peak; the
// warm-up lets Adam's moment estimates settle before full-size steps. Steps count from 1.
struct FineTuneSchedule {
  double peak = 1e-4;
  int64_t warmup_steps = 30;
  int64_t decay_steps = 1000;  // where the decay reaches the floor
  double floor = 0.1;          // a share of the peak

  // Throws if peak is not above 0, warmup_steps < 1, decay_steps <= warmup_steps or floor
  // outside [0, 1].
  double learning_rate(int64_t step) const;
};

// Decay to the end of the run (docs/11-training.md#decay-to-the-end; the translator's
// --schedule linear): the warm-up schedule's linear warm-up to its peak, then a straight line
// down to floor · peak at the run's last step T, instead of 1/√step, which in a run of a few
// hundred steps never comes down:
//
//   peak     = factor · (d_model · warmup_steps)^(−1/2)          WarmupSchedule's peak
//   w        = min(warmup_steps, ⌊T / 3⌋), at least 1           the warm-up, at most a third
//   lr(step) = peak · step / w                                   step <= w
//   lr(step) = peak · max(floor, 1 − (step − w) / (T − w))       after
//
// It is FineTuneSchedule's shape with the warm-up schedule's peak, so it is one: this returns
// the FineTuneSchedule {peak, w, max(T, w + 1), floor}. The peak stays that of warmup_steps
// when w is shorter (a short run reaches the same rate sooner, never a higher one). Throws if
// last_step < 1 or floor is outside [0, 1], naming them.
FineTuneSchedule decay_to_end(const WarmupSchedule& warmup, int64_t last_step, double floor);
int64_t warmup_within(int64_t warmup_steps, int64_t last_step);  // w above

}  // namespace atencion::nn
