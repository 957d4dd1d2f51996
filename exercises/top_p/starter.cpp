// exercises/top_p/starter.cpp — where the exercise starts (docs/exercises.md#top_p).
// Either way of starting judges the same: `tools/exercise.sh top_p` copies me to
// exercises/top_p/mine.cpp (git ignores it) and judges that file; or copy me anywhere and run
// `tools/exercise.sh top_p FILE`. I compile as I am, and my judge fails "not written yet".
//
// Sort the ids by probability (std::stable_sort keeps equal ones in id order), then walk down
// the sorted ids adding up what you keep. When do you stop: before or after the sum reaches p?
#include <stdexcept>

#include "exercises/top_p/top_p.h"

namespace atencion::exercise {

std::vector<double> top_p_filter(const std::vector<double>& probabilities, double p) {
  // TODO
  (void)probabilities;
  (void)p;
  throw std::logic_error("top_p_filter: not written yet (exercise top_p)");
}

}  // namespace atencion::exercise
