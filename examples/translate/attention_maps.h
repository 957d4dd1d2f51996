// examples/translate/attention_maps.h — what `show` draws, gathered once: every attention
// module's weights for a sentence and its translation, and the curves of the training run.
// Lesson: docs/12-translation.md#heat-maps, docs/12-translation.md#the-attention-explorer
#pragma once

#include <string>
#include <vector>

#include "base/pages/explorer.h"
#include "nlohmann/json.hpp"
#include "translate/translator.h"

namespace atencion::examples::translate {

// Translates `sentence` greedily, then runs the model once more on (sentence, <s> translation)
// so that every attention module holds the weights of exactly this pair. The maps, in order:
// encoder self-attention of each layer, then per decoder layer its masked self-attention and
// its encoder-decoder attention; each [heads, queries, keys] with the pieces as tokens.
// The sentence's name is "sentence → translation".
explorer::Sentence attention_maps(const Translator& translator, const std::string& sentence);

// The same for a translation already made (ids without bos and eos; from greedy or beam search):
// the maps, the translation, its pieces (the end piece last) and, for each output position,
// the `alternatives` likeliest pieces with the model's probabilities (the softmax of that
// decoder row's logits: what the model would have said next after the pieces before it).
explorer::Sentence attention_maps(const Translator& translator, const std::string& sentence,
                                  const std::vector<int64_t>& source_ids,
                                  const std::vector<int64_t>& target_ids, int64_t alternatives = 5);

// The curves of trainer.json's history: the training loss (label-smoothed) with the dev loss
// (no smoothing) recorded at each checkpoint, and the learning rate, against the step.
std::vector<explorer::Chart> training_charts(const nlohmann::json& trainer);

}  // namespace atencion::examples::translate
