// exercises/token_average/token_average.h — exercise "token_average"
// (docs/exercises.md#token_average).
// Lesson: docs/13-data-parallel.md#the-token-count-trap
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh token_average path/to/your_file.cpp
#pragma once

#include <cstdint>
#include <vector>

namespace atencion::exercise {

// N processes each computed gradients[r], the gradient of the MEAN loss over its own tokens[r]
// targets. Returns the gradient of the mean loss over all of them, what one process would get
// on the whole batch:
//   g = Σ_r (n_r / n) · g_r,        n = Σ_r n_r
// Throws std::invalid_argument when the two lists differ in length, the gradients differ in
// size, a count is negative or all counts are 0.
std::vector<double> token_average(const std::vector<std::vector<double>>& gradients,
                                  const std::vector<int64_t>& tokens);

}  // namespace atencion::exercise
