// exercises/learning_rate/learning_rate.h — exercise "learning_rate"
// (docs/exercises.md#learning_rate).
// Lesson: docs/11-training.md#warm-up
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh learning_rate path/to/your_file.cpp
#pragma once

#include <cstdint>

namespace atencion::exercise {

// The paper's schedule (§5.3), steps counted from 1 (step 0 is read as step 1):
//   lr(step) = factor · d_model^(−1/2) · min(step^(−1/2), step · warmup_steps^(−3/2))
double learning_rate(int64_t step, int64_t d_model, int64_t warmup_steps, double factor);

}  // namespace atencion::exercise
