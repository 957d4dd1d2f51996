// examples/translate/attention_maps.h — what `show` draws, gathered once: every attention
// module's weights for a sentence and its translation, and the curves of the training run.
// Lesson: docs/12-translation.md#heat-maps, docs/12-translation.md#the-attention-explorer
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/decoding/decoding_maps.h"
#include "base/pages/explorer.h"
#include "nlohmann/json.hpp"
#include "translate/translator.h"

namespace atencion::examples::translate {

// One decoded sentence's page entry: the translation, its pieces and, from its decoding
// (decoding::decode with a MapsCollection: base/decoding/decoding_maps.h, no second forward),
// the maps in order: encoder self-attention of each layer, then per decoder layer its masked
// self-attention and its encoder-decoder attention, each [heads, queries, keys] with the pieces
// as tokens; and per decoder row the likeliest next pieces with the model's probabilities (what
// the model would have said after the pieces before it). Decoder row i reads <s> y1 .. yi and
// produced y(i+1), the end piece at the last row of a translation the model ended (one cut by
// the output's length limit has no row for its last piece). A sentence's name is
// "text → translation".
explorer::Sentence sentence_maps(const Translator& translator, const std::string& text,
                                 const std::vector<int64_t>& source_ids,
                                 const std::vector<int64_t>& target_ids,
                                 const decoding::DecodingMaps& maps);

// `show`'s maps: the sentences translated greedily in one batch, their maps collected while
// decoding (sentence_maps above), five alternatives a row.
std::vector<explorer::Sentence> attention_maps(const Translator& translator,
                                               const std::vector<std::string>& sentences);

// The curves of trainer.json's history: the training loss (label-smoothed) with the dev loss
// (no smoothing) recorded at each dev evaluation, and the learning rate, against the step; then
// the dev loss and the dev BLEU against the minutes of training (runs that recorded them).
std::vector<explorer::Chart> training_charts(const nlohmann::json& trainer);

}  // namespace atencion::examples::translate
