// exercises/token_average/wrong.cpp — the mean of the processes' means: every process weighs
// the same, however many tokens its share holds. Right only when every share holds as many;
// otherwise the tokens of a short share count more than those of a long one.
#include <stdexcept>
#include <string>

#include "exercises/token_average/token_average.h"

namespace atencion::exercise {

std::vector<double> token_average(const std::vector<std::vector<double>>& gradients,
                                  const std::vector<int64_t>& tokens) {
  if (gradients.empty() || gradients.size() != tokens.size())
    throw std::invalid_argument("token_average: " + std::to_string(gradients.size()) +
                                " gradients, " + std::to_string(tokens.size()) + " counts");
  std::vector<double> mean(gradients[0].size(), 0.0);
  for (const std::vector<double>& gradient : gradients)
    for (size_t i = 0; i < mean.size(); ++i)
      mean[i] += gradient[i] / static_cast<double>(gradients.size());
  return mean;
}

}  // namespace atencion::exercise
