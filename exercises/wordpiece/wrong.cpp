// exercises/wordpiece/wrong.cpp — shortest match first: "un" is taken before "unaff" could be,
// so a word the vocabulary holds whole is cut in pieces (and some words become [UNK] that a
// longer first piece would have spelled).
#include "exercises/wordpiece/wordpiece.h"

namespace atencion::exercise {

std::vector<std::string> wordpiece(std::string_view word, const std::set<std::string>& vocabulary) {
  if (word.size() > 100) return {"[UNK]"};
  std::vector<std::string> pieces;
  for (size_t begin = 0; begin < word.size();) {
    size_t end = begin + 1;
    for (; end <= word.size(); ++end) {
      const std::string candidate = (begin > 0 ? "##" : "") + std::string(word.substr(begin, end - begin));
      if (vocabulary.count(candidate)) {
        pieces.push_back(candidate);
        break;
      }
    }
    if (end > word.size()) return {"[UNK]"};
    begin = end;
  }
  return pieces;
}

}  // namespace atencion::exercise
