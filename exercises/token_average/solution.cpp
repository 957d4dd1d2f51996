// exercises/token_average/solution.cpp — ours, the arithmetic of
// nn::distributed::Communicator::average_gradients (nn/distributed.h) without the processes:
// each gradient scaled by n_r / n, then summed (there, the all-reduce sums).
#include <stdexcept>
#include <string>

#include "exercises/token_average/token_average.h"

namespace atencion::exercise {

std::vector<double> token_average(const std::vector<std::vector<double>>& gradients,
                                  const std::vector<int64_t>& tokens) {
  if (gradients.empty() || gradients.size() != tokens.size())
    throw std::invalid_argument("token_average: " + std::to_string(gradients.size()) +
                                " gradients, " + std::to_string(tokens.size()) + " counts");
  int64_t total = 0;
  for (size_t r = 0; r < tokens.size(); ++r) {
    if (tokens[r] < 0 || gradients[r].size() != gradients[0].size())
      throw std::invalid_argument("token_average: process " + std::to_string(r) + " has " +
                                  std::to_string(tokens[r]) + " tokens and " +
                                  std::to_string(gradients[r].size()) + " numbers (process 0: " +
                                  std::to_string(gradients[0].size()) + ")");
    total += tokens[r];
  }
  if (total == 0) throw std::invalid_argument("token_average: no tokens in any share");
  std::vector<double> average(gradients[0].size(), 0.0);
  for (size_t r = 0; r < gradients.size(); ++r) {
    const double weight = static_cast<double>(tokens[r]) / static_cast<double>(total);  // n_r / n
    for (size_t i = 0; i < average.size(); ++i) average[i] += weight * gradients[r][i];
  }
  return average;
}

}  // namespace atencion::exercise
