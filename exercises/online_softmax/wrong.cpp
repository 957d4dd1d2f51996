// exercises/online_softmax/wrong.cpp — keeps the new maximum but adds the new terms to the old
// sum as it is: the terms summed under a smaller maximum are now too large by e^(m_new − m_old).
#include <algorithm>
#include <cmath>

#include "exercises/online_softmax/online_softmax.h"

namespace atencion::exercise {

void online_softmax_update(RunningSoftmax& state, const std::vector<double>& block) {
  double m_new = state.m;
  for (const double x : block) m_new = std::max(m_new, x);
  if (m_new == -std::numeric_limits<double>::infinity()) return;
  for (const double x : block) state.l += std::exp(x - m_new);
  state.m = m_new;
}

}  // namespace atencion::exercise
