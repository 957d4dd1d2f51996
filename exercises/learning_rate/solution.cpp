// exercises/learning_rate/solution.cpp — ours: WarmupSchedule in nn/optim/schedule.cpp.
#include "exercises/learning_rate/learning_rate.h"
#include "nn/optim/schedule.h"

namespace atencion::exercise {

double learning_rate(int64_t step, int64_t d_model, int64_t warmup_steps, double factor) {
  return nn::WarmupSchedule{d_model, warmup_steps, factor}.learning_rate(step);
}

}  // namespace atencion::exercise
