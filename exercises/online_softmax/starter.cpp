// exercises/online_softmax/starter.cpp — where the exercise starts
// (docs/exercises.md#online_softmax). Either way of starting judges the same:
// `tools/exercise.sh online_softmax` copies me to exercises/online_softmax/mine.cpp (git ignores
// it) and judges that file; or copy me anywhere and run `tools/exercise.sh online_softmax FILE`.
// I compile as I am, and my judge fails "not written yet".
//
// Hints: everything in l was summed as e^(x − m_old); once the maximum grows to m_new, each term
// must become e^(x − m_new) = e^(x − m_old) · e^(m_old − m_new) (docs/14-flash-attention.md,
// the online softmax). std::exp(−∞) is 0, but −∞ − (−∞) is NaN: what is e^(m − m_new) when
// nothing has been seen yet, and what must a block of only −∞ do?
#include <stdexcept>

#include "exercises/online_softmax/online_softmax.h"

namespace atencion::exercise {

void online_softmax_update(RunningSoftmax& state, const std::vector<double>& block) {
  // TODO
  (void)state;
  (void)block;
  throw std::logic_error("online_softmax_update: not written yet (exercise online_softmax)");
}

}  // namespace atencion::exercise
