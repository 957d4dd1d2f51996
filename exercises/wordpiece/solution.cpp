// exercises/wordpiece/solution.cpp — ours: examples/bert/wordpiece.cpp, longest_match_first.
#include "bert/wordpiece.h"
#include "exercises/wordpiece/wordpiece.h"

namespace atencion::exercise {

std::vector<std::string> wordpiece(std::string_view word, const std::set<std::string>& vocabulary) {
  return examples::bert::longest_match_first(word, [&](std::string_view piece) {
    return vocabulary.count(std::string(piece)) > 0;
  });
}

}  // namespace atencion::exercise
