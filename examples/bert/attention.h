// examples/bert/attention.h — every layer's and head's self-attention of one sentence, as the
// attention explorer draws it (base/pages/explorer.h): `show` and the live page (live.h).
// Lesson: docs/16-bert.md#looking-inside
#pragma once

#include <cstdint>
#include <string>

#include "base/pages/explorer.h"
#include "bert/masked_lm.h"
#include "nn/attention_observer.h"

namespace atencion::examples::bert {

// One encoder pass over `text` (std::invalid_argument over the model's positions).
explorer::Sentence attention_sentence(const MaskedLanguageModel& lm, const std::string& text);

// The maps of `text` from a forward already observed (every row: nn::AttentionObserver with no
// rows), whose batch row `row` was this text, padded to the batch's longest: the live page's
// maps come from the forward that filled its masks.
explorer::Sentence attention_sentence(const MaskedLanguageModel& lm, const std::string& text,
                                      const nn::AttentionObserver& observer, int64_t row);

}  // namespace atencion::examples::bert
