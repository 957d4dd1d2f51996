// exercises/learning_rate/wrong.cpp — the warm-up line with warmup_steps^(−1/2) instead of
// ^(−3/2): it climbs warmup_steps times too steeply, so min() picks the decay from the first
// step on and there is no warm-up at all.
#include <algorithm>
#include <cmath>

#include "exercises/learning_rate/learning_rate.h"

namespace atencion::exercise {

double learning_rate(int64_t step, int64_t d_model, int64_t warmup_steps, double factor) {
  const double s = static_cast<double>(std::max<int64_t>(step, 1));
  const double warmup = s * std::pow(static_cast<double>(warmup_steps), -0.5);
  const double decay = std::pow(s, -0.5);
  return factor * std::pow(static_cast<double>(d_model), -0.5) * std::min(decay, warmup);
}

}  // namespace atencion::exercise
