// examples/bert/attention.h — every layer's and head's self-attention of one sentence, as the
// attention explorer draws it (base/pages/explorer.h): `show` and the live page (live.h).
// Lesson: docs/16-bert.md#looking-inside
#pragma once

#include <string>

#include "base/pages/explorer.h"
#include "bert/masked_lm.h"

namespace atencion::examples::bert {

// One encoder pass over `text` (std::invalid_argument over the model's positions).
explorer::Sentence attention_sentence(const MaskedLanguageModel& lm, const std::string& text);

}  // namespace atencion::examples::bert
