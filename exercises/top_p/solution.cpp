// exercises/top_p/solution.cpp — ours, as examples/base/decoding/sampling.cpp's top_p_filter.
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
  double before = 0;  // the probability of the tokens kept so far
  for (const size_t id : order) {
    if (before >= p) break;
    kept[id] = probabilities[id];
    before += probabilities[id];
  }
  return kept;
}

}  // namespace atencion::exercise
