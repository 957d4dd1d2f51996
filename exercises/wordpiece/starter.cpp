// exercises/wordpiece/starter.cpp — where the exercise starts (docs/exercises.md#wordpiece).
// Either way of starting judges the same: `tools/exercise.sh wordpiece` copies me to
// exercises/wordpiece/mine.cpp (git ignores it) and judges that file; or copy me anywhere and run
// `tools/exercise.sh wordpiece FILE`. I compile as I am, and my judge fails "not written yet".
//
// Two loops: the outer one walks `begin` through the word; the inner one tries `end` from the
// end of the word down to begin + 1, and stops at the first candidate the vocabulary has
// (word.substr(begin, end - begin), with "##" in front unless begin is 0). What if it finds
// none? A UTF-8 character starts at every byte whose top two bits are not 10: (byte & 0xC0) != 0x80.
// How many characters may a word have?
#include <stdexcept>

#include "exercises/wordpiece/wordpiece.h"

namespace atencion::exercise {

std::vector<std::string> wordpiece(std::string_view word, const std::set<std::string>& vocabulary) {
  // TODO
  (void)word;
  (void)vocabulary;
  throw std::logic_error("wordpiece: not written yet (exercise wordpiece)");
}

}  // namespace atencion::exercise
