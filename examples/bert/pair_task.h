// examples/bert/pair_task.h — a classifier's data: lines of `label<TAB>text[<TAB>text]`, and
// the shipped example task: does this English sentence translate this Spanish one?
// Lesson: docs/18-finetuning.md#the-task
//
// The task is made from the translator's Tatoeba pairs (examples/translate/data/spa-eng.tsv,
// CC BY 2.0 FR: Tatoeba Project contributors, via manythings.org/anki; its README says how to
// credit it): a seeded shuffle picks the pairs, the first held_out_pairs of them are the
// held-out split and the next train_pairs the training split. Each pair gives two lines:
//   yes <TAB> english <TAB> its spanish
//   no  <TAB> english <TAB> the spanish of another pair of the same split, of about the same
//                           length (a neighbour in the split sorted by length), whose English
//                           and Spanish both differ from this pair's (ignoring case)
// so the labels are balanced, length says nothing, and no sentence of the held-out split is
// seen in training. The same seed gives the same files on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/data/tsv.h"

namespace atencion::examples::bert {

struct LabelledInput {
  std::string label;
  std::string a;  // the text, or the first sentence of a pair
  std::string b;  // the second sentence; "" for one sentence
};

// The lines of `path` (blank lines skipped; "\r\n" accepted). std::invalid_argument naming the
// file and line for a line without a tab or with more than two, an empty field, invalid UTF-8,
// and a file with no line.
std::vector<LabelledInput> read_labelled(const std::string& path);
// The same lines as text, `label<TAB>a[<TAB>b]\n` each.
std::string format_labelled(const std::vector<LabelledInput>& inputs);
// The labels of `inputs`, sorted and each once (the classifier's classes, in this order).
std::vector<std::string> label_set(const std::vector<LabelledInput>& inputs);

struct PairTaskOptions {
  uint64_t seed = 20240501;
  int64_t train_pairs = 12000;   // two lines each
  int64_t held_out_pairs = 500;
};
struct PairTask {
  std::vector<LabelledInput> train, held_out;
  // Each training pair as one line, "english spanish": masked-LM pre-training on it (XLM's
  // translation language modelling, Lample and Conneau 2019) learns to fill a word in from the
  // other language too.
  std::vector<std::string> pretraining_text;
};
PairTask translation_task(const std::vector<SentencePair>& pairs, const PairTaskOptions& options);

// The translator's shipped pairs (as `atencion-translate` finds them; ATENCION_TRANSLATE_DATA
// overrides), read.
std::vector<SentencePair> shipped_pairs();

}  // namespace atencion::examples::bert
