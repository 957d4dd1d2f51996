// exercises/wordpiece/solution.cpp — ours: examples/base/data/wordpiece.cpp, longest_match_first.
#include "base/data/wordpiece.h"
#include "exercises/wordpiece/wordpiece.h"

namespace atencion::exercise {

std::vector<std::string> wordpiece(std::string_view word, const std::set<std::string>& vocabulary) {
  return examples::longest_match_first(word, [&](std::string_view piece) {
    return vocabulary.count(std::string(piece)) > 0;
  });
}

}  // namespace atencion::exercise
