// examples/base/training/schedule_plan.h — the last step T of a run whose learning rate decays
// to its end (nn::decay_to_end, the translator's --schedule linear): known from --steps or
// --epochs, estimated from the speed of the first steps under --minutes.
// Lesson: docs/11-training.md#decay-to-the-end
//
// --minutes counts from the command's start, preparation included, so T is only known once
// the machine's speed is: after kTimedSteps steps past the run's first (which is slower: it
// allocates what later steps reuse), then again every log_every steps, so that a machine that
// slows down (or speeds up) still ends near the end of its decay. Until the first estimate the
// rate follows the warm-up (see planned_learning_rate).
#pragma once

#include <cstdint>

#include "base/data/batching.h"
#include "nlohmann/json.hpp"
#include "nn/optim/schedule.h"

namespace atencion::examples {

// Steps timed past a run's first before the first estimate of T.
constexpr int64_t kTimedSteps = 20;

// The plan, as trainer.json's "schedule" records it with each checkpoint (read back by
// read_trainer_state); last_step 0: not known yet.
struct SchedulePlan {
  int64_t last_step = 0;     // T
  int64_t warmup_steps = 0;  // the warm-up used: nn::warmup_within(the run's, T)
};

// The step at which --steps (`steps_limit`) or --epochs (`epochs_limit`) ends the run,
// whichever comes first, for a run at `step` whose batch stream stands at `at`; 0 when neither
// is set (0).
int64_t last_step_of_limits(int64_t steps_limit, int64_t epochs_limit, int64_t step,
                            BatchPosition at, int64_t batches_per_epoch);

// T under a time limit: `step` plus the steps that fit in `seconds_left` at the speed
// measured, `timed_seconds` for `timed_steps` steps; at least step + 1 (the step about to be
// taken is always taken).
int64_t estimate_last_step(int64_t step, double seconds_left, int64_t timed_steps,
                           double timed_seconds);

// The plan for a last step T (0: unknown) and the run's warm-up.
SchedulePlan plan_for(int64_t last_step, int64_t warmup_steps);

// The plan a run starts with: T from its --steps or --epochs (`limits_last_step`; under
// --minutes too, until T is estimated); under --minutes alone (`timed`), a resumed run's
// `recorded` T until its first estimate, or none (T unknown: the warm-up).
SchedulePlan first_plan(int64_t limits_last_step, bool timed, const SchedulePlan& recorded,
                        int64_t warmup_steps);

// The rate at `step` under `plan`: nn::decay_to_end of `warmup`'s peak when T is known, and
// before that the warm-up to the peak, held there if the warm-up is over.
double planned_learning_rate(const nn::WarmupSchedule& warmup, const SchedulePlan& plan,
                             double floor, int64_t step);

nlohmann::json to_json(const SchedulePlan& plan);
// trainer.json's "schedule"; throws std::invalid_argument "'<field>' is ...,
// not ..." (read_trainer_state adds the file and "schedule: ").
SchedulePlan read_schedule_plan(const nlohmann::json& schedule);

}  // namespace atencion::examples
