// examples/gpt/attention.h — one forward of the GPT over a text's tokens, giving both its logits
// and every layer's and head's causal self-attention as the attention explorer draws it
// (base/pages/explorer.h): `show` and the playground (live.h).
// Lesson: docs/15-gpt.md#looking-inside
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/pages/explorer.h"
#include "gpt/language_model.h"

namespace atencion::examples::gpt {

struct ForwardWithMaps {
  Tensor logits;               // [T, vocab]: row i scores the token after token i
  explorer::Sentence sentence; // named `name`; per layer, [heads, T, T], with each row's likeliest
                               // next token on its right
};
// `ids`: 1 to context ids (std::invalid_argument naming the context otherwise). Eval mode, no
// graph.
ForwardWithMaps forward_with_maps(const LanguageModel& language_model,
                                  const std::vector<int64_t>& ids, const std::string& name);

}  // namespace atencion::examples::gpt
