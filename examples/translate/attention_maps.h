// examples/translate/attention_maps.h — what `show` draws, gathered once: every attention
// module's weights for a sentence and its translation, and the curves of the training run.
// Lesson: docs/12-translation.md#heat-maps, docs/12-translation.md#the-attention-explorer
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/pages/explorer.h"
#include "nlohmann/json.hpp"
#include "translate/translator.h"

namespace atencion::examples::translate {

// A translation already made, for attention_maps: the text, its source ids and its output ids
// (without bos and eos; from greedy or beam search).
struct Translated {
  std::string text;
  std::vector<int64_t> source_ids;
  std::vector<int64_t> target_ids;
};

// The maps of each translation, from batched forwards of (source, <s> translation) (sorted by
// length, 32 pairs each) whose nn::AttentionObserver keeps every row's weights, in order:
// encoder self-attention of each layer, then per decoder layer its masked self-attention and its
// encoder-decoder attention; each [heads, queries, keys] with the pieces as tokens (the batch's
// padding cut off: each is what its sentence gets alone). With them the translation, its pieces
// (the end piece last) and, for each output position, the `alternatives` likeliest pieces with
// the model's probabilities (the softmax of that decoder row's logits: what the model would have
// said next after the pieces before it). A sentence's name is "text → translation".
std::vector<explorer::Sentence> attention_maps(const Translator& translator,
                                               const std::vector<Translated>& translations,
                                               int64_t alternatives = 5);

// `show`'s maps: the sentences translated greedily in one batch, then attention_maps above.
std::vector<explorer::Sentence> attention_maps(const Translator& translator,
                                               const std::vector<std::string>& sentences);

// The curves of trainer.json's history: the training loss (label-smoothed) with the dev loss
// (no smoothing) recorded at each checkpoint, and the learning rate, against the step.
std::vector<explorer::Chart> training_charts(const nlohmann::json& trainer);

}  // namespace atencion::examples::translate
