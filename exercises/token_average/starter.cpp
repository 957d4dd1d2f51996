// exercises/token_average/starter.cpp — where the exercise starts
// (docs/exercises.md#token_average). Either way of starting judges the same: `tools/exercise.sh
// token_average` copies me to exercises/token_average/mine.cpp (git ignores it) and judges that
// file; or copy me anywhere and run `tools/exercise.sh token_average FILE`. I compile as I am,
// and my judge fails "not written yet".
//
// A process's gradient is a mean over its n_r tokens, so n_r · g_r is the SUM of its tokens'
// gradients. Add the sums, divide by the tokens of all processes.
#include <stdexcept>

#include "exercises/token_average/token_average.h"

namespace atencion::exercise {

std::vector<double> token_average(const std::vector<std::vector<double>>& gradients,
                                  const std::vector<int64_t>& tokens) {
  // TODO
  (void)gradients, (void)tokens;
  throw std::logic_error("token_average: not written yet (exercise token_average)");
}

}  // namespace atencion::exercise
