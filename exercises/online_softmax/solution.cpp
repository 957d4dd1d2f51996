// exercises/online_softmax/solution.cpp — ours: the update that tensor/flash_attention.cpp's
// forward_tile makes for each query row and tile of keys (there in float32 for the scores).
#include <algorithm>
#include <cmath>

#include "exercises/online_softmax/online_softmax.h"

namespace atencion::exercise {

void online_softmax_update(RunningSoftmax& state, const std::vector<double>& block) {
  double m_new = state.m;
  for (const double x : block) m_new = std::max(m_new, x);
  if (m_new == -std::numeric_limits<double>::infinity()) return;  // nothing visible yet
  // e^(x − m_old) · e^(m_old − m_new) = e^(x − m_new): the old sum, as if m_new had been known.
  double l_new = std::exp(state.m - m_new) * state.l;  // e^(−∞) = 0 before the first score
  for (const double x : block) l_new += std::exp(x - m_new);
  state.m = m_new;
  state.l = l_new;
}

}  // namespace atencion::exercise
