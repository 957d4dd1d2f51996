// exercises/online_softmax/starter.cpp — copy me to a file of your own, write
// online_softmax_update, and run:
//   tools/exercise.sh online_softmax your_file.cpp
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
