// exercises/top_p/top_p.h — exercise "top_p" (docs/exercises.md#top_p).
// Lesson: docs/15-gpt.md#sampling
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh top_p path/to/your_file.cpp
#pragma once

#include <vector>

namespace atencion::exercise {

// Nucleus (top-p) filtering of a next-token distribution: keep the most likely tokens, from the
// top down, while the probability of the tokens kept before them is below p; set the others to
// 0 (no renormalising). The most likely token is always kept; equal probabilities are taken
// in id order (the lower id first). p in (0, 1]; p = 1 keeps every token.
std::vector<double> top_p_filter(const std::vector<double>& probabilities, double p);

}  // namespace atencion::exercise
