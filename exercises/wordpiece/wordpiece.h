// exercises/wordpiece/wordpiece.h — exercise "wordpiece" (docs/exercises.md#wordpiece).
// Lesson: docs/16-bert.md#wordpiece
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh wordpiece path/to/your_file.cpp
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace atencion::exercise {

// WordPiece's greedy longest match first over one word (lower-cased, no spaces, no
// punctuation: what BERT's basic tokenizer leaves): the longest piece of `vocabulary` that
// starts the word, then the longest "##" piece that goes on from where it ended, and so on.
// If some point of the word has no piece at all, the whole word is {"[UNK]"}; so is a word of
// more than 100 characters. The word is UTF-8: a piece never cuts a character in two.
std::vector<std::string> wordpiece(std::string_view word, const std::set<std::string>& vocabulary);

}  // namespace atencion::exercise
