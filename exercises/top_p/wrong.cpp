// exercises/top_p/wrong.cpp — stops one token early: it keeps a token only while the sum
// *including* it stays within p, so the set may not reach p, and for a small p it keeps nothing.
#include <algorithm>
#include <numeric>

#include "exercises/top_p/top_p.h"

namespace atencion::exercise {

std::vector<double> top_p_filter(const std::vector<double>& probabilities, double p) {
  std::vector<size_t> order(probabilities.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return probabilities[a] > probabilities[b]; });
  std::vector<double> kept(probabilities.size(), 0.0);
  double total = 0;
  for (const size_t id : order) {
    if (total + probabilities[id] > p) break;
    kept[id] = probabilities[id];
    total += probabilities[id];
  }
  return kept;
}

}  // namespace atencion::exercise
