// exercises/learning_rate/starter.cpp — copy me to a file of your own, write the schedule, and
// run:  tools/exercise.sh learning_rate your_file.cpp
//
// std::pow and std::min are all you need. Before the peak the second term is the smaller one
// (a straight line from 0); after it the first (1/√step). Check: where do they meet?
#include <stdexcept>

#include "exercises/learning_rate/learning_rate.h"

namespace atencion::exercise {

double learning_rate(int64_t step, int64_t d_model, int64_t warmup_steps, double factor) {
  // TODO
  (void)step, (void)d_model, (void)warmup_steps, (void)factor;
  throw std::logic_error("learning_rate: not written yet (exercise learning_rate)");
}

}  // namespace atencion::exercise
